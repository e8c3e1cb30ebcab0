/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON bodies read loosely in assertions */
/**
 * The A2A REST edge against a real gateway on loopback (embedded synthetic hosts): every
 * intent through HTTP, the core behind it, and what it leaves for the other edges.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceObject } from "../../../../src/edges/a2a/intents/services.js";
import type { HostRuntime } from "../../../../src/booking/api.js";
import { startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";

const HOST = "maple-street-auto";
const DAY = 86_400_000;
let gw: E2eGateway;
let key: string;

const api = (path: string) => `${gw.origin}/api/servicialo/${path}`;
const get = async (path: string) => {
  const r = await fetch(api(path));
  return { status: r.status, body: (await r.json()) as Record<string, any>, headers: r.headers };
};
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(api(path), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any>, headers: r.headers };
};

/** The next local date (YYYY-MM-DD, Toronto) with this ISO weekday, at least a day ahead. */
function nextWeekday(iso: number): string {
  for (let d = 2; d < 10; d++) {
    const t = new Date(Date.now() + d * DAY);
    const s = t.toLocaleDateString("en-CA", { timeZone: "America/Toronto" });
    const wd = new Date(`${s}T12:00:00Z`).getUTCDay() || 7;
    if (wd === iso) return s;
  }
  throw new Error("unreachable");
}

beforeAll(async () => {
  gw = await startGateway();
  key = await gw.runtime.a2aKeys.issue(HOST);
});
afterAll(async () => gw.close());

describe("list_services", () => {
  it("answers the catalog in the spec's shape, price exact in whole units and all-in (HST included)", async () => {
    const r = await get(`${HOST}/services`);
    expect(r.status).toBe(200);
    expect(r.body.servicialo_version).toBe("1.0");
    expect(r.body.organization).toEqual({ name: "Maple Street Auto", slug: HOST, confirmation: "instant" });
    const oil = r.body.services.find((s: any) => s.id === "oil-change");
    // 79.00 + 13% HST: the amount the business records for the booking, not the pre-tax line.
    expect(oil).toMatchObject({
      price: "89.27",
      currency: "CAD",
      price_unit: "servicio",
      modality: "presencial",
      duration_minutes: 45,
      description: null,
      tags: [],
      requirements: [],
    });
  });
  it("writes a zero-decimal currency without decimals and a 2-decimal one exactly", () => {
    const host = {
      config: { services: [], timezone: "UTC", policies: { confirmation: "instant" } },
      catalog: { organization: {}, taxes: [] },
    } as unknown as HostRuntime;
    const svc = (minor: number, currency: string) =>
      serviceObject(
        host,
        {
          id: "s",
          name: "S",
          duration: 3_600_000,
          bufferAfterMs: 0,
          requires: [],
          price: { minor, currency },
        },
        0,
      );
    expect(svc(40000, "CLP").price).toBe("40000");
    expect(svc(8927, "CAD").price).toBe("89.27");
    expect(svc(5, "KWD").price).toBe("0.005");
  });
  it("an unknown org is 404", async () => {
    const r = await get(`nope/services`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: "Organization not found or not public" });
  });
});

describe("check_availability", () => {
  it("validates: serviceId required, days range", async () => {
    expect((await get(`${HOST}/availability`)).body).toEqual({ error: "serviceId is required" });
    expect((await get(`${HOST}/availability?serviceId=oil-change&from=2030-01-01&days=91`)).status).toBe(400);
    expect((await get(`${HOST}/availability?serviceId=nope`)).status).toBe(404);
    expect((await get(`${HOST}/availability?serviceId=oil-change&providerId=bay-9`)).body).toEqual({
      error: "No provider found for this service",
    });
  });
  it("single day: UTC slots with .000Z, host tz; Sunday has no hours configured", async () => {
    const monday = nextWeekday(1);
    const r = await get(`${HOST}/availability?serviceId=oil-change&date=${monday}`);
    expect(r.status).toBe(200);
    expect(r.body.timezone).toBe("America/Toronto");
    expect(r.body.provider).toEqual({ id: "tech-alex", name: "Alex" });
    expect(r.body.available_slots.length).toBeGreaterThan(0);
    expect(r.body.available_slots[0].start).toMatch(/T\d\d:\d\d:00\.000Z$/);
    expect(r.body.reason).toBeUndefined();
    const sunday = await get(`${HOST}/availability?serviceId=oil-change&date=${nextWeekday(7)}`);
    expect(sunday.body.available_slots).toEqual([]);
    expect(sunday.body.reason).toBe("NO_AVAILABILITY_CONFIGURED");
    const past = await get(`${HOST}/availability?serviceId=oil-change&date=2020-01-06`);
    expect(past.body.reason).toBe("NO_SLOTS_FOR_DATE");
  });
  it("range and next modes answer a flat slots list; next wins over from", async () => {
    const range = await get(`${HOST}/availability?serviceId=oil-change&from=${nextWeekday(1)}&days=2`);
    expect(range.body.slots.length).toBeGreaterThan(0);
    expect(new Set(range.body.slots.map((s: any) => s.date)).size).toBe(2);
    const next = await get(`${HOST}/availability?serviceId=oil-change&next=3&from=${nextWeekday(1)}`);
    expect(next.body.slots).toHaveLength(3);
    expect(next.body.slots[0].provider).toEqual({ id: "tech-alex", name: "Alex" });
  });
});

describe("book, cancel, reschedule", () => {
  let slots: Array<{ start: string }>;
  beforeAll(async () => {
    slots = (await get(`${HOST}/availability?serviceId=oil-change&date=${nextWeekday(3)}`)).body
      .available_slots;
  });
  const book = (start: string, email = "joaquin.lopez@mail.com") =>
    post(`${HOST}/book`, {
      clientEmail: email,
      clientName: "Joaquin",
      clientLastName: "Lopez",
      serviceId: "oil-change",
      scheduledAt: start,
    });

  it("books (201, agendado), a retry is the same session, another contact on the same slot is 409", async () => {
    const first = await book(slots[0]!.start);
    expect(first.status).toBe(201);
    expect(first.body.session).toMatchObject({
      status: "agendado",
      derived_state: "agendado",
      derived_state_index: 1,
      scheduled_at: slots[0]!.start,
      duration_minutes: 45,
      service: "Oil change",
      client_email: "joaquin.lopez@mail.com",
      // SchCP §7.9: instant confirmation is the business's own yes.
      answer: { by: "host" },
    });
    expect(first.body.client_portal_url).toBeNull();
    const again = await book(slots[0]!.start);
    expect(again.status).toBe(201);
    expect(again.body.session.id).toBe(first.body.session.id);
    const other = await book(slots[0]!.start, "someone.else@mail.com");
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("SLOT_CONFLICT");
    // The operator sees it, once; the slot is gone from availability.
    const listed = await gw.runtime.service.listBookings(HOST);
    expect(listed.ok && listed.value.filter((b) => b.bookingId === first.body.session.id)).toHaveLength(1);
    const after = await get(`${HOST}/availability?serviceId=oil-change&date=${nextWeekday(3)}`);
    expect(after.body.available_slots.map((s: any) => s.start)).not.toContain(slots[0]!.start);
    // No PII in the audit.
    const audit = gw.logs.filter((l) => l.message === "a2a intent");
    expect(JSON.stringify(audit)).not.toContain("joaquin");
    expect(audit.some((l) => l.fields?.booking_id === first.body.session.id)).toBe(true);
  });

  it("refuses bad input, the past and outside hours", async () => {
    const bad = await post(`${HOST}/book`, { serviceId: "oil-change" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(bad.body.details)).toEqual(expect.arrayContaining(["clientEmail", "scheduledAt"]));
    expect((await book("2020-01-06T14:00:00.000Z")).body.code).toBe("PAST_DATE");
    expect((await book(`${nextWeekday(7)}T15:00:00-05:00`)).body.code).toBe("OUTSIDE_PROVIDER_HOURS");
    const malformed = await post(`${HOST}/book`, "{nope");
    expect(malformed.status).toBe(400);
    const big = await post(`${HOST}/book`, { notes: "x".repeat(20_000) });
    expect(big.status).toBe(413);
  });

  it("cancel and reschedule need this host's key; nothing changes without it", async () => {
    const made = await book(slots[8]!.start, "c@mail.com");
    const id = made.body.session.id as string;
    const otherKey = await gw.runtime.a2aKeys.issue("fades-on-queen");
    for (const headers of [
      {} as Record<string, string>,
      { "x-org-api-key": "gk_wrong" },
      { "x-org-api-key": otherKey },
    ]) {
      const r = await post(`${HOST}/sessions/${id}/cancel`, {}, headers);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: "API key requerida (X-Org-Api-Key)", code: "UNAUTHORIZED" });
    }
    const listed = await gw.runtime.service.listBookings(HOST);
    expect(listed.ok && listed.value.find((b) => b.bookingId === id)?.status).toBe("confirmed");

    const auth = { "x-org-api-key": key };
    const moved = await post(`${HOST}/sessions/${id}/reschedule`, { scheduledAt: slots[16]!.start }, auth);
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({
      sessionId: id,
      status: "scheduled",
      scheduledAt: slots[16]!.start,
      duration: 45,
    });
    const clash = await post(`${HOST}/sessions/${id}/reschedule`, { scheduledAt: slots[0]!.start }, auth);
    expect(clash.status).toBe(400);
    expect(clash.body.code).toBe("SLOT_INVALID");
    expect(
      (await post(`${HOST}/sessions/${id}/reschedule`, { scheduledAt: "2020-01-01T00:00:00Z" }, auth)).body
        .code,
    ).toBe("SLOT_INVALID");

    const cancelled = await post(
      `${HOST}/sessions/${id}/cancel`,
      { reason: "enfermo", cancelledBy: "client" },
      auth,
    );
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({
      sessionId: id,
      status: "cancelled",
      policy_applied: { penalty: "none" },
    });
    const twice = await post(`${HOST}/sessions/${id}/cancel`, {}, auth);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe("ALREADY_CANCELLED");
    expect((await post(`${HOST}/sessions/b_nope/cancel`, {}, auth)).status).toBe(404);
  });
});
