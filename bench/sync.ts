/**
 * npm run bench:sync — calendar re-sync after ONE changed event, at two sizes of the calendar
 * and two sizes of the host's bookings, in one run. Prints one JSON object on stdout:
 *   {"machine": {"cpu", "cpus", "os", "load"}, "events": {"small", "large", "small_ms",
 *    "large_ms", "ratio", "watched", "conflicts", "walk_small_ms", "walk_large_ms"},
 *    "bookings": {…the same but walk_*}, "bookings_in_conflict": {…}, "target_ratio": 3, "ok"}
 * small_ms / large_ms = median wall time of syncCalendarHost after one file of an ics-dir
 * calendar changed (a real directory, the real connector, the memory hold and state stores);
 * ratio = large_ms / small_ms (target ≤ 3 for both). The connector learns what changed from
 * the directory's change notifications (src/connectors/ics-dir/watch.ts): `watched` is how many
 * of the measured re-syncs were listed that way (all of them, or the number measures the full
 * walk). walk_*_ms = the same re-sync with no watcher (the fallback: one stat per file, what a
 * restart, another process's cursor or the periodic full walk costs), O(files) by design.
 * conflicts = [small, large]: the calendar-over-booking conflicts stored after the first sync.
 * The bookings case places its bookings in free time, as the gateway does (it never offers busy
 * time): no conflicts (the host of the "10,000 bookings, no conflict"). The
 * bookings_in_conflict case (reported, not under the target) places them among the events
 * regardless of the calendar, so about half conflict: every re-sync checks each conflict on a
 * day it does not lay again against the hold store (one occupancy read over their span), which
 * grows with the conflicts kept.
 * machine.load = the load average (the run is noisy on a shared host).
 * The events case: 1,000 and 10,000 single
 * events over the 31-day horizon and no bookings. The bookings case: 1,000 events and 100 or
 * 3,000 confirmed bookings, placed through the hold store directly (placeHold, beginConfirm,
 * completeConfirm) with their own events recorded in the calendar state. Progress to stderr.
 *
 *   --rounds N (default 11)  measured re-syncs per case (each after a different file changed),
 *                            after 3 unmeasured ones and a garbage collection of the setup's garbage
 *   --events | --bookings    only that case
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MemoryCalendarStateStore } from "../src/booking/calendar/state.js";
import { syncCalendarHost, type CalendarHostPlan } from "../src/booking/calendar/sync.js";
import { unitsFor } from "../src/booking/calendar/units.js";
import { ownEventId } from "../src/booking/calendar/own-events.js";
import { createIcsDirConnector } from "../src/connectors/ics-dir/connector.js";
import { MemoryHoldStore } from "../src/holds/memory/memory-store.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const ROUNDS = arg("rounds", 11);
/** Re-syncs before the measured ones (the parse worker and the code paths warm up). */
const WARMUP = 3;
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
const H = 3_600_000;
const NOW = Date.parse("2026-12-07T06:00:00Z");
const HOST = "bench-cal";
const plan: CalendarHostPlan = {
  hostId: HOST,
  timezone: "UTC",
  units: unitsFor({ resourceType: "bay", units: 3 }),
  calendars: [{ calendarId: "local" }],
  horizonMs: 31 * 24 * H,
};

const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").slice(0, 15) + "Z";
function ics(uid: string, start: number): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//bench//sync//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20261201T000000Z",
    `DTSTART:${stamp(start)}`,
    `DTEND:${stamp(start + H / 2)}`,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}
/** Event i's start: spread over the horizon, on the half hour, 07:00–19:00 UTC. */
const startOf = (i: number, version = 0) =>
  NOW + (Math.floor(i / 24) % 30) * 24 * H + H + ((i * 7 + version) % 24) * (H / 2);
const settled = new Date("2026-01-01T00:00:00Z");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * Where the bookings go. "free": from 19:00 UTC, after the calendar's events end, as the gateway
 * itself places them (it never offers busy time, so a booking conflicts only when the calendar
 * later changes under it): no conflict. "over": from 08:00 UTC, among the events, regardless of
 * the calendar: about half of them conflict.
 */
type Placement = "free" | "over";
async function bookings(store: MemoryHoldStore, state: MemoryCalendarStateStore, n: number, at: Placement) {
  for (let i = 0; i < n; i++) {
    // Each booking its own 5-minute slot: day i mod 30, then bay, then slot.
    const k = Math.floor(i / 30);
    const unit = plan.units.ids[k % plan.units.ids.length] as string;
    const from = at === "free" ? 13 * H : 2 * H;
    const s = NOW + from + (i % 30) * 24 * H + Math.floor(k / plan.units.ids.length) * 5 * 60_000;
    const holdId = `h${i}`;
    const placed = await store.placeHold({
      hostId: HOST,
      holdId,
      serviceId: "cut",
      interval: { start: s, end: s + 4 * 60_000 },
      requirements: [{ type: "bay", candidates: [{ id: unit, capacity: 1 }], units: 1 }],
      ttlMs: 600_000,
      now: NOW,
      owner: { agentKey: "bench", principal: null, mandates: [] },
      caps: { principalProven: true },
      payload: "{}",
    });
    if (!(placed as { ok: boolean }).ok) throw new Error(`hold ${i}: ${JSON.stringify(placed)}`);
    const begun = await store.beginConfirm(HOST, holdId, NOW, 60_000);
    if (!begun.ok) throw new Error(`confirm ${i}`);
    const done = await store.completeConfirm(
      HOST,
      holdId,
      begun.value.fence,
      { bookingId: `b${i}`, payload: "{}" },
      NOW,
    );
    if (!done.ok) throw new Error(`complete ${i}`);
    await state.putOwn(HOST, {
      calendarId: "local",
      eventId: ownEventId(`k${i}`),
      idempotencyKey: `k${i}`,
      serviceId: "cut",
      start: s,
      end: s + 4 * 60_000,
      resourceIds: [unit],
      summary: "bench",
      status: "confirmed",
      written: "confirmed",
      etag: "v",
      attempts: 0,
    });
  }
}

async function measure(
  events: number,
  booked: number,
  watch = true,
  at: Placement = "free",
): Promise<{ sync: number; watched: number; conflicts: number }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-sync-"));
  try {
    for (let i = 0; i < events; i++) {
      writeFileSync(join(dir, `e${i}.ics`), ics(`e${i}@bench`, startOf(i)));
      utimesSync(join(dir, `e${i}.ics`), settled, settled);
    }
    const store = new MemoryHoldStore();
    const state = new MemoryCalendarStateStore();
    await bookings(store, state, booked, at);
    let watched = 0;
    const connector = createIcsDirConnector(
      { path: dir },
      { clock: { now: () => NOW }, watch, observe: (how) => (watched += how === "watched" ? 1 : 0) },
    );
    const deps = {
      sync: connector.calendar,
      state,
      store,
      clock: { now: () => NOW },
    };
    const [first] = await syncCalendarHost(deps, plan);
    if (first?.outcome !== "complete") throw new Error(`first sync: ${JSON.stringify(first)}`);
    const conflicts = Object.values((await state.layout(HOST))?.conflicts ?? {}).flat().length;
    const times: number[] = [];
    // The setup's garbage (every file written, then all of them parsed) is not a re-sync's cost.
    collect();
    for (let r = 0; r < ROUNDS + WARMUP; r++) {
      const i = (r * 97) % events;
      const file = join(dir, `e${i}.ics`);
      writeFileSync(file, ics(`e${i}@bench`, startOf(i, r + 1)));
      const edited = new Date(settled.getTime() + (r + 1) * 1000);
      utimesSync(file, edited, edited);
      if (r === WARMUP) watched = 0;
      const t = performance.now();
      const [report] = await syncCalendarHost(deps, plan);
      const ms = performance.now() - t;
      if (report?.outcome !== "complete" || report.kind !== "incremental")
        throw new Error(`re-sync: ${JSON.stringify(report)}`);
      if (r >= WARMUP) times.push(ms);
    }
    connector.close();
    // Each measured re-sync, in order (the median hides a run disturbed by the host's load).
    process.stderr.write(`  ${times.map(r2).join(" ")} ms\n`);
    return { sync: median(times), watched, conflicts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const r2 = (x: number) => Math.round(x * 100) / 100;
async function pair(what: string, small: [number, number], large: [number, number], at: Placement = "free") {
  process.stderr.write(`${what}: ${small.join("/")} …\n`);
  const a = await measure(...small, true, at);
  process.stderr.write(`${what}: ${large.join("/")} …\n`);
  const b = await measure(...large, true, at);
  return {
    small_ms: r2(a.sync),
    large_ms: r2(b.sync),
    ratio: r2(b.sync / a.sync),
    watched: Math.min(a.watched, b.watched),
    conflicts: [a.conflicts, b.conflicts],
  };
}

/** The fallback: no watcher, so every re-sync stats every file. */
async function walked(small: [number, number], large: [number, number]) {
  process.stderr.write(`events, no watcher: ${small.join("/")} and ${large.join("/")} …\n`);
  const a = await measure(...small, false);
  const b = await measure(...large, false);
  return { walk_small_ms: r2(a.sync), walk_large_ms: r2(b.sync) };
}

const only = process.argv.includes("--bookings")
  ? "bookings"
  : process.argv.includes("--events")
    ? "events"
    : "";
const events = {
  small: 1_000,
  large: 10_000,
  ...(only !== "bookings" && {
    ...(await pair("events", [1_000, 0], [10_000, 0])),
    ...(await walked([1_000, 0], [10_000, 0])),
  }),
};
const booked = {
  small: 100,
  large: 3_000,
  ...(only !== "events" && (await pair("bookings", [1_000, 100], [1_000, 3_000]))),
};
// Not under the target: a host with half its bookings in conflict with its calendar. Each
// conflict on a day the re-sync does not lay again is checked against the hold store (one
// occupancy read over their span), so this grows with the conflicts kept, reported as such.
const inConflict = {
  small: 100,
  large: 3_000,
  ...(only !== "events" && (await pair("bookings in conflict", [1_000, 100], [1_000, 3_000], "over"))),
};
const cpu = cpus();
console.log(
  JSON.stringify({
    machine: {
      cpu: cpu[0]?.model ?? "unknown",
      cpus: cpu.length,
      os: `${platform()} ${release()}`,
      load: loadavg().map((l) => Math.round(l * 100) / 100),
    },
    events,
    bookings: booked,
    bookings_in_conflict: inConflict,
    target_ratio: 3,
    ok: [events, booked].every((c) => c.ratio === undefined || c.ratio <= 3),
  }),
);
