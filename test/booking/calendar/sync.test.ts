import { describe, expect, it } from "vitest";
import { MemoryCalendarStateStore } from "../../../src/booking/calendar/state.js";
import { knownUntil } from "../../../src/booking/calendar/host-connector.js";
import { syncCalendarHost, type CalendarHostPlan } from "../../../src/booking/calendar/sync.js";
import { unitsFor } from "../../../src/booking/calendar/units.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { MemoryCalendar } from "./support/memory-calendar.js";

const H = 3_600_000;
const now = Date.parse("2026-12-07T06:00:00Z"); // Monday 07:00 in Madrid
const plan: CalendarHostPlan = {
  hostId: "cal",
  timezone: "Europe/Madrid",
  units: unitsFor({ resourceType: "chair", units: 2 }),
  calendars: [{ calendarId: "main" }],
  horizonMs: 31 * 24 * H,
};

async function busyOf(store: MemoryHoldStore, unit: string, from = now, to = now + 31 * 24 * H) {
  const occ = await store.listOccupancy("cal", [unit], { start: from, end: to }, now);
  return (occ.get(unit) ?? [])
    .filter((e) => !e.agent)
    .map((e) => [new Date(e.start).toISOString(), new Date(e.end).toISOString()]);
}

function setup() {
  const cal = new MemoryCalendar();
  const store = new MemoryHoldStore();
  const state = new MemoryCalendarStateStore();
  const deps = { sync: cal.connector().calendar, state, store, clock: { now: () => now } };
  return { cal, store, state, deps };
}

const weekly = {
  uid: "standup@example",
  eventId: "standup",
  start: { dateTime: "2026-12-07T09:00:00", zone: "Europe/Madrid" },
  end: { dateTime: "2026-12-07T10:00:00", zone: "Europe/Madrid" },
  rrule: "FREQ=WEEKLY;COUNT=3",
  status: "confirmed" as const,
  transparency: "opaque" as const,
};

describe("calendar sync: busy time lands in the hold store (SchCP §10)", () => {
  it("a full sync expands a weekly series (every occurrence, not only the first) and records readUntil", async () => {
    const { cal, store, state, deps } = setup();
    cal.readUntil = now + 31 * 24 * H;
    cal.put(weekly);
    const [report] = await syncCalendarHost(deps, plan);
    expect(report).toMatchObject({
      outcome: "complete",
      kind: "full",
      busy: 3,
      readUntil: now + 31 * 24 * H,
    });
    expect(await busyOf(store, "chair-1")).toEqual([
      ["2026-12-07T08:00:00.000Z", "2026-12-07T09:00:00.000Z"],
      ["2026-12-14T08:00:00.000Z", "2026-12-14T09:00:00.000Z"],
      ["2026-12-21T08:00:00.000Z", "2026-12-21T09:00:00.000Z"],
    ]);
    expect(await busyOf(store, "chair-2")).toEqual([]);
    expect((await state.get("cal", "main"))?.readUntil).toBe(now + 31 * 24 * H);
  });

  it("a moved and a cancelled exception: busy only at the new time, the cancelled one free", async () => {
    const { cal, store, deps } = setup();
    cal.put(weekly);
    cal.put({
      ...weekly,
      eventId: "standup-moved",
      recurrenceId: { dateTime: "2026-12-14T09:00:00", zone: "Europe/Madrid" },
      start: { dateTime: "2026-12-15T12:00:00", zone: "Europe/Madrid" },
      end: { dateTime: "2026-12-15T13:00:00", zone: "Europe/Madrid" },
      rrule: undefined,
    });
    cal.put({
      ...weekly,
      eventId: "standup-cancelled",
      recurrenceId: { dateTime: "2026-12-21T09:00:00", zone: "Europe/Madrid" },
      start: { dateTime: "2026-12-21T09:00:00", zone: "Europe/Madrid" },
      end: { dateTime: "2026-12-21T10:00:00", zone: "Europe/Madrid" },
      rrule: undefined,
      status: "cancelled",
    });
    await syncCalendarHost(deps, plan);
    expect(await busyOf(store, "chair-1")).toEqual([
      ["2026-12-07T08:00:00.000Z", "2026-12-07T09:00:00.000Z"],
      ["2026-12-15T11:00:00.000Z", "2026-12-15T12:00:00.000Z"],
    ]);
  });

  it("an incremental sync picks up a change and a removal", async () => {
    const { cal, store, deps } = setup();
    cal.put(weekly);
    cal.put({
      ...weekly,
      uid: "dentist",
      eventId: "dentist",
      rrule: undefined,
      start: { dateTime: "2026-12-08T09:00:00Z" },
      end: { dateTime: "2026-12-08T10:00:00Z" },
    });
    await syncCalendarHost(deps, plan);
    cal.remove("standup");
    const [r] = await syncCalendarHost(deps, plan);
    expect(r).toMatchObject({ kind: "incremental", outcome: "complete", busy: 1 });
    expect(await busyOf(store, "chair-1")).toEqual([
      ["2026-12-08T09:00:00.000Z", "2026-12-08T10:00:00.000Z"],
    ]);
  });

  it("a refused cursor starts over with a full read, once", async () => {
    const { cal, store, deps } = setup();
    cal.put(weekly);
    await syncCalendarHost(deps, plan);
    cal.syncFaults.push("cursor_expired");
    const [r] = await syncCalendarHost(deps, plan);
    expect(r).toMatchObject({ kind: "full", restarted: true, outcome: "complete" });
    expect(await busyOf(store, "chair-1")).toHaveLength(3);
  });

  it("a sync that fails part way keeps the busy time it had (§10) and says why", async () => {
    const { cal, store, deps, state } = setup();
    cal.put(weekly);
    await syncCalendarHost(deps, plan);
    cal.remove("standup");
    cal.pageSize = 1;
    cal.syncFaults.push("unavailable");
    const [r] = await syncCalendarHost(deps, plan);
    expect(r).toMatchObject({ outcome: "incomplete", error: { code: "unavailable" } });
    expect(await busyOf(store, "chair-1")).toHaveLength(3);
    expect((await state.reports("cal"))[0]?.outcome).toBe("incomplete");
  });

  it("a series past its bound is laid up to where it was cut; the host is degraded and offers nothing later", async () => {
    const { cal, store, deps, state } = setup();
    cal.put({
      ...weekly,
      uid: "every-quarter",
      eventId: "flood",
      rrule: "FREQ=MINUTELY;INTERVAL=15",
      end: { dateTime: "2026-12-07T09:10:00", zone: "Europe/Madrid" },
    });
    const [r] = await syncCalendarHost(deps, { ...plan, maxPerSeries: 500 });
    expect(r).toMatchObject({ outcome: "complete", degraded: { reason: "expansion_bound" } });
    const cutAt = Date.parse("2026-12-07T08:00:00Z") + 500 * 15 * 60_000;
    expect(await knownUntil(plan, state)).toBe(cutAt);
    expect((await busyOf(store, "chair-1")).length).toBeGreaterThan(0);
  });

  it("a day with more occurrences than its bound is busy whole, the others as they are; degraded", async () => {
    const { cal, store, deps } = setup();
    for (let i = 0; i < 30; i++)
      cal.put({
        ...weekly,
        rrule: undefined,
        uid: `crowd-${i}`,
        eventId: `crowd-${i}`,
        start: { dateTime: "2026-12-09T10:00:00Z" },
        end: { dateTime: "2026-12-09T10:30:00Z" },
      });
    cal.put({ ...weekly, rrule: undefined });
    const [r] = await syncCalendarHost(deps, { ...plan, maxPerDay: 20 });
    expect(r).toMatchObject({ outcome: "complete", degraded: { reason: "expansion_bound" } });
    expect(r?.degraded?.message).toContain("2026-12-09");
    // The host's day in Madrid (UTC+1).
    for (const unit of ["chair-1", "chair-2"])
      expect(
        await busyOf(store, unit, Date.parse("2026-12-08T23:00:00Z"), Date.parse("2026-12-09T23:00:00Z")),
      ).toEqual([["2026-12-08T23:00:00.000Z", "2026-12-09T23:00:00.000Z"]]);
    expect(await busyOf(store, "chair-1", now, Date.parse("2026-12-08T00:00:00Z"))).toEqual([
      ["2026-12-07T08:00:00.000Z", "2026-12-07T09:00:00.000Z"],
    ]);
  });

  it("the gateway's own events are not laid twice (its bookings already hold their units)", async () => {
    const { cal, store, deps, state } = setup();
    cal.put({ ...weekly, rrule: undefined, eventId: "bgown", uid: "bgown@gateway" });
    await state.putOwn("cal", {
      calendarId: "main",
      eventId: "bgown",
      idempotencyKey: "k",
      serviceId: "cut",
      start: 0,
      end: 1,
      resourceIds: ["chair-1"],
      summary: "x",
      status: "tentative",
      written: "tentative",
      etag: "v1",
      attempts: 0,
    });
    await syncCalendarHost(deps, plan);
    expect(await busyOf(store, "chair-1")).toEqual([]);
  });

  it("overlapping events fill both chairs", async () => {
    const { cal, store, deps } = setup();
    cal.put({ ...weekly, rrule: undefined });
    cal.put({ ...weekly, rrule: undefined, uid: "b", eventId: "b" });
    await syncCalendarHost(deps, plan);
    expect(await busyOf(store, "chair-1")).toHaveLength(1);
    expect(await busyOf(store, "chair-2")).toHaveLength(1);
  });
});

describe("calendar sync: host-local days, skipped events", () => {
  const single = (id: string, start: string, end: string) => ({
    ...weekly,
    rrule: undefined,
    uid: id,
    eventId: id,
    start: { dateTime: start },
    end: { dateTime: end },
  });

  it("an event over UTC midnight (afternoon in Vancouver) stays on one unit; the free hour is offered", async () => {
    const { cal, store, deps } = setup();
    const vancouver = { ...plan, timezone: "America/Vancouver" };
    // 14:00–15:30, 15:00–17:00 and 16:30–17:30 local (PST, UTC-8): 00:00 UTC is 16:00 local.
    cal.put(single("before", "2026-12-08T22:00:00Z", "2026-12-08T23:30:00Z"));
    cal.put(single("across", "2026-12-08T23:00:00Z", "2026-12-09T01:00:00Z"));
    cal.put(single("after", "2026-12-09T00:30:00Z", "2026-12-09T01:30:00Z"));
    const [r] = await syncCalendarHost(deps, vancouver);
    expect(r).toMatchObject({ outcome: "complete", complete: true, busy: 3 });
    const all = [
      ...(await busyOf(store, "chair-1")).map((b) => ["chair-1", ...b]),
      ...(await busyOf(store, "chair-2")).map((b) => ["chair-2", ...b]),
    ];
    // Laid whole: the event across UTC midnight is one interval on one chair.
    expect(all).toContainEqual([expect.any(String), "2026-12-08T23:00:00.000Z", "2026-12-09T01:00:00.000Z"]);
    // 15:30–16:30 local: one chair is free (the others' layout would leave none).
    const from = Date.parse("2026-12-08T23:30:00Z");
    const to = Date.parse("2026-12-09T00:30:00Z");
    const free = [];
    for (const unit of ["chair-1", "chair-2"])
      if ((await busyOf(store, unit, from, to)).length === 0) free.push(unit);
    expect(free).toHaveLength(1);
  });

  it("a host whose zone changes is laid again in its new days", async () => {
    const { cal, store, deps } = setup();
    cal.put(single("across", "2026-12-08T23:00:00Z", "2026-12-09T01:00:00Z"));
    await syncCalendarHost(deps, { ...plan, timezone: "UTC" });
    expect(await busyOf(store, "chair-1")).toHaveLength(2);
    const [r] = await syncCalendarHost(deps, { ...plan, timezone: "America/Vancouver" });
    expect(r).toMatchObject({ kind: "full", outcome: "complete" });
    expect(await busyOf(store, "chair-1")).toEqual([
      ["2026-12-08T23:00:00.000Z", "2026-12-09T01:00:00.000Z"],
    ]);
  });

  it("an unreadable event is skipped and logged, the rest laid; the report says how many, complete: false", async () => {
    const { cal, store, deps } = setup();
    const warnings: Array<[string, Readonly<Record<string, unknown>> | undefined]> = [];
    const logger = { warn: (m: string, f?: Readonly<Record<string, unknown>>) => warnings.push([m, f]) };
    cal.put({ ...weekly, rrule: undefined });
    cal.put({
      ...single("broken", "2026-12-09T10:00:00Z", "2026-12-09T11:00:00Z"),
      start: { dateTime: "not a time" },
    });
    const [r] = await syncCalendarHost({ ...deps, logger }, plan);
    expect(r).toMatchObject({ outcome: "complete", complete: false, skipped: 1, busy: 1 });
    expect(await busyOf(store, "chair-1")).toEqual([
      ["2026-12-07T08:00:00.000Z", "2026-12-07T09:00:00.000Z"],
    ]);
    expect(warnings.some(([, f]) => f?.event_id === "broken")).toBe(true);
    // Still skipped on a sync that did not read it again; fixed, it is laid and the count drops.
    cal.put(single("other", "2026-12-10T10:00:00Z", "2026-12-10T11:00:00Z"));
    expect((await syncCalendarHost({ ...deps, logger }, plan))[0]).toMatchObject({
      skipped: 1,
      complete: false,
    });
    cal.put(single("broken", "2026-12-09T10:00:00Z", "2026-12-09T11:00:00Z"));
    const [fixed] = await syncCalendarHost({ ...deps, logger }, plan);
    expect(fixed).toMatchObject({ kind: "incremental", complete: true, busy: 3 });
    expect(fixed?.skipped).toBeUndefined();
  });
});

describe("calendar sync reports: when the calendar was last read through", () => {
  it("a complete sync says its own start; a failed one after it carries that time on (the metrics' lag)", async () => {
    const { cal, state, deps } = setup();
    let at = now;
    const clocked = { ...deps, clock: { now: () => at } };
    const [first] = await syncCalendarHost(clocked, plan);
    expect(first).toMatchObject({ outcome: "complete", at: now, lastCompleteAt: now });
    at = now + H;
    cal.syncFaults.push("unavailable");
    const [failed] = await syncCalendarHost(clocked, plan);
    expect(failed).toMatchObject({ outcome: "incomplete", at: now + H, lastCompleteAt: now });
    expect((await state.reports("cal"))[0]?.lastCompleteAt).toBe(now);
  });

  it("a calendar that never completed has none", async () => {
    const { cal, deps } = setup();
    cal.syncFaults.push("unavailable");
    const [failed] = await syncCalendarHost(deps, plan);
    expect(failed?.outcome).toBe("incomplete");
    expect(failed?.lastCompleteAt).toBeUndefined();
  });
});
