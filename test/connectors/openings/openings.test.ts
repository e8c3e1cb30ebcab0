/**
 * The Openings connector against a stateful nock-scripted upstream (fake-openings.ts) in the
 * ASSUMED shapes of fixtures/openings (SOURCES.md says why they are assumed). The connector
 * contract's properties are checked one by one here; the public API has no cancel, move or
 * by-id readback, so those answer unsupported / from this process, and a lost create answer is
 * found through the customer's history only when the create carried a verification code.
 */
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetNoticeLog, type UpstreamNotice } from "../../../src/connectors/http.js";
import {
  createOpeningsConnector,
  parseOpeningsSettings,
  type OpeningsConnector,
} from "../../../src/connectors/openings/index.js";
import {
  dataOf,
  readAppointment,
  readAppointments,
  readBusiness,
  readLocationDetail,
  readOpenings,
} from "../../../src/connectors/openings/wire.js";
import type { ConnectorResult, UpstreamCreate, UpstreamSlot } from "../../../src/connectors/port.js";
import { readFixtureJson } from "../../support/fixtures.js";
import { BASE, BUSINESS, CODE, FakeOpenings, SLUG, TZ } from "./fake-openings.js";

const NOW = Date.parse("2026-12-06T12:00:00-05:00");
const MONDAY = {
  start: Date.parse("2026-12-07T09:00:00-05:00"),
  end: Date.parse("2026-12-07T12:00:00-05:00"),
};
const CUSTOMER = { name: "Dana Reyes", phone: "+1 555 010 2030" };

interface Harness {
  readonly fake: FakeOpenings;
  readonly connector: OpeningsConnector;
  readonly lines: { message: string; fields?: unknown }[];
  readonly notices: UpstreamNotice[];
}

function harness(
  overrides: Record<string, unknown> = {},
  setup: (f: FakeOpenings) => void = () => undefined,
): Harness {
  const fake = new FakeOpenings();
  setup(fake);
  const lines: Harness["lines"] = [];
  const notices: UpstreamNotice[] = [];
  const connector = createOpeningsConnector(
    { baseUrl: BASE, businessSlug: SLUG, currency: "USD", timeoutMs: 500, ...overrides },
    {
      fetch: fake.fetch,
      clock: { now: () => NOW },
      logger: { warn: (message, fields) => lines.push({ message, fields }) },
      onNotice: (n) => notices.push(n),
    },
  );
  return { fake, connector, lines, notices };
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
    customer: CUSTOMER,
    tentative: false,
    ...extra,
  };
}

async function freeSlots(h: Harness, serviceId = "svc_cut", resourceIds?: string[]): Promise<UpstreamSlot[]> {
  return [
    ...value(
      await h.connector.slots.find({ serviceId, range: MONDAY, ...(resourceIds ? { resourceIds } : {}) }),
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

describe("Openings settings", () => {
  it("names the field that is wrong", () => {
    const base = { baseUrl: BASE, businessSlug: SLUG, currency: "USD" };
    expect(parseOpeningsSettings(base).ok).toBe(true);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, currency: undefined }, "/currency"],
      [{ ...base, currency: "XYZ" }, "/currency"],
      [{ ...base, businessSlug: "a b" }, "/businessSlug"],
      [{ ...base, timezone: "Mars/Olympus" }, "/timezone"],
      [{ ...base, baseUrl: "https://x.test/?q=1" }, "/baseUrl"],
    ];
    for (const [input, field] of cases) {
      const r = parseOpeningsSettings(input);
      expect(r.ok ? "" : r.error.field).toBe(field);
    }
    expect(() => createOpeningsConnector({ ...base, currency: "usd" })).toThrow(/\/currency/);
  });
});

describe("Openings wire (assumed shapes, fixtures/openings)", () => {
  const data = (f: string) => dataOf(readFixtureJson<{ body: unknown }>(`openings/${f}`).body);
  it("reads the business, with or without a time zone", () => {
    expect(readBusiness(data("business.json"))).toMatchObject({ id: BUSINESS, timezone: TZ });
    expect(readBusiness(data("business-null-timezone.json"))).toMatchObject({
      timezone: null,
      verification: { required: true, method: "sms" },
    });
  });
  it("reads the location detail, openings, an appointment and the history", () => {
    const loc = readLocationDetail(data("location.json"));
    expect(loc?.members.map((m) => m.id)).toEqual(["mem_ana", "mem_ben"]);
    expect(loc?.services[0]?.options[0]).toEqual({
      id: "opt_long",
      name: "Long hair",
      durationMinutes: 60,
      price: 62.5,
    });
    expect(loc?.services[1]?.consultation).toBe(true);
    expect(readOpenings(data("openings.json"))).toEqual(["09:00", "09:30", "10:00"]);
    expect(readAppointment(data("appointment-201.json"))).toMatchObject({ id: "apt_0001", time: "09:00" });
    expect(readAppointments(data("history.json"))).toHaveLength(2);
    expect(
      dataOf(readFixtureJson<{ body: unknown }>("openings/appointment-428-verification-required.json").body),
    ).toBeUndefined();
    expect(readOpenings({ times: ["9am"] })).toBeUndefined();
  });
});

describe("Openings connector", () => {
  it("reads the catalog: prices in the host's currency scaled by its ISO 4217 exponent, options as services", async () => {
    const h = harness();
    const catalog = value(await h.connector.catalog.read());
    expect(catalog.organization).toEqual({
      id: BUSINESS,
      name: "Salon Lumen",
      timezone: TZ,
      currency: "USD",
    });
    expect(catalog.services.map((s) => [s.id, s.duration, s.price?.minor])).toEqual([
      ["svc_cut", 1_800_000, 4500],
      ["svc_cut:opt_long", 3_600_000, 6250],
      ["svc_color", 7_200_000, undefined],
    ]);
    expect(catalog.services[2]).toMatchObject({ requiresConsultation: true, priceType: "quote_required" });
    expect(catalog.resources.map((r) => [r.id, r.hours.length])).toEqual([
      ["mem_ana", 1],
      ["mem_ben", 5],
    ]);
    expect(catalog.verificationMethod).toBe("none");

    const kwd = value(await harness({ currency: "KWD" }).connector.catalog.read());
    expect(kwd.services[0]?.price).toEqual({ minor: 45000, currency: "KWD" });
    const jpy = value(await harness({ currency: "JPY" }).connector.catalog.read());
    expect(jpy.services[0]?.price).toEqual({ minor: 45, currency: "JPY" });
    // 62.5 yen cannot be written in yen: left out, never rounded.
    expect(jpy.services[1]?.price).toBeUndefined();
  });

  it("a null business time zone leaves instants absent; an operator's zone is used when configured", async () => {
    const h = harness({}, (f) => (f.timezone = null));
    expect(await h.connector.catalog.read()).toMatchObject({ ok: false, error: { code: "unsupported" } });
    expect(await h.connector.slots.find({ serviceId: "svc_cut", range: MONDAY })).toMatchObject({
      ok: false,
      error: { code: "unsupported" },
    });
    const configured = harness({ timezone: TZ }, (f) => (f.timezone = null));
    expect(value(await configured.connector.catalog.read()).organization.timezone).toBe(TZ);
    expect(await freeSlots(configured)).toHaveLength(12);
  });

  it("finds each member's openings on each local date as instants", async () => {
    const h = harness();
    const slots = await freeSlots(h);
    expect(slots).toHaveLength(12);
    expect(slots[0]).toEqual({
      serviceId: "svc_cut",
      start: MONDAY.start,
      end: MONDAY.start + 1_800_000,
      resourceIds: expect.any(Array) as unknown,
    });
    const long = await freeSlots(h, "svc_cut:opt_long", ["mem_ben"]);
    expect(long.every((s) => s.end! - s.start === 3_600_000 && s.resourceIds[0] === "mem_ben")).toBe(true);
    expect(h.fake.requests.at(-1)?.path).toContain("date=2026-12-07&serviceId=svc_cut&optionId=opt_long");
    const next = value(await h.connector.nextAvailable("svc_cut"));
    expect(next).toMatchObject({ start: MONDAY.start, resourceIds: ["mem_ana"] });
  });

  it("books through customer create-or-find, local date and time, the key in the notes; one appointment per key", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    const request = createFor(slot!, "host-1:hold-1");
    const made = await h.connector.bookings.create(request);
    const first = value(made);
    expect(first).toMatchObject({
      serviceId: "svc_cut",
      start: slot!.start,
      end: slot!.end,
      status: "confirmed",
      resourceIds: ["mem_ana"],
    });
    expect(made.upstream).toMatchObject({ call: "POST /v1/appointments", status: 201 });
    const sent = h.fake.requests.find((r) => r.path === "/v1/appointments")?.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      businessId: BUSINESS,
      memberId: "mem_ana",
      serviceId: "svc_cut",
      date: "2026-12-07",
      time: "09:00",
    });
    expect(sent["notes"]).toContain("[booking-gateway host-1:hold-1]");
    const again = await h.connector.bookings.create(request);
    expect(value(again).upstreamId).toBe(first.upstreamId);
    expect(again.upstream?.status).toBe(201);
    for (const r of await Promise.all([1, 2, 3].map(() => h.connector.bookings.create(request)))) {
      expect(value(r).upstreamId).toBe(first.upstreamId);
    }
    expect(value(await h.connector.bookings.findByIdempotencyKey(request.idempotencyKey))?.upstreamId).toBe(
      first.upstreamId,
    );
    expect(value(await h.connector.bookings.get(first.upstreamId)).upstreamId).toBe(first.upstreamId);
    const [, second] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    const raced = await Promise.all(
      [1, 2, 3, 4].map(() => h.connector.bookings.create(createFor(second!, "host-1:hold-2"))),
    );
    expect(new Set(raced.map((r) => value(r).upstreamId)).size).toBe(1);
    expect(h.fake.live()).toHaveLength(2);
    expect(h.fake.customers.size).toBe(1);
  });

  it("a create naming no member books the first member free at that time", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    value(await h.connector.bookings.create(createFor(slot!, "a")));
    const b = value(await h.connector.bookings.create(createFor({ ...slot!, resourceIds: [] }, "b")));
    expect(b.resourceIds).toEqual(["mem_ben"]);
    expect(await h.connector.bookings.create(createFor({ ...slot!, resourceIds: [] }, "c"))).toMatchObject({
      ok: false,
      error: { code: "slot_taken" },
    });
  });

  it("verification: 428 is verification_required with the method; send, a non-consuming verify, then the code books", async () => {
    const h = harness({}, (f) => (f.verificationRequired = true));
    expect(value(await h.connector.catalog.read()).verificationMethod).toBe("sms");
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    const needs = await h.connector.bookings.create(createFor(slot!, "v-1"));
    expect(needs).toMatchObject({
      ok: false,
      error: { code: "verification_required", verificationMethod: "sms" },
      upstream: { status: 428 },
    });
    expect(value(await h.connector.verification.send(CUSTOMER, "anything"))).toEqual({ method: "sms" });
    const sent = h.fake.requests.find((r) => r.path === "/v1/verifications")?.body;
    expect(sent).toMatchObject({ purpose: `booking:${BUSINESS}`, channel: "sms" });
    expect(await h.connector.verification.verify(CUSTOMER, "x", "000000")).toMatchObject({
      ok: false,
      error: { code: "verification_failed" },
    });
    expect(value(await h.connector.verification.verify(CUSTOMER, "x", CODE))).toEqual({ method: "sms" });
    expect(
      await h.connector.bookings.create(createFor(slot!, "v-1", { verificationCode: "111111" })),
    ).toMatchObject({
      ok: false,
      error: { code: "verification_failed" },
    });
    value(await h.connector.bookings.create(createFor(slot!, "v-1", { verificationCode: CODE })));
    expect(h.fake.live()).toHaveLength(1);
  });

  it("a time already taken is slot_taken (409), and the refused key finds nothing", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    value(await h.connector.bookings.create(createFor(slot!, "t-1")));
    expect(await h.connector.bookings.create(createFor(slot!, "t-2"))).toMatchObject({
      ok: false,
      error: { code: "slot_taken" },
      upstream: { status: 409 },
    });
    expect(value(await h.connector.bookings.findByIdempotencyKey("t-2"))).toBeNull();
    expect(h.fake.live()).toHaveLength(1);
  });

  it("429 is rate_limited with the Retry-After; 5xx and unreadable answers are unavailable; nothing is booked", async () => {
    const h = harness();
    h.fake.inject("openings", { kind: "status", status: 429, headers: { "retry-after": "7" } });
    const limited = await h.connector.slots.find({ serviceId: "svc_cut", range: MONDAY });
    expect(limited).toMatchObject({ ok: false, error: { code: "rate_limited", retryAfterMs: 7000 } });
    expect(limited.upstream?.ratelimit?.["retry-after"]).toBe("7");
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    h.fake.inject("appointments", { kind: "status", status: 429, headers: { "retry-after": "2" } });
    expect(await h.connector.bookings.create(createFor(slot!, "rl"))).toMatchObject({
      ok: false,
      error: { code: "rate_limited", retryAfterMs: 2000 },
    });
    h.fake.inject("location", { kind: "status", status: 503 });
    expect(await h.connector.catalog.read()).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
      upstream: { status: 503 },
    });
    h.fake.inject("business", { kind: "status", status: 200, body: "<html>oops" });
    expect(await h.connector.catalog.read()).toMatchObject({ ok: false, error: { code: "unavailable" } });
    h.fake.inject("business", {
      kind: "status",
      status: 200,
      body: JSON.stringify({ ok: true, data: { id: 3 } }),
    });
    expect(await h.connector.catalog.read()).toMatchObject({ ok: false, error: { code: "unavailable" } });
    expect(h.fake.live()).toHaveLength(0);
    value(await h.connector.bookings.create(createFor(slot!, "rl")));
    expect(h.fake.live()).toHaveLength(1);
  });

  it("no answer in time: timeout; the time is still open, so nothing was booked and the key is free again", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    h.fake.inject("appointments", { kind: "timeout" });
    expect(await h.connector.bookings.create(createFor(slot!, "to-1"))).toMatchObject({
      ok: false,
      error: { code: "timeout" },
      upstream: { call: "POST /v1/appointments", status: 0 },
    });
    expect(value(await h.connector.bookings.findByIdempotencyKey("to-1"))).toBeNull();
    value(await h.connector.bookings.create(createFor(slot!, "to-1")));
    expect(h.fake.live()).toHaveLength(1);
  });

  it("a lost answer of a verified create is found in the customer's history, and the retry returns it", async () => {
    const h = harness({}, (f) => (f.verificationRequired = true));
    value(await h.connector.verification.send(CUSTOMER, "p"));
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    h.fake.inject("appointments", { kind: "lost_response" });
    const request = createFor(slot!, "lost-v", { verificationCode: CODE });
    expect(await h.connector.bookings.create(request)).toMatchObject({
      ok: false,
      error: { code: "timeout" },
    });
    const found = await h.connector.bookings.findByIdempotencyKey("lost-v");
    expect(value(found)).toMatchObject({
      idempotencyKey: "lost-v",
      start: slot!.start,
      resourceIds: ["mem_ana"],
    });
    expect(found.upstream?.call).toMatch(/^GET \/v1\/customers\/[^/]+\/appointments$/);
    expect(value(await h.connector.bookings.create(request)).upstreamId).toBe(value(found)?.upstreamId);
    expect(h.fake.live()).toHaveLength(1);
  });

  it("another process, handed the attempt, adopts only the appointment whose notes carry its own key", async () => {
    const h = harness({}, (f) => (f.verificationRequired = true));
    value(await h.connector.verification.send(CUSTOMER, "p"));
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    h.fake.inject("appointments", { kind: "lost_response" });
    const request = createFor(slot!, "host-1:hold-a", { verificationCode: CODE, resourceIds: [] });
    expect((await h.connector.bookings.create(request)).ok).toBe(false);
    const other = createOpeningsConnector(
      { baseUrl: BASE, businessSlug: SLUG, currency: "USD", timeoutMs: 500 },
      { fetch: h.fake.fetch, clock: { now: () => NOW }, logger: { warn: () => undefined } },
    );
    // Same customer, service and start, but another hold's key: not this booking.
    const stranger = await other.bookings.findByIdempotencyKey("host-1:hold-b", {
      ...request,
      idempotencyKey: "host-1:hold-b",
    });
    expect(value(stranger)).toBeNull();
    expect(stranger.upstream).toMatchObject({ status: 200 });
    expect(stranger.upstream?.replay).toBeUndefined();
    const own = await other.bookings.findByIdempotencyKey("host-1:hold-a", request);
    expect(value(own)).toMatchObject({ idempotencyKey: "host-1:hold-a", start: slot!.start });
    // Known now: answered from memory with the lookup's metadata, marked a replay.
    const again = await other.bookings.findByIdempotencyKey("host-1:hold-a");
    expect(again.upstream).toEqual({ ...own.upstream, replay: true });
    expect(h.fake.live()).toHaveLength(1);
  });

  it("a lost answer without a code cannot be named, and is never booked twice", async () => {
    const h = harness();
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    h.fake.inject("appointments", { kind: "lost_response" });
    expect(await h.connector.bookings.create(createFor(slot!, "lost-1"))).toMatchObject({
      ok: false,
      error: { code: "timeout" },
    });
    expect(await h.connector.bookings.findByIdempotencyKey("lost-1")).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
    });
    expect(await h.connector.bookings.create(createFor(slot!, "lost-1"))).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
    });
    expect(h.fake.live()).toHaveLength(1);
    expect(h.fake.requests.filter((r) => r.path === "/v1/appointments")).toHaveLength(1);
  });

  it("has no cancel, move or status change, and no readback of an unknown id", async () => {
    const h = harness();
    const [slot] = await freeSlots(h);
    const b = value(await h.connector.bookings.create(createFor(slot!, "k")));
    expect(await h.connector.bookings.cancel(b.upstreamId)).toMatchObject({
      ok: false,
      error: { code: "unsupported" },
    });
    expect(
      await h.connector.bookings.move(b.upstreamId, { start: slot!.start, resourceIds: [] }),
    ).toMatchObject({
      ok: false,
      error: { code: "unsupported" },
    });
    expect(await h.connector.bookings.setStatus(b.upstreamId, "confirmed")).toMatchObject({
      ok: false,
      error: { code: "unsupported" },
    });
    // An id this process was not told about may exist: only the gated history could say.
    expect(await h.connector.bookings.get("apt_nope")).toMatchObject({
      ok: false,
      error: { code: "verification_required", verificationMethod: "sms" },
    });
    expect(
      await h.connector.bookings.create(createFor(slot!, "nobody", { customer: { name: "X" } })),
    ).toMatchObject({
      ok: false,
      error: { code: "invalid_request" },
    });
  });

  it("pins /v1 and the User-Agent on every request", async () => {
    const h = harness();
    const [slot] = await freeSlots(h);
    value(await h.connector.bookings.create(createFor(slot!, "pin")));
    await h.connector.verification.send(CUSTOMER, "p");
    expect(h.fake.requests.length).toBeGreaterThan(5);
    for (const r of h.fake.requests) {
      expect(r.path.startsWith("/v1/")).toBe(true);
      expect(String(r.headers["user-agent"])).toMatch(/^booking-gateway\/\S+ openings\/v1 node\/\d+$/);
    }
  });

  it("captures Deprecation and Sunset, warns once per endpoint, tells onNotice, and changes no result", async () => {
    const h = harness();
    h.fake.extraHeaders = { deprecation: "@1798761600", sunset: "Fri, 31 Dec 2027 23:59:59 GMT" };
    const catalog = await h.connector.catalog.read();
    expect(catalog.ok).toBe(true);
    expect(catalog.upstream).toMatchObject({
      deprecation: "@1798761600",
      sunset: "Fri, 31 Dec 2027 23:59:59 GMT",
    });
    value(await h.connector.catalog.read());
    // Three endpoints (business, locations, location), each warned about once over two reads.
    expect(h.lines).toHaveLength(3);
    expect(h.notices).toHaveLength(6);
    expect(h.lines[0]?.message).toContain(`GET /v1/businesses/${SLUG}`);
  });

  it("never puts a verification code or the customer's contact into meta, log lines or errors", async () => {
    const h = harness({}, (f) => (f.verificationRequired = true));
    h.fake.extraHeaders = { deprecation: "true" };
    value(await h.connector.verification.send(CUSTOMER, "p"));
    const [slot] = await freeSlots(h, "svc_cut", ["mem_ana"]);
    const results: ConnectorResult<unknown>[] = [
      await h.connector.verification.verify(CUSTOMER, "p", CODE),
      await h.connector.bookings.create(createFor(slot!, "s-1", { verificationCode: "999999" })),
    ];
    h.fake.inject("appointments", { kind: "lost_response" });
    results.push(await h.connector.bookings.create(createFor(slot!, "s-2", { verificationCode: CODE })));
    results.push(await h.connector.bookings.findByIdempotencyKey("s-2"));
    const text = JSON.stringify({ results, lines: h.lines, notices: h.notices });
    expect(text).not.toContain(CODE);
    expect(text).not.toContain("555 010");
  });
});
