import { describe, expect, it } from "vitest";
import {
  calendarHostConnector,
  type CalendarHostSetup,
} from "../../../src/booking/calendar/host-connector.js";
import { ownEventId, retryOwnEvents } from "../../../src/booking/calendar/own-events.js";
import { MemoryCalendarStateStore } from "../../../src/booking/calendar/state.js";
import { CALENDAR_BUSY_SOURCE } from "../../../src/booking/calendar/sync.js";
import { unitsFor } from "../../../src/booking/calendar/units.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { MemoryCalendar } from "./support/memory-calendar.js";

const H = 3_600_000;
const MIN = 60_000;
// Thursday 2026-12-03, Europe/Madrid (UTC+1): 09:00 local = 08:00Z.
const day = Date.parse("2026-12-03T00:00:00+01:00");
const setup: CalendarHostSetup = {
  plan: {
    hostId: "cal-host",
    timezone: "Europe/Madrid",
    units: unitsFor({ resourceType: "chair", units: 2 }),
    calendars: [{ calendarId: "main" }],
    horizonMs: 31 * 24 * H,
  },
  writeCalendarId: "main",
  organization: { id: "cal-host", name: "Ana's studio", timezone: "Europe/Madrid", currency: "EUR" },
  services: [
    {
      id: "cut",
      name: "Haircut",
      duration: 45 * MIN,
      bufferAfterMs: 15 * MIN,
      requires: [{ resourceType: "chair" }],
    },
  ],
  hours: [{ day: 4, open: "09:00", close: "12:00" }],
  granularityMs: 30 * MIN,
};

async function subject(readUntil = day + 30 * 24 * H) {
  const store = new MemoryHoldStore();
  const state = new MemoryCalendarStateStore();
  const cal = new MemoryCalendar();
  const now = () => day + 8 * H; // 08:00 local
  await state.put("cal-host", "main", { readUntil, fullSyncAt: now(), events: {} });
  const connector = calendarHostConnector(cal.connector(), setup, { store, state, clock: { now } });
  return { store, state, cal, connector, now };
}

const starts = (slots: ReadonlyArray<{ start: number; resourceIds: readonly string[] }>) =>
  slots.map((s) => [new Date(s.start).toISOString().slice(11, 16), [...s.resourceIds].sort().join(",")]);

describe("a calendar host's free starts: working hours minus synced busy time, no upstream call", () => {
  it("offers the grid of each unit's hours, service + buffer inside them", async () => {
    const { connector } = await subject();
    const r = await connector.slots.find({ serviceId: "cut", range: { start: day, end: day + 24 * H } });
    expect(r.ok && starts(r.value)).toEqual([
      ["08:00", "chair-1,chair-2"],
      ["08:30", "chair-1,chair-2"],
      ["09:00", "chair-1,chair-2"],
      ["09:30", "chair-1,chair-2"],
      ["10:00", "chair-1,chair-2"],
    ]);
  });

  it("busy time laid on one chair leaves the other free", async () => {
    const { connector, store } = await subject();
    await store.replaceBusy("cal-host", "chair-1", CALENDAR_BUSY_SOURCE, [
      { start: day + 9 * H, end: day + 10 * H },
    ]);
    const r = await connector.slots.find({ serviceId: "cut", range: { start: day, end: day + 24 * H } });
    expect(r.ok && starts(r.value)).toEqual([
      ["08:00", "chair-2"],
      ["08:30", "chair-2"],
      ["09:00", "chair-1,chair-2"],
      ["09:30", "chair-1,chair-2"],
      ["10:00", "chair-1,chair-2"],
    ]);
  });

  it("an unread calendar offers nothing; nothing past what was read", async () => {
    const unread = await subject();
    const state = new MemoryCalendarStateStore();
    const c = calendarHostConnector(unread.cal.connector(), setup, {
      store: unread.store,
      state,
      clock: { now: unread.now },
    });
    const none = await c.slots.find({ serviceId: "cut", range: { start: day, end: day + 24 * H } });
    expect(none.ok && none.value).toEqual([]);
    const partly = await subject(day + 10 * H);
    const r = await partly.connector.slots.find({
      serviceId: "cut",
      range: { start: day, end: day + 24 * H },
    });
    // 08:30Z would end at 09:15Z, past what was read (09:00Z).
    expect(r.ok && starts(r.value).map(([t]) => t)).toEqual(["08:00"]);
  });
});

describe("bookings are the gateway's own events in the host's calendar", () => {
  const create = {
    idempotencyKey: "cal-host:h_1",
    serviceId: "cut",
    start: day + 9 * H,
    end: day + 9 * H + 45 * MIN,
    resourceIds: ["chair-1"],
    customer: { name: "Jo" },
    tentative: true,
  };

  it("a create writes a TENTATIVE event under an id derived from the key; a retry writes nothing new", async () => {
    const { connector, cal } = await subject();
    const a = await connector.bookings.create(create);
    const b = await connector.bookings.create(create);
    expect(a.ok && a.value).toMatchObject({ upstreamId: ownEventId("cal-host:h_1"), status: "tentative" });
    expect(b).toEqual(a);
    expect(cal.writes).toHaveLength(1);
    expect(cal.writes[0]).toMatchObject({
      status: "tentative",
      transparency: "opaque",
      summary: "Haircut — Jo",
    });
    expect(ownEventId("cal-host:h_1")).toMatch(/^bg[0-9a-v]{26}$/);
  });

  it("a create that fails is an error (no booking on a calendar the gateway could not write)", async () => {
    const { connector, cal } = await subject();
    cal.writeFaults.push("unavailable");
    const r = await connector.bookings.create(create);
    expect(r.ok).toBe(false);
    // …and the lost-answer path finds or makes that same event, never a second one.
    const found = await connector.bookings.findByIdempotencyKey("cal-host:h_1");
    expect(found.ok && found.value?.status).toBe("tentative");
    expect(cal.events.size).toBe(1);
  });

  it("approval rewrites the event CONFIRMED; a failed rewrite is retried until it lands", async () => {
    const { connector, cal, state, now } = await subject();
    const made = await connector.bookings.create(create);
    const id = made.ok ? made.value.upstreamId : "";
    cal.writeFaults.push("unavailable");
    const approved = await connector.bookings.setStatus(id, "confirmed");
    expect(approved.ok && approved.value.status).toBe("confirmed");
    expect(cal.events.get(id)?.status).toBe("tentative");
    expect((await state.pendingOwn("cal-host")).map((e) => e.eventId)).toEqual([id]);
    const deps = {
      events: cal.connector().events,
      state,
      clock: { now: () => now() + H },
      hostId: "cal-host",
      zone: "Europe/Madrid",
      writeCalendarId: "main",
    };
    const report = await retryOwnEvents(deps);
    expect(report).toMatchObject({ tried: 1, landed: 1, pending: [] });
    expect(cal.events.get(id)?.status).toBe("confirmed");
    expect(await state.pendingOwn("cal-host")).toEqual([]);
  });

  it("a decline or cancel rewrites it CANCELLED and transparent (free time)", async () => {
    const { connector, cal } = await subject();
    const made = await connector.bookings.create(create);
    const id = made.ok ? made.value.upstreamId : "";
    await connector.bookings.cancel(id);
    expect(cal.events.get(id)).toMatchObject({ status: "cancelled", transparency: "transparent" });
  });

  it("an event the host edited since keeps the host's edit; the approval changes only its status", async () => {
    const { connector, cal } = await subject();
    const made = await connector.bookings.create(create);
    const id = made.ok ? made.value.upstreamId : "";
    const edited = cal.events.get(id);
    if (edited === undefined) throw new Error("no event");
    cal.put({ ...edited, summary: "moved by host" } as never);
    const approved = await connector.bookings.setStatus(id, "confirmed");
    expect(approved.ok).toBe(true);
    expect(cal.events.get(id)).toMatchObject({ status: "confirmed", summary: "moved by host" });
  });
});

describe("a calendar host's catalog read and its calendar's credential", () => {
  const report = (error?: { code: string; message: string }) => ({
    hostId: "cal-host",
    calendarId: "main",
    at: day,
    kind: "incremental" as const,
    outcome: error === undefined ? ("complete" as const) : ("incomplete" as const),
    pages: 1,
    events: 0,
    durationMs: 1,
    ...(error !== undefined && { error }),
  });

  it("is refused as unauthorized while the last sync was, so the catalog check cannot turn the host ok", async () => {
    const { connector, state } = await subject();
    expect((await connector.catalog.read()).ok).toBe(true);
    await state.putReport(report({ code: "unauthorized", message: "token revoked" }));
    const refused = await connector.catalog.read();
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.code).toBe("unauthorized");
    expect(!refused.ok && refused.error.message).toContain("calendar main");
    // A sync that reads through again (reconnected) clears it.
    await state.putReport(report());
    expect((await connector.catalog.read()).ok).toBe(true);
  });
});
