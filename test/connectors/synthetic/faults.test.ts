/** Injected upstream faults and the UpstreamMeta each leaves (OSBP UpstreamMeta, SchCP §10). */
import { describe, expect, it } from "vitest";
import { FaultPlan, SYNTHETIC_PLATFORM } from "../../../src/connectors/synthetic/index.js";
import { failure, maple, meta, oilChange, value } from "./support.js";

const TEN = "2026-10-19T10:00:00-04:00";
const create = (key = "k") => oilChange(key, TEN, ["bay-1", "tech-alex"]);
const REQUEST_ID = /^syn-req-\d{6}$/;

describe("UpstreamMeta of ordinary calls", () => {
  it("the platform identity is pinned, and each result carries its own call's metadata", async () => {
    const { connector } = maple();
    expect(connector.kind).toBe("platform");
    expect(connector.platform).toEqual({ vendor: "synthetic", api_version: "2026-10-01" });
    expect(SYNTHETIC_PLATFORM).toBe(connector.platform);
    expect("lastUpstream" in connector).toBe(false);
    const read = await connector.catalog.read();
    expect(meta(read)).toEqual({
      call: "GET /v2/catalog",
      status: 200,
      server: "synthetic",
      request_id: "syn-req-000001",
      api_version: "2026-10-01",
    });
    const made = await connector.bookings.create(create());
    const b = value(made);
    expect(meta(made)).toMatchObject({
      call: "POST /v2/bookings",
      status: 201,
      request_id: "syn-req-000002",
    });
    const got = await connector.bookings.get(b.upstreamId);
    expect(meta(got)).toMatchObject({ call: `GET /v2/bookings/${b.upstreamId}`, status: 200 });
    // The earlier results keep their own metadata.
    expect(meta(read)?.call).toBe("GET /v2/catalog");
  });

  it("concurrent calls each carry their own metadata, never another call's", async () => {
    const { connector } = maple({ latencyMs: 5 });
    const ids = ["syn_a", "syn_b", "syn_c", "syn_d"];
    const results = await Promise.all([
      connector.catalog.read(),
      ...ids.map((id) => connector.bookings.get(id)),
      connector.bookings.findByIdempotencyKey("nobody"),
    ]);
    expect(results.map((r) => meta(r)?.call)).toEqual([
      "GET /v2/catalog",
      ...ids.map((id) => `GET /v2/bookings/${id}`),
      "GET /v2/bookings",
    ]);
    expect(new Set(results.map((r) => meta(r)?.request_id)).size).toBe(results.length);
  });
});

describe("each fault kind", () => {
  it("slot taken at create: 409, nothing booked", async () => {
    const { connector } = maple();
    connector.faults.next("createBooking", "slot_taken");
    const e = failure(await connector.bookings.create(create()));
    expect(e.code).toBe("slot_taken");
    expect(e.upstream).toMatchObject({
      call: "POST /v2/bookings",
      status: 409,
      request_id: expect.stringMatching(REQUEST_ID) as unknown,
    });
    expect(value(await connector.bookings.findByIdempotencyKey("k"))).toBeNull();
    // One time only: the next create goes through.
    expect(meta(await connector.bookings.create(create()))?.status).toBe(201);
  });

  it("HTTP 429 with Retry-After: rate_limited with retryAfterMs", async () => {
    const { connector } = maple();
    connector.faults.next("createBooking", "rate_limited");
    const e = failure(await connector.bookings.create(create()));
    expect(e).toMatchObject({ code: "rate_limited", retryAfterMs: 2000 });
    expect(e.upstream).toEqual({
      call: "POST /v2/bookings",
      status: 429,
      server: "synthetic",
      request_id: expect.stringMatching(REQUEST_ID) as unknown,
      api_version: "2026-10-01",
      ratelimit: { "retry-after": "2" },
    });
    connector.faults.next("findAvailability", "rate_limited", 1, { retryAfterSeconds: 30 });
    const range = { start: Date.parse("2026-10-19T12:00:00Z"), end: Date.parse("2026-10-19T13:00:00Z") };
    const e2 = failure(await connector.slots.find({ serviceId: "oil-change", range }));
    expect(e2.retryAfterMs).toBe(30_000);
    expect(e2.upstream?.ratelimit).toEqual({ "retry-after": "30" });
  });

  it("5xx: unavailable with the status (503 by default)", async () => {
    const { connector } = maple();
    connector.faults.next("getBooking", "unavailable").next("getBooking", "unavailable", 1, { status: 502 });
    expect(failure(await connector.bookings.get("syn_x")).upstream).toMatchObject({
      call: "GET /v2/bookings/syn_x",
      status: 503,
    });
    const e = failure(await connector.bookings.get("syn_x"));
    expect(e.code).toBe("unavailable");
    expect(e.upstream?.status).toBe(502);
    // Then the real answer again.
    expect(failure(await connector.bookings.get("syn_x")).code).toBe("not_found");
  });

  it("timeout: the call hangs for the delay, then fails with no response metadata", async () => {
    const { connector } = maple();
    connector.faults.next("createBooking", "timeout", 1, { delayMs: 60 });
    const began = performance.now();
    const e = failure(await connector.bookings.create(create()));
    expect(performance.now() - began).toBeGreaterThanOrEqual(55);
    expect(e.code).toBe("timeout");
    expect(e.upstream).toEqual({ call: "POST /v2/bookings", status: 0 });
    expect(value(await connector.bookings.findByIdempotencyKey("k"))).toBeNull();
  });

  it("timeout uses the connector's timeoutMs when the rule gives no delay", async () => {
    const { connector } = maple({ timeoutMs: 40 });
    connector.faults.next("catalog", "timeout");
    const began = performance.now();
    expect(failure(await connector.catalog.read()).code).toBe("timeout");
    expect(performance.now() - began).toBeGreaterThanOrEqual(35);
  });

  it("a revoked credential: 401 unauthorized on every call until cleared, nothing booked", async () => {
    const { connector } = maple();
    connector.faults.next("*", "unauthorized", Infinity);
    const e = failure(await connector.bookings.create(create()));
    expect(e).toMatchObject({ code: "unauthorized" });
    expect(e.retryAfterMs).toBeUndefined();
    expect(e.upstream).toMatchObject({ call: "POST /v2/bookings", status: 401 });
    expect(failure(await connector.catalog.read()).upstream).toMatchObject({
      call: "GET /v2/catalog",
      status: 401,
    });
    connector.faults.clear();
    expect(value(await connector.bookings.findByIdempotencyKey("k"))).toBeNull();
  });

  it("verification required: 428 with the platform's method", async () => {
    const { connector } = maple();
    connector.faults.next("createBooking", "verification_required");
    const e = failure(await connector.bookings.create(create()));
    expect(e).toMatchObject({ code: "verification_required", verificationMethod: "sms" });
    expect(e.upstream).toMatchObject({ call: "POST /v2/bookings", status: 428 });
  });
});

describe("fault plans", () => {
  it("afterCommit: the create happened upstream but the answer was lost (reconciliation finds it)", async () => {
    const { connector } = maple();
    connector.faults.next("createBooking", "unavailable", 1, { afterCommit: true });
    expect(failure(await connector.bookings.create(create("maple-street-auto:h_1"))).code).toBe(
      "unavailable",
    );
    const found = value(await connector.bookings.findByIdempotencyKey("maple-street-auto:h_1"));
    expect(found?.status).toBe("confirmed");
    // A retried create returns it rather than making a second one.
    expect(value(await connector.bookings.create(create("maple-street-auto:h_1"))).upstreamId).toBe(
      found?.upstreamId,
    );
  });

  it("afterCommit with a timeout: the reschedule happened although the caller heard nothing", async () => {
    const { connector } = maple();
    const b = value(await connector.bookings.create(create()));
    connector.faults.next("moveBooking", "timeout", 1, { afterCommit: true, delayMs: 5 });
    const later = b.start + 60 * 60_000;
    const e = failure(
      await connector.bookings.move(b.upstreamId, { start: later, resourceIds: b.resourceIds }),
    );
    expect(e.code).toBe("timeout");
    expect(value(await connector.bookings.get(b.upstreamId)).start).toBe(later);
  });

  it("for the next N calls, then the real answer", async () => {
    const { connector } = maple();
    connector.faults.next("catalog", "unavailable", 2);
    expect(connector.faults.pending()).toHaveLength(1);
    expect(failure(await connector.catalog.read()).code).toBe("unavailable");
    expect(connector.faults.pending()[0]?.left).toBe(1);
    expect(failure(await connector.catalog.read()).code).toBe("unavailable");
    value(await connector.catalog.read());
    expect(connector.faults.pending()).toEqual([]);
  });

  it("with a predicate: only matching calls fail", async () => {
    const { connector } = maple();
    connector.faults.add({
      operation: "createBooking",
      fault: "slot_taken",
      times: Infinity,
      when: (call) => call.create?.resourceIds.includes("bay-1") === true,
    });
    expect(failure(await connector.bookings.create(create("a"))).code).toBe("slot_taken");
    value(await connector.bookings.create(oilChange("b", TEN, ["bay-2", "tech-sam"])));
    expect(failure(await connector.bookings.create(create("c"))).code).toBe("slot_taken");
    connector.faults.clear();
    value(await connector.bookings.create(create("d")));
  });

  it('"*" matches any operation; a plan can be passed in and shared', async () => {
    const faults = new FaultPlan([{ operation: "*", fault: "unavailable" }]);
    const { connector } = maple({ faults });
    expect(connector.faults).toBe(faults);
    expect(failure(await connector.readBusy({ start: 0, end: 1 }, [])).code).toBe("unavailable");
    expect((await connector.readBusy({ start: 0, end: 1 }, [])).ok).toBe(true);
  });

  it.each([
    [{ operation: "getBooking", fault: "slot_taken" }, /not a fault of getBooking/],
    [{ operation: "catalog", fault: "verification_required" }, /not a fault of catalog/],
    [{ operation: "catalog", fault: "unavailable", status: 404 }, /5xx/],
    [{ operation: "catalog", fault: "rate_limited", afterCommit: true }, /afterCommit/],
    [{ operation: "catalog", fault: "unavailable", times: 0 }, /times/],
  ] as const)("a rule that makes no sense is a programmer error: %j", (rule, message) => {
    expect(() => new FaultPlan([rule])).toThrow(message);
  });

  it("simulated latency delays every answer", async () => {
    const { connector } = maple({ latencyMs: 30 });
    const began = performance.now();
    value(await connector.catalog.read());
    expect(performance.now() - began).toBeGreaterThanOrEqual(25);
  });
});
