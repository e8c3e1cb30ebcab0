/** createBooking on the synthetic platform: idempotency, slot_taken, strict input (SchCP §10 platform connector). */
import { describe, expect, it } from "vitest";
import type { UpstreamCreate } from "../../../src/connectors/port.js";
import {
  MemorySyntheticBackend,
  createSyntheticConnector,
  mapleStreetAuto,
} from "../../../src/connectors/synthetic/index.js";
import { BEFORE_MONDAY, failure, meta, maple, MIN, oilChange, t, testClock, value } from "./support.js";

const TEN = "2026-10-19T10:00:00-04:00";

describe("idempotent create (the same key never makes a second appointment)", () => {
  it("the same key twice returns the same appointment: 201, then 200", async () => {
    const { connector } = maple();
    const made = await connector.bookings.create(
      oilChange("maple-street-auto:h_1", TEN, ["bay-1", "tech-alex"]),
    );
    const first = value(made);
    expect(meta(made)?.status).toBe(201);
    expect(first).toEqual({
      upstreamId: expect.stringMatching(/^syn_[0-9a-f]{24}$/) as unknown,
      idempotencyKey: "maple-street-auto:h_1",
      serviceId: "oil-change",
      start: t(TEN),
      end: t(TEN) + 45 * MIN,
      resourceIds: ["bay-1", "tech-alex"],
      status: "confirmed",
    });
    const retried = await connector.bookings.create(
      oilChange("maple-street-auto:h_1", TEN, ["bay-1", "tech-alex"]),
    );
    const again = value(retried);
    expect(meta(retried)?.status).toBe(200);
    expect(again).toEqual(first);
    const busy = value(await connector.readBusy({ start: t(TEN), end: t(TEN) + 60 * MIN }, []));
    expect(busy.busy).toHaveLength(2);
  });

  it("concurrent creates under one key make one appointment", async () => {
    const { connector } = maple();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => connector.bookings.create(oilChange("k", TEN, ["bay-1", "tech-alex"]))),
    );
    const ids = new Set(results.map((r) => value(r).upstreamId));
    expect(ids.size).toBe(1);
    const busy = value(await connector.readBusy({ start: t(TEN), end: t(TEN) + 60 * MIN }, ["bay-1"]));
    expect(busy.busy).toHaveLength(1);
  });

  it("a retry keeps its answer even after the time was taken again or the booking moved", async () => {
    const { connector } = maple();
    const booked = value(await connector.bookings.create(oilChange("k", TEN, ["bay-1", "tech-alex"])));
    value(
      await connector.bookings.move(booked.upstreamId, {
        start: t(TEN) + 60 * MIN,
        resourceIds: ["bay-1", "tech-alex"],
      }),
    );
    const retried = value(await connector.bookings.create(oilChange("k", TEN, ["bay-1", "tech-alex"])));
    expect(retried.upstreamId).toBe(booked.upstreamId);
    expect(retried.start).toBe(t(TEN) + 60 * MIN);
  });

  it("the same key for a different booking is invalid_request, and makes nothing", async () => {
    const { connector } = maple();
    value(await connector.bookings.create(oilChange("k", TEN, ["bay-1", "tech-alex"])));
    const e = failure(
      await connector.bookings.create(oilChange("k", "2026-10-19T12:00:00-04:00", ["bay-1", "tech-alex"])),
    );
    expect(e.code).toBe("invalid_request");
    const busy = value(await connector.readBusy({ start: t(TEN), end: t(TEN) + 4 * 60 * MIN }, []));
    expect(busy.busy).toHaveLength(2);
  });

  it("findBookingByIdempotencyKey: null before, the booking after (reconciliation)", async () => {
    const { connector } = maple();
    expect(value(await connector.bookings.findByIdempotencyKey("maple-street-auto:h_9"))).toBeNull();
    const booked = value(await connector.bookings.create(oilChange("maple-street-auto:h_9", TEN)));
    const found = await connector.bookings.findByIdempotencyKey("maple-street-auto:h_9");
    expect(value(found)).toEqual(booked);
    expect(meta(found)?.call).toBe("GET /v2/bookings");
  });
});

describe("slot_taken: the time must still be free upstream", () => {
  it("two creates for the same resources and time under different keys: exactly one wins", async () => {
    const { connector } = maple();
    const [a, b] = await Promise.all([
      connector.bookings.create(oilChange("a", TEN, ["bay-1", "tech-alex"])),
      connector.bookings.create(oilChange("b", TEN, ["bay-1", "tech-alex"])),
    ]);
    const outcomes = [a, b].map((r) => (r.ok ? "ok" : r.error.code)).sort();
    expect(outcomes).toEqual(["ok", "slot_taken"]);
    const lost = [a, b].find((r) => !r.ok);
    expect(lost?.upstream?.status).toBe(409);
  });

  it("two connectors sharing one backend (two gateway processes) race: one wins", async () => {
    const backend = new MemorySyntheticBackend();
    const one = createSyntheticConnector({
      scenario: mapleStreetAuto,
      clock: testClock(BEFORE_MONDAY),
      backend,
    });
    const two = createSyntheticConnector({
      scenario: mapleStreetAuto,
      clock: testClock(BEFORE_MONDAY),
      backend,
    });
    const results = await Promise.all([
      one.bookings.create(oilChange("p1", TEN, ["bay-2", "tech-sam"])),
      two.bookings.create(oilChange("p2", TEN, ["bay-2", "tech-sam"])),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it("another resource at the same time is still free", async () => {
    const { connector } = maple();
    value(await connector.bookings.create(oilChange("a", TEN, ["bay-1", "tech-alex"])));
    value(await connector.bookings.create(oilChange("b", TEN, ["bay-2", "tech-sam"])));
    // Both bays are now taken until 11:00 (buffer included).
    expect(failure(await connector.bookings.create(oilChange("c", TEN, []))).code).toBe("slot_taken");
    expect(failure(await connector.bookings.create(oilChange("d", "2026-10-19T10:45:00-04:00"))).code).toBe(
      "slot_taken",
    );
    value(await connector.bookings.create(oilChange("e", "2026-10-19T11:00:00-04:00")));
  });

  it("with no resources named the platform picks free ones", async () => {
    const { connector } = maple();
    value(await connector.bookings.create(oilChange("a", TEN, ["bay-1", "tech-alex"])));
    const picked = value(await connector.bookings.create(oilChange("b", TEN)));
    expect(picked.resourceIds).toEqual(["bay-2", "tech-sam"]);
    // Naming one type leaves the other to the platform.
    const c = value(
      await connector.bookings.create(oilChange("c", "2026-10-19T12:00:00-04:00", ["tech-priya"])),
    );
    expect(c.resourceIds).toEqual(["bay-1", "tech-priya"]);
  });

  it.each([
    ["outside working hours (17:15 + 60 min runs past 18:00)", "2026-10-19T17:15:00-04:00"],
    ["on a Sunday", "2026-10-18T13:00:00-04:00"],
    ["in the past", "2026-10-18T09:00:00-04:00"],
  ])("%s is slot_taken", async (_name, at) => {
    const { connector } = maple();
    expect(failure(await connector.bookings.create(oilChange("x", at))).code).toBe("slot_taken");
  });

  it("a start off the availability grid is accepted when free (like a real platform's create)", async () => {
    const { connector } = maple();
    value(await connector.bookings.create(oilChange("x", "2026-10-19T10:07:00-04:00")));
  });
});

describe("status and strict input", () => {
  it("tentative creates a tentative appointment (host approval, §10)", async () => {
    const { connector } = maple();
    const b = value(await connector.bookings.create({ ...oilChange("k", TEN), tentative: true }));
    expect(b.status).toBe("tentative");
    expect(value(await connector.bookings.get(b.upstreamId)).status).toBe("tentative");
  });

  const base = oilChange("k", TEN);
  it.each<[string, UpstreamCreate]>([
    ["an empty idempotency key", { ...base, idempotencyKey: "" }],
    ["an unknown service", { ...base, serviceId: "tyre-swap" }],
    ["an unknown resource", { ...base, resourceIds: ["bay-9"] }],
    [
      "a resource the service does not use",
      { ...base, serviceId: "oil-change", resourceIds: ["bay-1", "bay-2"] },
    ],
    ["an end before the start", { ...base, end: base.start - 1 }],
    ["a fractional start", { ...base, start: base.start + 0.5 }],
    ["party size 0", { ...base, partySize: 0 }],
  ])("%s is invalid_request", async (_name, request) => {
    const { connector } = maple();
    const e = failure(await connector.bookings.create(request));
    expect(e.code).toBe("invalid_request");
    expect(e.upstream).toMatchObject({ call: "POST /v2/bookings", status: 400 });
  });

  it("a booking for an unknown id is not_found", async () => {
    const { connector } = maple();
    const e = failure(await connector.bookings.get("syn_nope"));
    expect(e.code).toBe("not_found");
    expect(e.upstream).toMatchObject({ call: "GET /v2/bookings/syn_nope", status: 404 });
  });

  it("an extended booking (a longer end) takes the longer time", async () => {
    const { connector } = maple();
    const b = value(
      await connector.bookings.create({
        ...oilChange("k", TEN, ["bay-1", "tech-alex"]),
        end: t(TEN) + 90 * MIN,
      }),
    );
    expect(b.end).toBe(t(TEN) + 90 * MIN);
    const busy = value(await connector.readBusy({ start: t(TEN), end: t(TEN) + 3 * 60 * MIN }, ["bay-1"]));
    expect(busy.busy[0]?.interval).toEqual({ start: t(TEN), end: t(TEN) + 105 * MIN });
  });
});
