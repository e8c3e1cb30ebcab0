/**
 * The Square connector's own promises beyond the contract suite: the Square-Version pin on every
 * request (and why a client option is not one), Deprecation/Sunset captured, no access token in
 * any metadata, log line or error, idempotent creates and the lookup after a lost answer.
 */
import nock from "nock";
import { SquareClient } from "square";
import { describe, expect, it } from "vitest";
import { resetNoticeLog } from "../../../src/connectors/http.js";
import type { ConnectorResult, UpstreamCreate } from "../../../src/connectors/port.js";
import { BASE, FakeSquare, HAIRCUT, JORDAN, AVERY } from "./fake-square.js";
import { makeRig, MONDAY_9, NOW, PIN, SDK_DEFAULT_VERSION, TOKEN, useNock } from "./setup.js";

useNock();

const HOUR = 3_600_000;
const create = (key: string, start = MONDAY_9, resourceIds: string[] = []): UpstreamCreate => ({
  idempotencyKey: key,
  serviceId: HAIRCUT,
  start,
  end: start + HOUR,
  resourceIds,
  tentative: false,
  customer: { name: "Sam Lee", phone: "+1 416 555 0100" },
});

function value<T>(r: ConnectorResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

describe("Square-Version pin", () => {
  it("every recorded request carries the pinned version, not the SDK's default, and the gateway's User-Agent", async () => {
    const { fake, connector } = makeRig();
    value(await connector.catalog.read());
    value(
      await connector.slots.find({
        serviceId: HAIRCUT,
        range: { start: MONDAY_9, end: MONDAY_9 + 3 * HOUR },
      }),
    );
    const made = value(await connector.bookings.create(create("pin-1")));
    value(await connector.bookings.get(made.upstreamId));
    value(await connector.bookings.move(made.upstreamId, { start: MONDAY_9 + 2 * HOUR, resourceIds: [] }));
    value(await connector.bookings.cancel(made.upstreamId));
    value(await connector.bookings.findByIdempotencyKey("pin-1"));
    expect(fake.requests.length).toBeGreaterThanOrEqual(12);
    for (const r of fake.requests) {
      expect(r.headers["square-version"], `${r.method} ${r.path}`).toBe(PIN);
      expect(r.headers["user-agent"]).toMatch(new RegExp(`^booking-gateway/\\S+ square/${PIN} node/\\d+$`));
    }
    expect(connector.platform).toEqual({ vendor: "square", api_version: PIN });
  });

  it("a client-level Square-Version alone is overwritten by the SDK on each call (why the pin is set in fetch)", async () => {
    const fake = new FakeSquare(TOKEN);
    fake.install();
    const client = new SquareClient({
      token: TOKEN,
      baseUrl: BASE,
      headers: { "Square-Version": PIN },
      maxRetries: 0,
    });
    await client.bookings.getBusinessProfile();
    expect(fake.requests.at(-1)?.headers["square-version"]).toBe(SDK_DEFAULT_VERSION);
  });
});

describe("upstream metadata", () => {
  it("captures Deprecation and Sunset into the result's meta and warns once per endpoint", async () => {
    resetNoticeLog();
    const notices: unknown[] = [];
    const { fake, connector, logs } = makeRig({ deps: { onNotice: (n) => notices.push(n) } });
    fake.extraHeaders = { deprecation: "@1798761600", sunset: "Sat, 01 May 2027 00:00:00 GMT" };
    const first = await connector.bookings.get("no-such-booking-id");
    const second = await connector.bookings.get("no-such-booking-id");
    for (const r of [first, second]) {
      expect(r.upstream).toMatchObject({
        call: "GET /v2/bookings/no-such-booking-id",
        status: 404,
        deprecation: "@1798761600",
        sunset: "Sat, 01 May 2027 00:00:00 GMT",
      });
      expect(r.upstream?.request_id).toMatch(/^fake-req-/);
    }
    expect(first.upstream?.request_id).not.toBe(second.upstream?.request_id);
    expect(logs.filter((l) => l.includes("RETIRING"))).toHaveLength(1);
    expect(notices).toHaveLength(2);
    // A notice never becomes an agent-facing error: the answer is still Square's (not_found).
    expect(first.ok ? undefined : first.error.code).toBe("not_found");
  });

  it("never puts the access token in metadata, log lines or errors, on success and on every failure", async () => {
    resetNoticeLog();
    const { fake, connector, logs } = makeRig({ timeoutMs: 300 });
    fake.extraHeaders = { deprecation: "true" };
    const results: unknown[] = [];
    results.push(await connector.catalog.read());
    const made = await connector.bookings.create(create("tok-1"));
    results.push(made);
    fake.inject("get", {
      kind: "status",
      status: 500,
      body: { errors: [{ category: "API_ERROR", code: "INTERNAL_SERVER_ERROR" }] },
    });
    results.push(await connector.bookings.get(value(made).upstreamId));
    fake.inject("slots", { kind: "rate_limited", retryAfterSeconds: 3 });
    results.push(
      await connector.slots.find({ serviceId: HAIRCUT, range: { start: MONDAY_9, end: MONDAY_9 + HOUR } }),
    );
    fake.inject("create", { kind: "timeout" });
    results.push(await connector.bookings.create(create("tok-2", MONDAY_9 + 2 * HOUR)));
    fake.inject("create", { kind: "lost_response" });
    results.push(await connector.bookings.create(create("tok-3", MONDAY_9 + 3 * HOUR)));
    fake.inject("findByKey", {
      kind: "status",
      status: 400,
      body: { errors: [{ category: "INVALID_REQUEST_ERROR", code: "BAD_REQUEST", detail: "nope" }] },
    });
    results.push(await connector.bookings.findByIdempotencyKey("tok-1"));
    fake.revoked = true;
    results.push(await connector.bookings.get(value(made).upstreamId));
    const text = JSON.stringify(results) + logs.join("\n");
    expect(results.filter((r) => !(r as { ok: boolean }).ok)).toHaveLength(6);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("Bearer");
    // The requests did carry it: the check above is not vacuous.
    expect(fake.requests[0]?.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
  });

  it("a token provider: the token is asked for per call; no grant is unauthorized without a request", async () => {
    let token: string | undefined = TOKEN;
    const { fake, connector } = makeRig({
      accessToken: false,
      deps: { tokenProvider: () => Promise.resolve(token) },
    });
    value(await connector.catalog.read());
    token = undefined;
    const before = fake.requests.length;
    const r = await connector.catalog.read();
    expect(r.ok ? undefined : r.error.code).toBe("unauthorized");
    expect(r.upstream?.status).toBe(0);
    expect(fake.requests.length).toBe(before);
  });
});

describe("idempotent creates", () => {
  it("the same key retried is one booking; the POST carries the gateway's key as idempotency_key", async () => {
    const { fake, connector } = makeRig();
    const first = value(await connector.bookings.create(create("host-1:hold-1")));
    const again = value(await connector.bookings.create(create("host-1:hold-1")));
    expect(again.upstreamId).toBe(first.upstreamId);
    expect(first).toMatchObject({
      idempotencyKey: "host-1:hold-1",
      serviceId: HAIRCUT,
      start: MONDAY_9,
      end: MONDAY_9 + HOUR,
      status: "confirmed",
    });
    expect(fake.live()).toBe(1);
    const posts = fake.requestsTo("POST", "/v2/bookings").filter((r) => r.path === "/v2/bookings");
    expect(posts).toHaveLength(1);
    expect(posts[0]?.body).toMatchObject({
      idempotency_key: "host-1:hold-1",
      booking: {
        location_id: "L7M2SEJXJ3TQE",
        start_at: "2026-10-19T13:00:00.000Z",
        appointment_segments: [
          {
            team_member_id: AVERY,
            service_variation_id: HAIRCUT,
            service_variation_version: 1788372069337,
            duration_minutes: 60,
          },
        ],
      },
    });
    expect(String((posts[0]?.body as { booking: { seller_note: string } }).booking.seller_note)).toContain(
      "[gateway-key:host-1%3Ahold-1]",
    );
  });

  it("Square's own replay: a create whose lookup missed (a lost answer) answers the booking Square made for the key", async () => {
    const { fake, connector } = makeRig();
    fake.inject("create", { kind: "lost_response" });
    const lost = await connector.bookings.create(create("k-lost"));
    expect(lost.ok ? undefined : lost.error.code).toBe("unavailable");
    expect(lost.upstream).toMatchObject({ call: "POST /v2/bookings", status: 0 });
    expect(fake.live()).toBe(1);
    // The lookup of the retry misses once (as if ListBookings lagged); Square's idempotency answers.
    fake.inject("findByKey", { kind: "status", status: 200, body: { bookings: [] } });
    fake.inject("slots", {
      kind: "status",
      status: 200,
      body: {
        availabilities: [
          {
            start_at: "2026-10-19T13:00:00Z",
            location_id: "L7M2SEJXJ3TQE",
            appointment_segments: [
              {
                duration_minutes: 60,
                service_variation_id: HAIRCUT,
                team_member_id: AVERY,
                service_variation_version: 1788372069337,
              },
            ],
          },
        ],
      },
    });
    const retried = value(await connector.bookings.create(create("k-lost")));
    // Two CreateBooking requests with one key and body: Square's replay answered the second.
    expect(fake.requests.filter((r) => r.method === "POST" && r.path === "/v2/bookings")).toHaveLength(2);
    expect(fake.live()).toBe(1);
    expect(retried.idempotencyKey).toBe("k-lost");
  });

  it("after a lost answer the booking is found by its key, ListBookings asked in windows of at most 31 days", async () => {
    const { fake, connector } = makeRig();
    const far = NOW + 80 * 86_400_000;
    const farMonday = far - ((new Date(far).getUTCDay() + 6) % 7) * 86_400_000;
    const start = Math.floor(farMonday / 86_400_000) * 86_400_000 + 14 * HOUR;
    fake.inject("create", { kind: "lost_response" });
    expect((await connector.bookings.create(create("k-far", start))).ok).toBe(false);
    const before = fake.requests.length;
    const found = value(await connector.bookings.findByIdempotencyKey("k-far"));
    expect(found).toMatchObject({ idempotencyKey: "k-far", start, resourceIds: [AVERY] });
    const lists = fake.requests.slice(before);
    expect(lists.length).toBeGreaterThanOrEqual(3);
    for (const r of lists) {
      expect(r.path).toBe("/v2/bookings");
      const span =
        Date.parse(r.query.get("start_at_max") ?? "") - Date.parse(r.query.get("start_at_min") ?? "");
      expect(span).toBeLessThanOrEqual(31 * 86_400_000);
    }
    expect(value(await connector.bookings.findByIdempotencyKey("k-never"))).toBeNull();
  });

  it("a named team member who is busy is slot_taken (Square would double-book at seller level); another is booked", async () => {
    const { fake, connector } = makeRig();
    value(await connector.bookings.create(create("a", MONDAY_9, [AVERY])));
    const taken = await connector.bookings.create(create("b", MONDAY_9, [AVERY]));
    expect(taken.ok ? undefined : taken.error.code).toBe("slot_taken");
    expect(taken.upstream?.status).toBe(409);
    expect(value(await connector.bookings.create(create("c", MONDAY_9, [JORDAN]))).resourceIds).toEqual([
      JORDAN,
    ]);
    expect(fake.live()).toBe(2);
  });

  it("a tentative create is unsupported and makes no request", async () => {
    const { fake, connector } = makeRig();
    const r = await connector.bookings.create({ ...create("t"), tentative: true });
    expect(r.ok ? undefined : r.error.code).toBe("unsupported");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("moves and cancels", () => {
  it("move uses UpdateBooking with the booking's version; cancel sends booking_version", async () => {
    const { fake, connector } = makeRig();
    const made = value(await connector.bookings.create(create("mv")));
    const moved = value(
      await connector.bookings.move(made.upstreamId, { start: MONDAY_9 + 3 * HOUR, resourceIds: [] }),
    );
    expect(moved).toMatchObject({
      upstreamId: made.upstreamId,
      start: MONDAY_9 + 3 * HOUR,
      resourceIds: [AVERY],
    });
    const put = fake.requestsTo("PUT", `/v2/bookings/${made.upstreamId}`)[0];
    expect(put?.body).toMatchObject({ booking: { version: 1, start_at: "2026-10-19T16:00:00.000Z" } });
    const cancelled = value(await connector.bookings.cancel(made.upstreamId, "customer asked"));
    expect(cancelled.status).toBe("cancelled");
    expect(fake.requestsTo("POST", `/v2/bookings/${made.upstreamId}/cancel`)[0]?.body).toMatchObject({
      booking_version: 2,
    });
    const moveCancelled = await connector.bookings.move(made.upstreamId, {
      start: MONDAY_9,
      resourceIds: [],
    });
    expect(moveCancelled.ok ? undefined : moveCancelled.error.code).toBe("invalid_request");
  });

  it("setStatus: cancelled cancels, confirmed of an accepted booking answers it, others are unsupported", async () => {
    const { connector } = makeRig();
    const made = value(await connector.bookings.create(create("st")));
    expect(value(await connector.bookings.setStatus(made.upstreamId, "confirmed")).status).toBe("confirmed");
    const noShow = await connector.bookings.setStatus(made.upstreamId, "no_show");
    expect(noShow.ok ? undefined : noShow.error.code).toBe("unsupported");
    expect(value(await connector.bookings.setStatus(made.upstreamId, "cancelled")).status).toBe("cancelled");
  });
});

it("leaves no interceptor behind", () => {
  nock.cleanAll();
  expect(nock.pendingMocks()).toEqual([]);
});
