/** OSBP "availability.find" (and "Time Discipline") through the generic adapter over the synthetic platform. */
import { describe, expect, it } from "vitest";
import type { AvailabilityQuery, Connector } from "../../../../src/connectors/port.js";
import { fadesOnQueen, type SyntheticScenario } from "../../../../src/connectors/synthetic/index.js";
import { NIGHT_OWL, WASH } from "./scenarios.js";
import { HOUR, MIN, MONDAY, problemOf, rig, t, valueOf, withPayment, wrapConnector } from "./support.js";

/** Records every availability query the adapter sends. */
function recordingQueries(queries: AvailabilityQuery[]) {
  return (c: Connector): Connector =>
    wrapConnector(c, {
      findAvailability: (q: AvailabilityQuery) => {
        queries.push(q);
        return c.slots!.find(q);
      },
    });
}

describe('OSBP "availability.find": slots per provider', () => {
  it("one slot per (start, technician); the bay is assigned at create and never exposed", async () => {
    const { adapter } = rig();
    const slots = valueOf(await adapter.findAvailability({ service_id: "oil-change", date: MONDAY }));
    // 08:00 … 17:00 every 15 min (45 min + 15 min buffer inside 08:00–18:00), three technicians.
    expect(slots).toHaveLength(37 * 3);
    expect(new Set(slots.map((s) => s.provider_id))).toEqual(
      new Set(["tech-alex", "tech-sam", "tech-priya"]),
    );
    expect(JSON.stringify(slots)).not.toMatch(/bay-/);
    expect(slots[0]).toEqual({
      id: "maple-street-auto:tech-alex:oil-change:2026-10-19T08:00:00",
      organization_id: "maple-street-auto",
      schedule_id: "maple-street-auto",
      schedule_name: "Maple Street Auto",
      organization_name: "Maple Street Auto",
      schedule_timezone: "America/Toronto",
      provider_id: "tech-alex",
      provider_name: "Alex",
      service_id: "oil-change",
      starts_at: "2026-10-19T12:00:00.000Z",
      ends_at: "2026-10-19T12:45:00.000Z",
      starts_at_local: "2026-10-19T08:00:00",
      ends_at_local: "2026-10-19T08:45:00",
      // The all-in amount the business records: 79.00 and 13% HST (booking/pricing/all-in.ts).
      price: { amount_minor: 8927, currency: "CAD", type: "fixed" },
      schedule_hours: [
        { day: 1, open: "08:00", close: "18:00" },
        { day: 2, open: "08:00", close: "18:00" },
        { day: 3, open: "08:00", close: "18:00" },
        { day: 4, open: "08:00", close: "18:00" },
        { day: 5, open: "08:00", close: "18:00" },
        { day: 6, open: "09:00", close: "14:00" },
      ],
    });
  });

  it("slots carry the host's name, and its configured address and coordinates (OSBP schema Slot)", async () => {
    const { adapter } = rig({
      location: { address: "120 Maple Street, Toronto, ON", latitude: 43.6446, longitude: -79.3957 },
    });
    const [slot] = valueOf(await adapter.findAvailability({ service_id: "oil-change", date: MONDAY }));
    expect(slot).toMatchObject({
      organization_name: "Maple Street Auto",
      schedule_address: "120 Maple Street, Toronto, ON",
      schedule_latitude: 43.6446,
      schedule_longitude: -79.3957,
    });
    // Without a location, none is invented.
    const [bare] = valueOf(await rig().adapter.findAvailability({ service_id: "oil-change", date: MONDAY }));
    expect(bare).not.toHaveProperty("schedule_address");
    expect(bare).not.toHaveProperty("schedule_latitude");
    expect(bare).not.toHaveProperty("schedule_longitude");
  });

  it("provider_id filters to that provider; the platform is asked about that resource only", async () => {
    const queries: AvailabilityQuery[] = [];
    const { adapter } = rig({ wrap: recordingQueries(queries) });
    const slots = valueOf(
      await adapter.findAvailability({ service_id: "oil-change", date: MONDAY, provider_id: "tech-sam" }),
    );
    expect(slots).toHaveLength(37);
    expect(slots.every((s) => s.provider_id === "tech-sam" && s.id.includes(":tech-sam:"))).toBe(true);
    expect(queries[0]?.resourceIds).toEqual(["tech-sam"]);
  });

  it("a booked technician drops out of that start; the others stay", async () => {
    const r = rig();
    const start = t("2026-10-19T10:00:00-04:00");
    valueOf(
      await r.synthetic.bookings.create({
        idempotencyKey: "walk-in",
        serviceId: "oil-change",
        start,
        end: start + 45 * MIN,
        resourceIds: ["bay-1", "tech-alex"],
        tentative: false,
      }),
    );
    const slots = valueOf(await r.adapter.findAvailability({ service_id: "oil-change", date: MONDAY }));
    const atTen = slots.filter((s) => s.starts_at_local === "2026-10-19T10:00:00").map((s) => s.provider_id);
    expect(atTen).toEqual(["tech-sam", "tech-priya"]);
  });

  it("a service that binds no staff member: slots without provider_id, id with 'any'", async () => {
    const { adapter } = rig({ scenario: WASH });
    const slots = valueOf(await adapter.findAvailability({ date: MONDAY }));
    expect(slots.map((s) => s.id)).toEqual([
      "wash:any:bay-hour:2026-10-19T08:00:00",
      "wash:any:bay-hour:2026-10-19T09:00:00",
    ]);
    expect(slots[0]).not.toHaveProperty("provider_id");
    expect(slots[0]).not.toHaveProperty("schedule_hours");
  });

  it("defaults: schedule_id omitted is the organization; service_id from the configured default", async () => {
    const { adapter } = rig({ defaults: { serviceId: "brake-inspection" } });
    const slots = valueOf(await adapter.findAvailability({ date: MONDAY, provider_id: "tech-alex" }));
    expect(slots[0]?.service_id).toBe("brake-inspection");
    expect(slots[0]?.schedule_id).toBe("maple-street-auto");
  });
});

describe('OSBP "availability.find": refusals', () => {
  it("a date that is not a calendar date: invalid_input naming /date", async () => {
    const { adapter, count } = rig();
    for (const date of ["2026-02-30", "2026-13-01", "19-10-2026", "2026-10-19T00:00:00"]) {
      const p = problemOf(
        await adapter.findAvailability({ service_id: "oil-change", date }),
        "invalid_input",
      );
      expect(p.message).toContain("date");
      expect(Object.keys(p).sort()).toEqual(["code", "message", "retryable"]);
    }
    expect(count("findAvailability")).toBe(0);
  });

  it("a schedule this business does not have: schedule_not_found (an empty list would read as fully booked)", async () => {
    const { adapter } = rig();
    problemOf(
      await adapter.findAvailability({ service_id: "oil-change", schedule_id: "elsewhere", date: MONDAY }),
      "schedule_not_found",
    );
  });

  it("an unknown provider, or a bay named as provider: provider_not_found", async () => {
    const { adapter } = rig();
    for (const provider_id of ["tech-nobody", "bay-1"]) {
      problemOf(
        await adapter.findAvailability({ service_id: "oil-change", date: MONDAY, provider_id }),
        "provider_not_found",
      );
    }
  });

  it("a barber shop's consultation has no price: slots carry no price (booking fails closed later)", async () => {
    const { adapter } = rig({ scenario: withPayment(fadesOnQueen) });
    const slots = valueOf(await adapter.findAvailability({ service_id: "consultation", date: "2026-10-20" }));
    expect(slots.length).toBeGreaterThan(0);
    expect(slots[0]).not.toHaveProperty("price");
  });

  it("an open-ended service: unsupported_service (a v0.1.0 slot needs an end)", async () => {
    const open: SyntheticScenario = {
      ...WASH,
      services: [{ ...WASH.services[0]!, duration: "open", setAside: 30 * MIN }],
    };
    const { adapter } = rig({ scenario: open });
    problemOf(await adapter.findAvailability({ date: MONDAY }), "unsupported_service");
  });
});

describe('OSBP "Time Discipline": merchant-local days across DST in America/Toronto', () => {
  it("2026-03-08 (spring forward) is a 23-hour day; 02:00 does not exist, instants shift from -05:00 to -04:00", async () => {
    const queries: AvailabilityQuery[] = [];
    const { adapter } = rig({
      scenario: NIGHT_OWL,
      start: t("2026-03-01T12:00:00Z"),
      wrap: recordingQueries(queries),
    });
    const slots = valueOf(await adapter.findAvailability({ date: "2026-03-08" }));
    expect(queries[0]?.range).toEqual({ start: t("2026-03-08T05:00:00Z"), end: t("2026-03-09T04:00:00Z") });
    expect(queries[0]!.range.end - queries[0]!.range.start).toBe(23 * HOUR);
    expect(slots.map((s) => [s.starts_at_local, s.starts_at, s.ends_at_local])).toEqual([
      ["2026-03-08T00:00:00", "2026-03-08T05:00:00.000Z", "2026-03-08T01:00:00"],
      // An hour after 01:00 EST the clocks read 03:00 EDT.
      ["2026-03-08T01:00:00", "2026-03-08T06:00:00.000Z", "2026-03-08T03:00:00"],
      ["2026-03-08T03:00:00", "2026-03-08T07:00:00.000Z", "2026-03-08T04:00:00"],
      ["2026-03-08T04:00:00", "2026-03-08T08:00:00.000Z", "2026-03-08T05:00:00"],
      ["2026-03-08T05:00:00", "2026-03-08T09:00:00.000Z", "2026-03-08T06:00:00"],
    ]);
  });

  it("2026-11-01 (fall back) is a 25-hour day; the repeated 01:00 is offered once (the one booking.create can address)", async () => {
    const queries: AvailabilityQuery[] = [];
    const { adapter } = rig({
      scenario: NIGHT_OWL,
      start: t("2026-10-25T12:00:00Z"),
      wrap: recordingQueries(queries),
    });
    const slots = valueOf(await adapter.findAvailability({ date: "2026-11-01" }));
    expect(queries[0]!.range.end - queries[0]!.range.start).toBe(25 * HOUR);
    expect(queries[0]!.range.start).toBe(t("2026-11-01T04:00:00Z"));
    expect(slots.map((s) => [s.starts_at_local, s.starts_at])).toEqual([
      ["2026-11-01T00:00:00", "2026-11-01T04:00:00.000Z"],
      ["2026-11-01T01:00:00", "2026-11-01T05:00:00.000Z"],
      // 06:00Z is 01:00 EST, the second 01:00: left out.
      ["2026-11-01T02:00:00", "2026-11-01T07:00:00.000Z"],
      ["2026-11-01T03:00:00", "2026-11-01T08:00:00.000Z"],
      ["2026-11-01T04:00:00", "2026-11-01T09:00:00.000Z"],
      ["2026-11-01T05:00:00", "2026-11-01T10:00:00.000Z"],
    ]);
    expect(new Set(slots.map((s) => s.id)).size).toBe(slots.length);
  });
});
