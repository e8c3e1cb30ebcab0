/**
 * SearchAvailability windows: Square takes a start_at_range of 24 hours to 32 days, so a longer
 * range is asked in pieces and a shorter one is widened, with the answers outside dropped.
 */
import { describe, expect, it } from "vitest";
import { MAX_SEARCH_MS, MIN_SEARCH_MS, searchWindows } from "../../../src/connectors/square/index.js";
import { slotsOf } from "../../../src/connectors/square/availability.js";
import { readFixtureJson } from "../../support/fixtures.js";
import { AVERY, HAIRCUT, JORDAN } from "./fake-square.js";
import { makeRig, MONDAY_9, useNock } from "./setup.js";

useNock();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("searchWindows", () => {
  it("covers the range with windows of 24 h to 32 days, contiguous", () => {
    const t = MONDAY_9;
    expect(searchWindows({ start: t, end: t + 3 * HOUR })).toEqual([{ start: t, end: t + DAY }]);
    expect(searchWindows({ start: t, end: t + 32 * DAY })).toEqual([{ start: t, end: t + 32 * DAY }]);
    expect(searchWindows({ start: t, end: t + 70 * DAY })).toEqual([
      { start: t, end: t + 32 * DAY },
      { start: t + 32 * DAY, end: t + 64 * DAY },
      { start: t + 64 * DAY, end: t + 70 * DAY },
    ]);
    // A remainder shorter than a day is widened, not sent short.
    expect(searchWindows({ start: t, end: t + 32 * DAY + 2 * HOUR })).toEqual([
      { start: t, end: t + 32 * DAY },
      { start: t + 32 * DAY, end: t + 33 * DAY },
    ]);
    expect(searchWindows({ start: t, end: t })).toEqual([]);
    for (const w of searchWindows({ start: t, end: t + 100 * DAY + 7 })) {
      expect(w.end - w.start).toBeGreaterThanOrEqual(MIN_SEARCH_MS);
      expect(w.end - w.start).toBeLessThanOrEqual(MAX_SEARCH_MS);
    }
  });
});

describe("slots from Square", () => {
  it("merges a start several team members can serve, from the recorded answer", () => {
    const { availabilities } = readFixtureJson<{ availabilities: unknown[] }>(
      "square/search-availability.json",
    );
    const start = Date.parse("2026-10-19T13:00:00Z");
    const slots = slotsOf(HAIRCUT, [
      { start, durationMs: HOUR, teamMemberId: AVERY },
      { start, durationMs: HOUR, teamMemberId: JORDAN },
      { start: start + HOUR / 2, durationMs: HOUR, teamMemberId: JORDAN },
    ]);
    expect(availabilities).toHaveLength(3);
    expect(slots).toEqual([
      { serviceId: HAIRCUT, start, end: start + HOUR, resourceIds: [AVERY, JORDAN] },
      { serviceId: HAIRCUT, start: start + HOUR / 2, end: start + 1.5 * HOUR, resourceIds: [JORDAN] },
    ]);
  });

  it("a range over 32 days is several SearchAvailability calls, each inside Square's bounds", async () => {
    const { fake, connector } = makeRig();
    const range = { start: MONDAY_9, end: MONDAY_9 + 45 * DAY };
    const r = await connector.slots.find({ serviceId: HAIRCUT, range });
    if (!r.ok) throw new Error(r.error.message);
    const calls = fake.requestsTo("POST", "/v2/bookings/availability/search");
    expect(calls).toHaveLength(2);
    const ranges = calls.map((c) => {
      const f = (c.body as { query: { filter: { start_at_range: { start_at: string; end_at: string } } } })
        .query.filter;
      return { start: Date.parse(f.start_at_range.start_at), end: Date.parse(f.start_at_range.end_at) };
    });
    expect(ranges).toEqual([
      { start: range.start, end: range.start + 32 * DAY },
      { start: range.start + 32 * DAY, end: range.end },
    ]);
    // Every weekday of both windows is answered, none outside the range.
    const days = new Set(r.value.map((s) => new Date(s.start).toISOString().slice(0, 10)));
    expect(days.size).toBe(33);
    expect(r.value.every((s) => s.start >= range.start && s.start < range.end)).toBe(true);
    expect(r.upstream?.call).toBe("POST /v2/bookings/availability/search");
  });

  it("a range under 24 h is asked as 24 h and the answers outside it are dropped", async () => {
    const { fake, connector } = makeRig();
    const range = { start: MONDAY_9, end: MONDAY_9 + 2 * HOUR };
    const r = await connector.slots.find({ serviceId: HAIRCUT, range });
    if (!r.ok) throw new Error(r.error.message);
    const body = fake.requestsTo("POST", "/v2/bookings/availability/search")[0]?.body as {
      query: { filter: { start_at_range: { start_at: string; end_at: string }; location_id: string } };
    };
    const asked = body.query.filter.start_at_range;
    expect(Date.parse(asked.end_at) - Date.parse(asked.start_at)).toBe(DAY);
    expect(body.query.filter.location_id).toBe("L7M2SEJXJ3TQE");
    // 13:00, 13:30, 14:00, 14:30 UTC, each with both team members.
    expect(r.value.map((s) => new Date(s.start).toISOString())).toEqual([
      "2026-10-19T13:00:00.000Z",
      "2026-10-19T13:30:00.000Z",
      "2026-10-19T14:00:00.000Z",
      "2026-10-19T14:30:00.000Z",
    ]);
    expect(r.value[0]).toEqual({
      serviceId: HAIRCUT,
      start: MONDAY_9,
      end: MONDAY_9 + HOUR,
      resourceIds: [AVERY, JORDAN],
    });
  });

  it("asks only for the team members named, and never for the past", async () => {
    const { fake, connector } = makeRig();
    const r = await connector.slots.find({
      serviceId: HAIRCUT,
      range: { start: MONDAY_9 - 5 * DAY, end: MONDAY_9 + HOUR },
      resourceIds: [JORDAN],
    });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.map((s) => s.resourceIds)).toEqual([[JORDAN], [JORDAN]]);
    const f = (fake.requests[0]?.body as { query: { filter: Record<string, unknown> } }).query.filter;
    expect(f["segment_filters"]).toEqual([
      { service_variation_id: HAIRCUT, team_member_id_filter: { any: [JORDAN] } },
    ]);
    expect(Date.parse((f["start_at_range"] as { start_at: string }).start_at)).toBe(
      Date.parse("2026-10-18T16:00:00Z"),
    );
  });
});
