/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- JSON bodies read loosely in assertions */
/**
 * The A2A intents against one real gateway on loopback holding three kinds of host: the
 * embedded synthetic ones (one of them made contacts-only), an Openings salon (its public API
 * takes no cancel or move) and a Servicialo clinic whose platform asks for prepayment.
 *
 * What the host can do decides its intents (capabilities.ts); prepayment is 402 with nothing
 * booked; the abuse limits answer 429 with Retry-After per origin and per contact; a fully
 * booked day says ALL_SLOTS_BOOKED; reschedule takes the DataPart's newScheduledAt and
 * refuses newProviderId.
 */
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2aIntents } from "../../../../src/edges/a2a/intents/index.js";
import type { A2aIntents, IntentCall } from "../../../../src/edges/a2a/port.js";
import { mountA2aRest } from "../../../../src/edges/a2a/rest-routes.js";
import { storeBookingIndex } from "../../../../src/booking/bookings/booking-index.js";
import type { BookingDeps } from "../../../../src/booking/api.js";
import { MemoryRateLimiter } from "../../../../src/edges/http/rate-limit.js";
import { defaultConfig, startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";
import { FakeOpeningsServer, SLUG, TZ as OPENINGS_TZ } from "../../../e2e/support/fake-openings.js";
import {
  FakeServicialoServer,
  SERVICIALO_API_KEY,
  SERVICIALO_ORG,
  SERVICIALO_PROVIDERS,
  SERVICIALO_SERVICE,
  SERVICIALO_TZ,
} from "../../../e2e/support/fake-servicialo.js";

const MAPLE = "maple-street-auto";
const FADES = "fades-on-queen";
const SALON = "salon-lumen";
const CLINIC = "clinica-prepago";
const DAY = 86_400_000;

const servicialo = new FakeServicialoServer();
const openings = new FakeOpeningsServer();
let gw: E2eGateway;
let key: string;
/** The runtime's A2A intents (always built; optional only in the HTTP deps' type). */
const a2a = (): A2aIntents => gw.runtime.a2a ?? expect.fail("runtime has no A2A intents");

const api = (path: string) => `${gw.origin}/api/servicialo/${path}`;
const get = async (path: string) => {
  const r = await fetch(api(path));
  return { status: r.status, body: (await r.json()) as Record<string, any>, headers: r.headers };
};
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(api(path), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any>, headers: r.headers };
};

/** The next local date (YYYY-MM-DD) in `zone` with this ISO weekday, at least two days ahead. */
function nextWeekday(iso: number, zone = "America/Toronto"): string {
  for (let d = 2; d < 10; d++) {
    const s = new Date(Date.now() + d * DAY).toLocaleDateString("en-CA", { timeZone: zone });
    if ((new Date(`${s}T12:00:00Z`).getUTCDay() || 7) === iso) return s;
  }
  throw new Error("unreachable");
}

beforeAll(async () => {
  const [servicialoOrigin, openingsOrigin] = await Promise.all([servicialo.start(), openings.start()]);
  servicialo.prepaid.add(SERVICIALO_SERVICE);
  const config = defaultConfig();
  // ALL_SLOTS_BOOKED fills a whole day with public bookings: more than the public booking
  // pool's default caps let newcomers hold (test/e2e/public-pool.test.ts tests those).
  const maple = config.hosts.find((h) => h.id === MAPLE)!;
  maple.policies = { ...maple.policies, public_booking: { max_per_host: 100, max_per_origin: 100 } };
  const fades = config.hosts.find((h) => h.id === FADES)!;
  fades.policies = {
    ...fades.policies,
    access: "contacts",
    contacts: [`urn:schcp:principal:jwk-thumbprint:${"A".repeat(43)}`],
  };
  config.hosts.push(
    {
      id: SALON,
      name: "Salon Lumen",
      kind: "business",
      timezone: OPENINGS_TZ,
      connector: {
        type: "openings",
        settings: { baseUrl: openingsOrigin, businessSlug: SLUG, currency: "USD", timeoutMs: 5_000 },
      },
      policies: { confirmation: "instant", retention: "P365D" },
      services: [],
    },
    {
      id: CLINIC,
      name: "Clinica Demo",
      kind: "business",
      timezone: SERVICIALO_TZ,
      connector: {
        type: "servicialo",
        settings: {
          baseUrl: servicialoOrigin,
          orgSlug: SERVICIALO_ORG,
          apiKey: SERVICIALO_API_KEY,
          timezone: SERVICIALO_TZ,
          providers: SERVICIALO_PROVIDERS,
          fallbackClientEmail: "reservas@clinica-demo.example",
          paymentRequirement: "none",
          timeoutMs: 5_000,
        },
      },
      policies: { confirmation: "instant", retention: "P365D" },
      services: [],
    },
  );
  gw = await startGateway({ config });
  key = await gw.runtime.a2aKeys.issue(MAPLE);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await Promise.all([servicialo.close(), openings.close()]);
}, 60_000);

describe("a host's intents are what it can do", () => {
  it("the synthetic platform does all five; Openings takes no cancel or move; a contacts-only host takes no public booking", () => {
    expect(a2a().host(MAPLE)?.intents).toEqual([
      "list_services",
      "check_availability",
      "book_session",
      "cancel_session",
      "reschedule_session",
    ]);
    expect(a2a().host(SALON)?.intents).toEqual(["list_services", "check_availability", "book_session"]);
    expect(a2a().host(FADES)?.intents).toEqual([
      "list_services",
      "check_availability",
      "cancel_session",
      "reschedule_session",
    ]);
  });

  it("an intent the host cannot do is 404 INTENT_NOT_AVAILABLE over REST, even with a valid key", async () => {
    const salonKey = await gw.runtime.a2aKeys.issue(SALON);
    for (const path of [`${SALON}/sessions/b_x/cancel`, `${SALON}/sessions/b_x/reschedule`]) {
      const r = await post(path, { scheduledAt: "2030-01-01T10:00:00Z" }, { "x-org-api-key": salonKey });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("INTENT_NOT_AVAILABLE");
    }
    const svc = (await get(`${FADES}/services`)).body.services[0].id;
    const r = await post(`${FADES}/book`, {
      clientEmail: "a@mail.com",
      serviceId: svc,
      scheduledAt: `${nextWeekday(2)}T10:00:00-05:00`,
    });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      error: "This organization does not offer book_session through this gateway",
      code: "INTENT_NOT_AVAILABLE",
    });
    const listed = await gw.runtime.service.listBookings(FADES);
    expect(listed.ok && listed.value).toEqual([]);
  });
});

describe("402 PAYMENT_REQUIRED", () => {
  it("a prepaid Servicialo service answers 402, collects nothing and books nothing", async () => {
    const from = nextWeekday(2, SERVICIALO_TZ);
    const avail = await get(`${CLINIC}/availability?serviceId=${SERVICIALO_SERVICE}&from=${from}&days=7`);
    expect(avail.status).toBe(200);
    expect(avail.body.slots.length).toBeGreaterThan(0);
    const before = servicialo.books().length;
    const liveBefore = servicialo.live().length;
    const r = await post(`${CLINIC}/book`, {
      clientEmail: "madre@mail.com",
      clientName: "Ana",
      serviceId: SERVICIALO_SERVICE,
      scheduledAt: avail.body.slots[0].start,
      paymentIntentId: "pi_should_be_ignored",
    });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: "This service requires prepayment", code: "PAYMENT_REQUIRED" });
    // The platform was asked once and said 402: no session exists there, and no payment
    // reference was forwarded (the gateway never collects).
    expect(servicialo.books().length).toBe(before + 1);
    expect(JSON.stringify(servicialo.books().at(-1))).not.toContain("pi_should_be_ignored");
    expect(servicialo.live().length).toBe(liveBefore);
    const listed = await gw.runtime.service.listBookings(CLINIC);
    expect(listed.ok && listed.value.filter((b) => b.status === "confirmed")).toEqual([]);
    // The time is given back: it is offered again.
    const again = await get(`${CLINIC}/availability?serviceId=${SERVICIALO_SERVICE}&from=${from}&days=7`);
    expect(again.body.slots.map((s: any) => s.start)).toContain(avail.body.slots[0].start);
  });
});

/** A second intents instance over the same core, with limits small enough to hit. */
function tinyLimited(origin: number, contact: number): A2aIntents {
  const booking: BookingDeps = {
    hosts: gw.runtime.hosts,
    store: gw.runtime.store,
    clock: gw.clock,
    ids: gw.runtime.ids,
    outbox: gw.runtime.outbox,
    bookingIndex: storeBookingIndex(gw.runtime.store),
  };
  return createA2aIntents({
    core: gw.runtime.service,
    booking,
    keys: gw.runtime.a2aKeys,
    limits: {
      origin: new MemoryRateLimiter({ capacity: origin, refillPerSec: 1 / 30 }),
      contact: new MemoryRateLimiter({ capacity: contact, refillPerSec: 1 / 600 }),
    },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
}

describe("429 abuse limits", () => {
  it("per network origin and host: the third call from one origin is 429 with Retry-After, another origin is not", async () => {
    const intents = tinyLimited(2, 100);
    const call = (origin: string, hostId = MAPLE): IntentCall => ({
      hostId,
      intent: "list_services",
      params: {},
      origin,
    });
    expect((await intents.run(call("10.0.0.1"))).httpStatus).toBe(200);
    expect((await intents.run(call("10.0.0.1"))).httpStatus).toBe(200);
    const over = await intents.run(call("10.0.0.1"));
    expect(over.httpStatus).toBe(429);
    expect(over.body).toMatchObject({ code: "RATE_LIMITED" });
    expect(over.retryAfterSec).toBeGreaterThanOrEqual(1);
    expect(over.retryAfterSec).toBeLessThanOrEqual(30);
    expect((await intents.run(call("10.0.0.2"))).httpStatus).toBe(200);
    expect((await intents.run(call("10.0.0.1", SALON))).httpStatus).toBe(200);

    // Over REST, the Retry-After header carries it (keyed by X-Forwarded-For behind a proxy).
    const app = new Hono();
    mountA2aRest(app, { intents, trustForwardedFor: true });
    const res = await app.request(`/api/servicialo/${MAPLE}/services`, {
      headers: { "x-forwarded-for": "10.0.0.1" },
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("per contact: a third booking by one email is 429 from any origin, nothing booked; another email books", async () => {
    const intents = tinyLimited(100, 2);
    const slots = (await get(`${MAPLE}/availability?serviceId=oil-change&date=${nextWeekday(4)}`)).body
      .available_slots as Array<{ start: string }>;
    const book = (start: string, email: string, origin: string) =>
      intents.run({
        hostId: MAPLE,
        intent: "book_session",
        params: { serviceId: "oil-change", scheduledAt: start },
        client: { email, name: "Pat" },
        origin,
      });
    expect((await book(slots[0]!.start, "pat@mail.com", "10.1.0.1")).httpStatus).toBe(201);
    expect((await book(slots[4]!.start, "pat@mail.com", "10.1.0.2")).httpStatus).toBe(201);
    const over = await book(slots[8]!.start, "PAT@mail.com", "10.1.0.3");
    expect(over.httpStatus).toBe(429);
    expect(over.retryAfterSec).toBeGreaterThan(60);
    const listed = await gw.runtime.service.listBookings(MAPLE);
    const starts = listed.ok ? listed.value.map((b) => b.start) : [];
    expect(starts).not.toContain(Date.parse(slots[8]!.start));
    expect((await book(slots[8]!.start, "other@mail.com", "10.1.0.3")).httpStatus).toBe(201);
  });
});

describe("ALL_SLOTS_BOOKED", () => {
  it("a working day with every slot taken says so", async () => {
    const date = nextWeekday(2);
    const q = `${MAPLE}/availability?serviceId=oil-change&date=${date}`;
    let open = (await get(q)).body.available_slots as Array<{ start: string }>;
    expect(open.length).toBeGreaterThan(0);
    for (let i = 0; open.length > 0 && i < 100; i++) {
      const r = await a2a().run({
        hostId: MAPLE,
        intent: "book_session",
        params: { serviceId: "oil-change", scheduledAt: open[0]!.start, clientEmail: `fill${i}@mail.com` },
        origin: `10.2.${i}.1`,
      });
      expect(r.httpStatus).toBe(201);
      open = (await get(q)).body.available_slots;
    }
    const day = await get(q);
    expect(day.status).toBe(200);
    expect(day.body.available_slots).toEqual([]);
    expect(day.body.reason).toBe("ALL_SLOTS_BOOKED");
  });
});

describe("reschedule_session with the DataPart's parameters", () => {
  it("takes newScheduledAt as scheduledAt; refuses newProviderId with nothing moved", async () => {
    const slots = (await get(`${MAPLE}/availability?serviceId=oil-change&date=${nextWeekday(5)}`)).body
      .available_slots as Array<{ start: string }>;
    const made = await post(`${MAPLE}/book`, {
      clientEmail: "resched@mail.com",
      serviceId: "oil-change",
      scheduledAt: slots[0]!.start,
    });
    expect(made.status).toBe(201);
    const id = made.body.session.id as string;
    const run = (params: Record<string, unknown>) =>
      a2a().run({
        hostId: MAPLE,
        intent: "reschedule_session",
        params: { sessionId: id, ...params },
        apiKey: key,
        origin: "10.3.0.1",
      });
    const refused = await run({ newScheduledAt: slots[6]!.start, newProviderId: "tech-sam" });
    expect(refused.httpStatus).toBe(400);
    expect(Object.keys(refused.body.details as object)).toEqual(["newProviderId"]);
    let listed = await gw.runtime.service.listBookings(MAPLE);
    expect(listed.ok && listed.value.find((b) => b.bookingId === id)?.start).toBe(
      Date.parse(slots[0]!.start),
    );

    const moved = await run({ newScheduledAt: slots[6]!.start });
    expect(moved.httpStatus).toBe(200);
    expect(moved.body).toEqual({
      sessionId: id,
      status: "scheduled",
      scheduledAt: slots[6]!.start,
      duration: 45,
    });
    listed = await gw.runtime.service.listBookings(MAPLE);
    expect(listed.ok && listed.value.find((b) => b.bookingId === id)?.start).toBe(
      Date.parse(slots[6]!.start),
    );
  });
});
