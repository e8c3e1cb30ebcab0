/**
 * The Servicialo connector against a stateful nock-scripted upstream (fake-servicialo.ts) and
 * the recorded responses in fixtures/servicialo (SOURCES.md). The connector contract's
 * properties are checked here one by one, except the one Servicialo v1.2.0 cannot give: finding
 * a booking whose create answer was lost (the REST API has no session readback); what the
 * connector does instead is tested ("a lost answer").
 */
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetNoticeLog, type UpstreamNotice } from "../../../src/connectors/http.js";
import type { ConnectorResult, UpstreamCreate, UpstreamSlot } from "../../../src/connectors/port.js";
import {
  createServicialoConnector,
  parseServicialoSettings,
  type ServicialoConnector,
} from "../../../src/connectors/servicialo/index.js";
import {
  readAvailability,
  readBooked,
  readRescheduled,
  statusOf,
} from "../../../src/connectors/servicialo/wire.js";
import { readFixtureJson } from "../../support/fixtures.js";
import { API_KEY, BASE, FakeServicialo, ORG, PREFIX, PROVIDERS, SERVICE, TZ } from "./fake-servicialo.js";

const NOW = Date.parse("2026-12-06T12:00:00-03:00");
const MONDAY = {
  start: Date.parse("2026-12-07T09:00:00-03:00"),
  end: Date.parse("2026-12-07T13:00:00-03:00"),
};

interface Harness {
  readonly fake: FakeServicialo;
  readonly connector: ServicialoConnector;
  readonly lines: { message: string; fields?: unknown }[];
  readonly notices: UpstreamNotice[];
  readonly slept: number[];
}

function harness(overrides: Record<string, unknown> = {}): Harness {
  const fake = new FakeServicialo();
  const lines: Harness["lines"] = [];
  const notices: UpstreamNotice[] = [];
  const slept: number[] = [];
  const connector = createServicialoConnector(
    {
      baseUrl: BASE,
      orgSlug: ORG,
      apiKey: API_KEY,
      timezone: TZ,
      providers: PROVIDERS,
      fallbackClientEmail: "reservas@clinica-demo.example",
      timeoutMs: 500,
      ...overrides,
    },
    {
      fetch: fake.fetch,
      clock: { now: () => NOW },
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
      logger: { warn: (message, fields) => lines.push({ message, fields }) },
      onNotice: (n) => notices.push(n),
    },
  );
  return { fake, connector, lines, notices, slept };
}

function value<T>(r: ConnectorResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

function createFor(slot: UpstreamSlot, key: string, extra: Partial<UpstreamCreate> = {}): UpstreamCreate {
  return {
    idempotencyKey: key,
    serviceId: slot.serviceId,
    start: slot.start,
    ...(slot.end !== undefined ? { end: slot.end } : {}),
    resourceIds: slot.resourceIds,
    tentative: false,
    ...extra,
  };
}

async function freeSlots(h: Harness, resourceIds?: string[]): Promise<UpstreamSlot[]> {
  return [
    ...value(
      await h.connector.slots.find({
        serviceId: SERVICE,
        range: MONDAY,
        ...(resourceIds ? { resourceIds } : {}),
      }),
    ),
  ];
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
beforeEach(() => resetNoticeLog());
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

describe("Servicialo settings", () => {
  it("names the field that is wrong", () => {
    const base = { baseUrl: BASE, orgSlug: ORG, timezone: TZ };
    expect(parseServicialoSettings(base).ok).toBe(true);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, orgSlug: undefined }, "/orgSlug"],
      [{ ...base, baseUrl: "ftp://x" }, "/baseUrl"],
      [{ ...base, timezone: "Santiago" }, "/timezone"],
      [{ ...base, providers: [{ id: "a", name: "A" }, { id: "" }] }, "/providers/1"],
      [{ ...base, fallbackClientEmail: "nope" }, "/fallbackClientEmail"],
      [{ ...base, maxPerSecond: -1 }, "/maxPerSecond"],
      // A page a person is sent to: https, no credentials in it.
      [{ ...base, paymentUrl: "http://clinica-demo.example/pagar" }, "/paymentUrl"],
      [{ ...base, paymentUrl: "https://user:pw@clinica-demo.example/pagar" }, "/paymentUrl"],
      [{ ...base, paymentUrl: "/pagar" }, "/paymentUrl"],
    ];
    for (const [input, field] of cases) {
      const r = parseServicialoSettings(input, "");
      expect(r.ok ? "" : r.error.field).toBe(field);
    }
    expect(() => createServicialoConnector({ ...base, timezone: "nowhere" })).toThrow(/\/timezone/);
  });
});

describe("Servicialo wire (recorded responses)", () => {
  it("reads the three availability shapes", () => {
    const day = readAvailability(readFixtureJson<{ body: unknown }>("servicialo/availability-day.json").body);
    expect(day).toEqual({
      timezone: "America/Santiago",
      slots: [
        { start: "2026-04-01T12:00:00.000Z", end: "2026-04-01T13:00:00.000Z", providerId: "clx1abc123" },
        { start: "2026-04-01T13:00:00.000Z", end: "2026-04-01T14:00:00.000Z", providerId: "clx1abc123" },
      ],
    });
    const empty = readAvailability(
      readFixtureJson<{ body: unknown }>("servicialo/availability-day-empty.json").body,
    );
    expect(empty).toMatchObject({ slots: [], reason: "ALL_SLOTS_BOOKED" });
    const range = readAvailability(
      readFixtureJson<{ body: unknown }>("servicialo/availability-range.json").body,
    );
    expect(range?.slots.map((s) => s.providerId)).toEqual(["clx1abc123", "clx1abc123"]);
    expect(readAvailability({ slots: [] })).toBeUndefined();
  });

  it("reads book and reschedule answers and maps the Spanish lifecycle values", () => {
    const booked = readBooked(readFixtureJson<{ body: unknown }>("servicialo/book-201.json").body);
    expect(booked).toMatchObject({ id: "cm5xyz789session", scheduled_at: "2026-04-02T14:00:00.000Z" });
    expect(statusOf(booked!)).toBe("confirmed");
    const moved = readRescheduled(readFixtureJson<{ body: unknown }>("servicialo/reschedule-200.json").body);
    expect(moved).toMatchObject({ id: "cm5xyz789session", duration_minutes: 60 });
    const expected: Record<string, string> = {
      solicitado: "tentative",
      agendado: "confirmed",
      confirmado: "confirmed",
      en_curso: "confirmed",
      completado: "completed",
      documentado: "completed",
      facturado: "completed",
      cobrado: "completed",
      verificado: "completed",
      disputed: "unknown",
    };
    for (const [wire, state] of Object.entries(expected))
      expect(statusOf({ derived_state: wire })).toBe(state);
    expect(statusOf({ status: "pendiente_confirmacion", derived_state: "agendado" })).toBe("tentative");
  });
});

describe("Servicialo connector", () => {
  it("reads the catalog: whole-unit numeric-string prices scaled by ISO 4217, providers as staff", async () => {
    const h = harness();
    const catalog = value(await h.connector.catalog.read());
    expect(catalog.organization).toEqual({ id: ORG, name: "Clinica Demo", timezone: TZ, currency: "CLP" });
    expect(catalog.services.map((s) => s.id)).toEqual([
      SERVICE,
      "cmiofy3o7005zus0wvsk0xqdc",
      "cmiog0uf0000uus0w1a2b3c4d",
    ]);
    expect(catalog.services[0]).toMatchObject({
      duration: 3_600_000,
      price: { minor: 40000, currency: "CLP" },
      requires: [{ resourceType: "person" }],
    });
    expect(catalog.services[1]?.price).toEqual({ minor: 35000, currency: "CLP" });
    // UF is not an ISO 4217 code: the price is left out rather than guessed.
    expect(catalog.services[2]).toMatchObject({ priceType: "unknown" });
    expect(catalog.services[2]?.price).toBeUndefined();
    expect(catalog.resources.map((r) => [r.id, r.type, r.staff])).toEqual([
      ["clx1abc123", "person", true],
      ["clx2def456", "person", true],
    ]);
  });

  it("finds free starts per provider in the single-day mode, and uses from+days over several days", async () => {
    const h = harness();
    const slots = await freeSlots(h);
    expect(slots).toHaveLength(8);
    expect(new Set(slots.map((s) => s.resourceIds[0]))).toEqual(new Set(PROVIDERS.map((p) => p.id)));
    expect(
      slots.every((s) => s.start >= MONDAY.start && s.start < MONDAY.end && s.end! - s.start === 3_600_000),
    ).toBe(true);
    const queries = h.fake.requests
      .filter((r) => r.path.startsWith(`${PREFIX}/availability`))
      .map((r) => r.path);
    expect(queries.every((q) => q.includes("date=2026-12-07"))).toBe(true);
    const week = value(
      await h.connector.slots.find({
        serviceId: SERVICE,
        range: { start: MONDAY.start, end: MONDAY.start + 3 * 86_400_000 },
        resourceIds: ["clx1abc123"],
      }),
    );
    expect(week).toHaveLength(12);
    expect(h.fake.requests.at(-1)?.path).toContain("from=2026-12-07&days=4");
  });

  it("answers the single-day reason and the next N slots", async () => {
    const h = harness();
    const saturday = value(await h.connector.day(SERVICE, "2026-12-12", "clx1abc123"));
    expect(saturday).toEqual({ slots: [], reason: "NO_SLOTS_FOR_DATE" });
    const next = value(await h.connector.next(SERVICE, 3, "clx2def456"));
    expect(next).toHaveLength(3);
    expect(h.fake.requests.at(-1)?.path).toContain("next=3");
  });

  it("books with the slot's start verbatim, the email, the key in the notes; the same key is the same booking", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, ["clx1abc123"]);
    const request = createFor(slot!, "host-1:hold-1", {
      customer: { name: "Martin Lopez Soto", email: "martin@example.com" },
    });
    const made = await h.connector.bookings.create(request);
    const first = value(made);
    expect(first).toMatchObject({
      serviceId: SERVICE,
      start: slot!.start,
      status: "confirmed",
      resourceIds: ["clx1abc123"],
    });
    expect(made.upstream).toMatchObject({ call: `POST ${PREFIX}/book`, status: 201 });
    const sent = h.fake.requests.find((r) => r.path === `${PREFIX}/book`)?.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      clientEmail: "martin@example.com",
      clientName: "Martin",
      clientLastName: "Lopez Soto",
      serviceId: SERVICE,
      providerId: "clx1abc123",
      scheduledAt: "2026-12-07T12:00:00.000Z",
      duration: 60,
      initialStatus: "scheduled",
    });
    expect(sent["notes"]).toContain("[booking-gateway host-1:hold-1]");
    const again = await h.connector.bookings.create(request);
    expect(value(again).upstreamId).toBe(first.upstreamId);
    expect(again.upstream?.status).toBe(201);
    const concurrent = await Promise.all([1, 2, 3].map(() => h.connector.bookings.create(request)));
    for (const r of concurrent) expect(value(r).upstreamId).toBe(first.upstreamId);
    expect(value(await h.connector.bookings.findByIdempotencyKey(request.idempotencyKey))?.upstreamId).toBe(
      first.upstreamId,
    );
    const [, second] = await freeSlots(h, ["clx1abc123"]);
    const other = createFor(second!, "host-1:hold-2");
    const raced = await Promise.all([1, 2, 3, 4].map(() => h.connector.bookings.create(other)));
    expect(new Set(raced.map((r) => value(r).upstreamId)).size).toBe(1);
    expect(h.fake.live()).toHaveLength(2);
    // The fallback email was used for the booking that carried none.
    expect(h.fake.live()[1]?.email).toBe("reservas@clinica-demo.example");
  });

  it("a create naming no provider books the first configured provider free at that start", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, ["clx1abc123"]);
    const first = value(await h.connector.bookings.create(createFor({ ...slot!, resourceIds: [] }, "np-1")));
    expect(first.resourceIds).toEqual(["clx1abc123"]);
    const second = value(await h.connector.bookings.create(createFor({ ...slot!, resourceIds: [] }, "np-2")));
    expect(second.resourceIds).toEqual(["clx2def456"]);
    expect(await h.connector.bookings.create(createFor({ ...slot!, resourceIds: [] }, "np-3"))).toMatchObject(
      {
        ok: false,
        error: { code: "slot_taken" },
      },
    );
    expect(h.fake.live().map((s) => s.providerId)).toEqual(["clx1abc123", "clx2def456"]);
  });

  it("refuses a booking without any email when no fallback is configured", async () => {
    const h = harness({ fallbackClientEmail: undefined });
    const [slot] = await freeSlots(h);
    const r = await h.connector.bookings.create(createFor(slot!, "k"));
    expect(r).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(h.fake.live()).toHaveLength(0);
  });

  it("a tentative booking is sent pending_confirmation and reads tentative", async () => {
    const h = harness();
    const [slot] = await freeSlots(h);
    const b = value(await h.connector.bookings.create(createFor(slot!, "t-1", { tentative: true })));
    expect(b.status).toBe("tentative");
  });

  it("maps 409 SLOT_CONFLICT to slot_taken, 400 PAST_DATE to invalid_request", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, ["clx1abc123"]);
    value(await h.connector.bookings.create(createFor(slot!, "a")));
    const taken = await h.connector.bookings.create(createFor(slot!, "b"));
    expect(taken).toMatchObject({ ok: false, error: { code: "slot_taken" }, upstream: { status: 409 } });
    expect(value(await h.connector.bookings.findByIdempotencyKey("b"))).toBeNull();

    const [, other] = await freeSlots(h, ["clx1abc123"]);
    const past = readFixtureJson<{ status: number; body: unknown }>("servicialo/book-400-past-date.json");
    h.fake.inject("book", { kind: "status", status: past.status, body: JSON.stringify(past.body) });
    expect(await h.connector.bookings.create(createFor(other!, "d"))).toMatchObject({
      ok: false,
      error: { code: "invalid_request" },
    });
    expect(h.fake.live()).toHaveLength(1);
  });

  describe("402: the service must be paid for up front (3. book_session, Error Responses)", () => {
    const PAY = "https://clinica-demo.example/pagar?servicio=lactancia";
    const inject402 = (h: Harness, fixture: string) => {
      const f = readFixtureJson<{ status: number; body: unknown }>(`servicialo/${fixture}`);
      h.fake.inject("book", { kind: "status", status: f.status, body: JSON.stringify(f.body) });
    };

    it("is payment_required with the business's page from the settings, and nothing booked", async () => {
      const h = harness({ paymentUrl: PAY });
      const [slot] = await freeSlots(h, ["clx1abc123"]);
      const booksBefore = h.fake.requests.filter((r) => r.method === "POST").length;
      inject402(h, "book-402-payment-required.json");
      const paid = await h.connector.bookings.create(
        createFor(slot!, "pay-1", { customer: { name: "Ana Rojas", email: "ana@example.org" } }),
      );
      expect(paid).toMatchObject({
        ok: false,
        error: { code: "payment_required", payment: { url: PAY } },
        upstream: { status: 402 },
      });
      if (paid.ok) throw new Error("unreachable");
      // Not retried (402 is "No — resolve payment first"): one POST /book, no wait.
      expect(h.fake.requests.filter((r) => r.method === "POST").length).toBe(booksBefore + 1);
      expect(h.slept).toEqual([]);
      // The message names the platform's code only: no key, no customer, no platform prose.
      expect(paid.error.message).toContain("PAYMENT_REQUIRED");
      for (const secret of [API_KEY, "ana@example.org", "Ana", "This service requires prepayment"])
        expect(paid.error.message).not.toContain(secret);
      expect(paid.error.retryAfterMs).toBeUndefined();
      // The platform made nothing, and the key is known refused (no ambiguous outcome).
      expect(h.fake.live()).toHaveLength(0);
      const found = await h.connector.bookings.findByIdempotencyKey("pay-1");
      expect(found).toMatchObject({ ok: true, value: null, upstream: { status: 402, replay: true } });
    });

    it("reads the PAYMENT_* codes about a payment intent the same way; without a configured page, no link", async () => {
      const h = harness();
      const [slot] = await freeSlots(h, ["clx1abc123"]);
      inject402(h, "book-402-payment-not-approved.json");
      const r = await h.connector.bookings.create(createFor(slot!, "pay-2"));
      expect(r).toMatchObject({ ok: false, error: { code: "payment_required" } });
      if (r.ok) throw new Error("unreachable");
      expect(r.error.message).toContain("PAYMENT_NOT_APPROVED");
      expect(r.error.payment).toBeUndefined();
      // A bare 402 with no code is the same refusal.
      h.fake.inject("book", { kind: "status", status: 402, body: JSON.stringify({ error: "x" }) });
      expect(await h.connector.bookings.create(createFor(slot!, "pay-3"))).toMatchObject({
        ok: false,
        error: { code: "payment_required" },
      });
      expect(h.fake.live()).toHaveLength(0);
    });
  });

  it("429 is rate_limited with the Retry-After, on reads and on creates, and books nothing", async () => {
    const h = harness();
    h.fake.inject("availability", { kind: "status", status: 429, headers: { "retry-after": "7" } });
    const limited = await h.connector.slots.find({ serviceId: SERVICE, range: MONDAY });
    expect(limited).toMatchObject({ ok: false, error: { code: "rate_limited", retryAfterMs: 7000 } });
    expect(limited.upstream?.ratelimit?.["retry-after"]).toBe("7");
    const [slot] = await freeSlots(h);
    h.fake.inject("book", { kind: "status", status: 429, headers: { "retry-after": "2" } });
    expect(await h.connector.bookings.create(createFor(slot!, "rl"))).toMatchObject({
      ok: false,
      error: { code: "rate_limited", retryAfterMs: 2000 },
      upstream: { status: 429 },
    });
    expect(h.fake.live()).toHaveLength(0);
    // The refused key is free to go again.
    value(await h.connector.bookings.create(createFor(slot!, "rl")));
    expect(h.fake.live()).toHaveLength(1);
  });

  it("retries a 500 or 502 once, after the delay, and then gives up as unavailable", async () => {
    const h = harness();
    h.fake.inject("services", { kind: "status", status: 500 });
    value(await h.connector.catalog.read());
    expect(h.slept).toEqual([5000]);
    h.fake.inject("services", { kind: "status", status: 502 });
    h.fake.inject("services", { kind: "status", status: 502 });
    expect(await h.connector.catalog.read()).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
      upstream: { status: 502 },
    });
  });

  it("a malformed answer (unreadable JSON, or JSON of the wrong shape) is unavailable", async () => {
    const h = harness();
    h.fake.inject("services", { kind: "status", status: 200, body: "{not json" });
    expect(await h.connector.catalog.read()).toMatchObject({ ok: false, error: { code: "unavailable" } });
    h.fake.inject("availability", { kind: "status", status: 200, body: JSON.stringify({ slots: "x" }) });
    expect(await h.connector.slots.find({ serviceId: SERVICE, range: MONDAY })).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
    });
  });

  it("no answer in time: timeout; nothing booked upstream, so the key is free again", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, ["clx1abc123"]);
    h.fake.inject("book", { kind: "timeout" });
    const r = await h.connector.bookings.create(createFor(slot!, "to-1"));
    expect(r).toMatchObject({ ok: false, error: { code: "timeout" }, upstream: { status: 0 } });
    // The start is still free upstream: nothing was booked under the key.
    const found = await h.connector.bookings.findByIdempotencyKey("to-1");
    expect(value(found)).toBeNull();
    expect(found.upstream?.call).toBe(`GET ${PREFIX}/availability`);
    value(await h.connector.bookings.create(createFor(slot!, "to-1")));
    expect(h.fake.live()).toHaveLength(1);
  });

  it("a lost answer: without readback the connector cannot name the booking, and it never books twice", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, ["clx1abc123"]);
    h.fake.inject("book", { kind: "lost_response" });
    const lost = await h.connector.bookings.create(createFor(slot!, "lost-1"));
    expect(lost).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(h.fake.live()).toHaveLength(1);
    const found = await h.connector.bookings.findByIdempotencyKey("lost-1");
    expect(found).toMatchObject({ ok: false, error: { code: "unavailable" }, upstream: { status: 200 } });
    const retried = await h.connector.bookings.create(createFor(slot!, "lost-1"));
    expect(retried).toMatchObject({ ok: false, error: { code: "unavailable" } });
    expect(h.fake.live()).toHaveLength(1);
    expect(h.fake.requests.filter((r) => r.path === `${PREFIX}/book`)).toHaveLength(1);
    // The key rode in the notes, so the business can match the orphan by hand.
    expect(h.fake.live()[0]?.notes).toContain("[booking-gateway lost-1]");
  });

  it("a revoked key: unauthorized (no Retry-After) on cancel and reschedule; the public intents keep working", async () => {
    const h = harness();
    const [slot] = await freeSlots(h);
    const booked = value(await h.connector.bookings.create(createFor(slot!, "before")));
    h.fake.revoked = true;
    for (const r of [
      await h.connector.bookings.cancel(booked.upstreamId),
      await h.connector.bookings.move(booked.upstreamId, { start: slot!.start, resourceIds: [] }),
    ]) {
      expect(r).toMatchObject({ ok: false, error: { code: "unauthorized" }, upstream: { status: 401 } });
      expect(r.ok ? 0 : r.error.retryAfterMs).toBeUndefined();
    }
    // list_services, check_availability and book_session need no key ("The 5 Intents").
    expect((await h.connector.catalog.read()).ok).toBe(true);
    expect((await h.connector.slots.find({ serviceId: SERVICE, range: MONDAY })).ok).toBe(true);
    expect(h.fake.live()).toHaveLength(1);
    h.fake.restore();
    expect(value(await h.connector.bookings.cancel(booked.upstreamId)).status).toBe("cancelled");
  });

  // "4. cancel_session" Request Fields: cancelledBy "client", "provider", "admin" or "system".
  it.each([
    ["guest", "client"],
    ["host", "provider"],
    ["system", "system"],
    [undefined, "system"],
  ] as const)("a cancel by %s is sent as cancelledBy %s", async (by, wire) => {
    const h = harness();
    const [slot] = await freeSlots(h, ["clx1abc123"]);
    const b = value(await h.connector.bookings.create(createFor(slot!, `cancel-by-${by ?? "none"}`)));
    value(await h.connector.bookings.cancel(b.upstreamId, "no puede asistir", by));
    const sent = h.fake.requests.filter((r) => r.path.endsWith("/cancel"));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toEqual({ reason: "no puede asistir", cancelledBy: wire });
  });

  it("a move to another provider is refused here, as unsupported, and nothing is sent", async () => {
    const h = harness();
    const [slot, later] = await freeSlots(h, ["clx1abc123"]);
    const b = value(await h.connector.bookings.create(createFor(slot!, "other-provider")));
    const before = h.fake.requests.length;
    const moved = await h.connector.bookings.move(b.upstreamId, {
      start: later!.start,
      resourceIds: ["someone-else"],
    });
    expect(moved).toMatchObject({ ok: false, error: { code: "unsupported" } });
    expect(moved.upstream).toBeUndefined();
    expect(h.fake.requests.length).toBe(before);
  });

  it("a booking's life: moved, cancelled (twice answers cancelled), unknown ids are not_found", async () => {
    const h = harness();
    const [slot, later] = await freeSlots(h, ["clx1abc123"]);
    const b = value(await h.connector.bookings.create(createFor(slot!, "life")));
    const moved = await h.connector.bookings.move(b.upstreamId, { start: later!.start, resourceIds: [] });
    expect(value(moved)).toMatchObject({ upstreamId: b.upstreamId, start: later!.start, serviceId: SERVICE });
    expect(moved.upstream?.call).toBe(`POST ${PREFIX}/sessions/${b.upstreamId}/reschedule`);
    expect(value(await h.connector.bookings.get(b.upstreamId)).start).toBe(later!.start);
    const cancelled = await h.connector.bookings.cancel(b.upstreamId, "cliente enfermo");
    expect(value(cancelled).status).toBe("cancelled");
    expect(value(await h.connector.bookings.cancel(b.upstreamId)).status).toBe("cancelled");
    expect(h.fake.live()).toHaveLength(0);
    expect(await h.connector.bookings.get("nope")).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await h.connector.bookings.cancel("nope")).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    expect(await h.connector.bookings.move("nope", { start: slot!.start, resourceIds: [] })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
  });

  it("a move onto a taken time is slot_taken", async () => {
    const h = harness();
    const [slot, later] = await freeSlots(h, ["clx1abc123"]);
    const a = value(await h.connector.bookings.create(createFor(slot!, "m-a")));
    value(await h.connector.bookings.create(createFor(later!, "m-b")));
    expect(
      await h.connector.bookings.move(a.upstreamId, { start: later!.start, resourceIds: [] }),
    ).toMatchObject({
      ok: false,
      error: { code: "slot_taken" },
    });
  });

  it("pins the org path and the User-Agent on every request; the key goes only on cancel and reschedule", async () => {
    const h = harness();
    const [slot] = await freeSlots(h);
    const b = value(await h.connector.bookings.create(createFor(slot!, "pin")));
    await h.connector.bookings.cancel(b.upstreamId);
    await h.connector.catalog.read();
    expect(h.fake.requests.length).toBeGreaterThan(3);
    for (const r of h.fake.requests) {
      expect(r.path.startsWith(`${PREFIX}/`)).toBe(true);
      expect(String(r.headers["user-agent"])).toMatch(/^booking-gateway\/\S+ servicialo\/1\.2\.0 node\/\d+$/);
      const authed = /\/sessions\//.test(r.path);
      expect(r.headers["x-org-api-key"]).toBe(authed ? API_KEY : undefined);
    }
  });

  it("captures Deprecation and Sunset, warns once per endpoint, tells onNotice, and changes no result", async () => {
    const h = harness();
    h.fake.extraHeaders = { deprecation: "@1798761600", sunset: "Fri, 31 Dec 2027 23:59:59 GMT" };
    const one = await h.connector.catalog.read();
    const two = await h.connector.catalog.read();
    expect(one.ok && two.ok).toBe(true);
    expect(one.upstream).toMatchObject({
      deprecation: "@1798761600",
      sunset: "Fri, 31 Dec 2027 23:59:59 GMT",
    });
    await h.connector.slots.find({ serviceId: SERVICE, range: MONDAY, resourceIds: ["clx1abc123"] });
    expect(h.lines.map((l) => l.message)).toEqual([
      expect.stringContaining(`GET ${PREFIX}/services`),
      expect.stringContaining(`GET ${PREFIX}/availability`),
    ]);
    expect(h.notices).toHaveLength(3);
    expect(h.notices[0]).toMatchObject({ vendor: "servicialo", call: `GET ${PREFIX}/services` });
  });

  it("never puts the X-Org-Api-Key value into meta, log lines or errors", async () => {
    const h = harness();
    h.fake.extraHeaders = { deprecation: "true" };
    const [slot] = await freeSlots(h);
    const b = value(await h.connector.bookings.create(createFor(slot!, "secret")));
    const results: unknown[] = [
      await h.connector.bookings.cancel(b.upstreamId),
      await h.connector.bookings.move("nope", { start: slot!.start, resourceIds: [] }),
    ];
    h.fake.inject("cancel", { kind: "timeout" });
    results.push(await h.connector.bookings.cancel(b.upstreamId));
    h.fake.inject("reschedule", { kind: "status", status: 500 });
    h.fake.inject("reschedule", { kind: "status", status: 500 });
    results.push(await h.connector.bookings.move(b.upstreamId, { start: slot!.start, resourceIds: [] }));
    h.fake.revoked = true;
    results.push(await h.connector.bookings.cancel(b.upstreamId));
    const text = JSON.stringify({ results, lines: h.lines, notices: h.notices });
    expect(h.lines.length).toBeGreaterThan(0);
    expect(text).not.toContain(API_KEY);
  });
});
