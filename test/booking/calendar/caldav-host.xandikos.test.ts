// A calendar host end to end on a real CalDAV server (xandikos, test/support/xandikos.ts):
// corpus series uploaded as a foreign client would, synced by the gateway's sync job into the
// hold store as busy time, then a booking written as a TENTATIVE event, excluded from busy time
// on the next sync, and rewritten CONFIRMED on approval (SchCP §10).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarHostConnector } from "../../../src/booking/calendar/host-connector.js";
import { MemoryCalendarStateStore } from "../../../src/booking/calendar/state.js";
import { syncCalendarHost, type CalendarHostPlan } from "../../../src/booking/calendar/sync.js";
import { unitsFor } from "../../../src/booking/calendar/units.js";
import { createCaldavConnector } from "../../../src/connectors/caldav/index.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { readFixture, readFixtureJson } from "../../support/fixtures.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../support/xandikos.js";

let server: Xandikos;
beforeAll(async () => {
  server = await startXandikos();
}, XANDIKOS_START_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
});

async function upload(calendar: string, name: string, body: string): Promise<void> {
  const answer = await fetch(new URL(`${calendar}${name}`, server.serverUrl), {
    method: "PUT",
    headers: { "content-type": "text/calendar; charset=utf-8" },
    body,
  });
  await answer.arrayBuffer();
  if (answer.status !== 201 && answer.status !== 204) throw new Error(`PUT ${name}: ${answer.status}`);
}

interface Case {
  readonly calendar: string;
  readonly window_start: string;
  readonly window_end: string;
  readonly expected_starts: readonly string[];
  readonly expected_status?: ReadonlyArray<string | null>;
}

function setup(calendarId: string, from: number, to: number, units = 4) {
  const plan: CalendarHostPlan = {
    hostId: `h-${calendarId.replace(/\W/g, "")}`,
    timezone: "Europe/Berlin",
    units: unitsFor({ resourceType: "chair", units }),
    calendars: [{ calendarId }],
    horizonMs: to - from,
  };
  const store = new MemoryHoldStore();
  const state = new MemoryCalendarStateStore();
  const caldav = createCaldavConnector({ serverUrl: server.serverUrl });
  const deps = { sync: caldav.calendar, state, store, clock: { now: () => from } };
  return { plan, store, state, caldav, deps };
}

async function busyStarts(store: MemoryHoldStore, plan: CalendarHostPlan, from: number, to: number) {
  const occ = await store.listOccupancy(plan.hostId, plan.units.ids, { start: from, end: to }, from);
  return [...occ.values()]
    .flat()
    .filter((e) => !e.agent)
    .map((e) => e.start)
    .sort((a, b) => a - b);
}

describe("calendar host on a real CalDAV server", () => {
  it.each([
    "R03_overrides_move_time_within_day",
    "R05_count_with_exdate_across_dst",
    "R06_count_with_two_exdates_across_dst",
    "R07_cancelled_occurrence",
  ])("%s: the synced busy time is the corpus's expected starts (cancelled ones free)", async (id) => {
    const c = readFixtureJson<Case>(`recurrence/${id}.json`);
    const calendar = await server.makeCalendar(id.toLowerCase().replace(/_/g, "-"));
    await upload(calendar, "series.ics", readFixture(`recurrence/${c.calendar}`));
    const from = Date.parse(c.window_start);
    const to = Date.parse(c.window_end);
    const { plan, store, deps } = setup(calendar, from, to);
    const [report] = await syncCalendarHost(deps, plan);
    expect(report?.outcome).toBe("complete");
    const expected = c.expected_starts
      .filter((_, i) => c.expected_status?.[i] !== "CANCELLED")
      .map((s) => Date.parse(s))
      .sort((a, b) => a - b);
    expect((await busyStarts(store, plan, from, to)).map((t) => new Date(t).toISOString())).toEqual(
      expected.map((t) => new Date(t).toISOString()),
    );
  });

  it("a booking is a TENTATIVE event in the calendar, not busy time twice, and CONFIRMED on approval", async () => {
    const calendar = await server.makeCalendar("bookings");
    const from = Date.parse("2026-12-07T07:00:00Z");
    const to = from + 7 * 86_400_000;
    const { plan, store, state, caldav, deps } = setup(calendar, from, to, 1);
    await syncCalendarHost(deps, plan);
    const host = calendarHostConnector(
      caldav,
      {
        plan,
        writeCalendarId: calendar,
        organization: { id: plan.hostId, name: "Studio", timezone: "Europe/Berlin" },
        services: [
          {
            id: "cut",
            name: "Haircut",
            duration: 45 * 60_000,
            bufferAfterMs: 0,
            requires: [{ resourceType: "chair" }],
          },
        ],
        hours: ([1, 2, 3, 4, 5] as const).map((day) => ({ day, open: "09:00", close: "17:00" })),
      },
      { store, state, clock: { now: () => from } },
    );
    const start = Date.parse("2026-12-07T09:00:00Z");
    const made = await host.bookings.create({
      idempotencyKey: `${plan.hostId}:hold-1`,
      serviceId: "cut",
      start,
      end: start + 45 * 60_000,
      resourceIds: ["chair-1"],
      tentative: true,
    });
    expect(made.ok).toBe(true);
    const id = made.ok ? made.value.upstreamId : "";
    const read = async () => {
      const r = await fetch(new URL(`${calendar}${id}.ics`, server.serverUrl));
      return r.text();
    };
    expect(await read()).toContain("STATUS:TENTATIVE");
    const [again] = await syncCalendarHost(deps, plan);
    expect(again).toMatchObject({ outcome: "complete", busy: 0 });
    const approved = await host.bookings.setStatus(id, "confirmed");
    expect(approved.ok && approved.value.status).toBe("confirmed");
    expect(await read()).toContain("STATUS:CONFIRMED");
    expect(await state.pendingOwn(plan.hostId)).toEqual([]);
  });
});
