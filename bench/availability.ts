/**
 * npm run bench:availability — availability on a calendar host served from sync
 * (SchCP §10), against the naive way, measured in the same run on the same queries. Prints one
 * JSON object on stdout:
 *   {"queries", "slots_per_query", "p50_ms", "p99_ms", "naive_p50_ms", "naive_p99_ms",
 *    "connector_p50_ms", "ratio", "breakdown", "cpu", "upstream_calls", "sync_upstream_calls",
 *    "events", "series", "busy_occurrences", "exceptions"}
 * queries = timed queries per path; slots_per_query = starts offered, on average;
 * p50/p99 = one SchCP availability query (the core's `availability` use case: openings, the
 * calendar host connector's slots.find over the hold store, every start tested against the
 * store's allocation rule, the wire slots), after ONE real sync (runtime.syncCalendarNow) laid
 * the calendar's busy time in the hold store; the request body is written beforehand and the
 * answer's times are parsed (for the comparisons) outside the timing, as an agent would;
 * naive_* = the same query answered by expanding every event and series again (src/calendar's
 * expandEvents, the recurrence engine the sync uses), laying the busy time on the units and
 * computing the same starts; connector_p50_ms = the calendar host connector's slots.find
 * alone, asked what openings asks it (the part of p50_ms that reads the synced busy time);
 * ratio = naive_p50_ms / p50_ms (target ≥ 20);
 * breakdown = where p50_ms goes, as differences of medians measured in the same rounds:
 *   openings_p50_ms (the core's openings alone, through the direct edge: no wire slots),
 *   store_read_p50_ms (the one listOccupancy openings makes), per_start_ms (openings less the
 *   connector and that read: the plan template, hours, units in use, the per-start tests),
 *   wire_ms (p50_ms less openings: the SchCP checks around it and the wire slots);
 * cpu = the same medians in the process's CPU time (on a shared machine the wall times carry
 *   other processes' load; CPU time is what the query itself cost);
 * upstream_calls = calls to the calendar connector (sync and event writes) during the measured
 * queries (target 0); sync_upstream_calls = those of the sync itself (> 0, so the counting
 * wrapper is known to sit on the path). Progress goes to stderr.
 *
 * The host: an ics-dir calendar (a temporary directory of .ics files) in America/Toronto,
 * 5 bays, Mon–Sat 09:00–19:00, served by a real gateway runtime (memory store, no workers) with
 * a fixed clock. The calendar: 2,000 events, seeded (--seed): 1,800 single events (some
 * floating, all-day, cancelled or transparent) and 200 recurring series (daily on weekdays,
 * weekly on one or two days, fortnightly, monthly; open, ended or counted) each with EXDATEs,
 * a moved and a cancelled RECURRENCE-ID override. The queries: 3 services (one with
 * buffer_after) × 4 windows of 31 days (each from a local midnight) at PT15M, crossing the end
 * of DST. Every query's starts are compared between the two paths before timing; a difference
 * stops the bench (exit 1), as does an upstream call during the measured queries.
 *
 *   --rounds N (default 5)   measured passes over the 12 queries, the paths' order rotated
 *   --seed S (default 11)    the calendar's seed
 *   --profile FILE           after the measurement, write a V8 CPU profile of --rounds more
 *                            passes of the served path alone (open in Chrome DevTools)
 *   --only latency|throughput  run one part (default both)
 *   --redis URL              the Redis of the throughput part (default REDIS_URL, else
 *                            redis://127.0.0.1:6379); its keys get a prefix of their own, deleted
 *                            after the run
 *   --seconds S (default 2)  how long each throughput cell runs (in 6 slices taking turns with
 *                            the other store's), after a warm-up
 *   --profile-throughput P   after the throughput cells, run a 10-client cell of each store again
 *                            under the V8 profiler: P.memory.cpuprofile, P.redis.cpuprofile
 *
 * The throughput part ("throughput" in the JSON): the same host served twice in the same
 * process, once on the memory store and once on Redis (both synced once), each request being
 * what the SchCP edge does for an availability query past the signature: the agent key's
 * token bucket (runtime.rateLimiter, §7.2) and the core's availability on a one-day window
 * (the 31 days × 3 services in turn). At 1, 10 and 100 concurrent clients (one agent key
 * each), memory and Redis taking turns in short slices so drift lands on both:
 *   {"machine": {"cpu_model", "cpus"}, "memory": {"c1"|"c10"|"c100": {"requests",
 *    "cpu_ms_per_query" (this process's CPU time per request), "per_s", "p50_ms", "p99_ms"}}, "redis": {…}, "ratio_c10" (Redis per_s / memory per_s at 10
 *    clients; target ≥ 0.7), "ratios" (the same at every concurrency),
 *    "redis_commands_per_query" (commands the Redis server processed per request during the
 *    Redis cells, from INFO stats: counts every client of that server, so an upper bound on a
 *    shared one), "redis_server_cpu_ms_per_query" (the server's CPU time per request, INFO cpu:
 *    likewise an upper bound), "redis_scripts_per_query" and "redis_script_ms_per_query"
 *    (EVALSHA calls and the time the server spent in them, per request, INFO commandstats),
 *    "redis_ping_ms" (p50 and p99 of sequential PINGs before each concurrency: the round trip
 *    the machine gives, which a loaded machine stretches and the memory store never pays)}.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Session } from "node:inspector/promises";
import { parseArgs } from "node:util";
import type { HostConfig } from "../src/booking/api.js";
import { layBusyOnUnits } from "../src/booking/calendar/units.js";
import { parseHostsConfig } from "../src/booking/hosts/parse-config.js";
import { expandEvents, slotStarts, subtractIntervals, workingIntervals } from "../src/calendar/index.js";
import type { WeeklyHours } from "../src/calendar/index.js";
import type { CalendarConnector, RawCalendarEvent } from "../src/connectors/port.js";
import type { AvailabilityRequest, AvailabilityResponse } from "../src/protocol/schcp/types.js";
import { createGatewayRuntime } from "../src/gateway/runtime/runtime.js";
import { formatInstant, wallClockToInstant } from "../src/protocol/time/index.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    seed: { type: "string", default: "11" },
    profile: { type: "string" },
    "profile-throughput": { type: "string" },
    only: { type: "string" },
    redis: { type: "string" },
    seconds: { type: "string", default: "2" },
  },
});
const ONLY = values.only;
if (ONLY !== undefined && ONLY !== "latency" && ONLY !== "throughput")
  throw new Error("--only latency|throughput");
const REDIS_URL = values.redis ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const CELL_MS = Math.max(0.2, Number(values.seconds)) * 1000;
const ROUNDS = Math.max(1, Number(values.rounds));
const SEED = Number(values.seed);

const HOST = "bench-bays";
const ZONE = "America/Toronto";
const DAY = 86_400_000;
const MINUTE = 60_000;
/** Monday 12 October 2026, 08:00 in Toronto: the bench's clock, fixed. */
const NOW = Date.UTC(2026, 9, 12, 12, 0, 0);
const BASE = { year: 2026, month: 10, day: 12 };
const HORIZON_MS = 40 * DAY;
const UNITS = 5;
const SINGLES = 1800;
const SERIES = 200;
const SERVICES = [
  { id: "wash", name: "Wash", duration: "PT30M" },
  { id: "detail", name: "Detail", duration: "PT60M", buffer_after: "PT15M" },
  { id: "tyres", name: "Tyres", duration: "PT45M" },
] as const;
const SERVICE_MS: Record<string, { length: number; buffer: number }> = {
  wash: { length: 30 * MINUTE, buffer: 0 },
  detail: { length: 60 * MINUTE, buffer: 15 * MINUTE },
  tyres: { length: 45 * MINUTE, buffer: 0 },
};
const HOURS = [1, 2, 3, 4, 5, 6].map((day) => ({ day, open: "09:00", close: "19:00" }));
const STEP_MS = 15 * MINUTE;

const log = (line: string): void => void process.stderr.write(`bench:availability: ${line}\n`);

// ---- the calendar, generated deterministically ---------------------------------------------

/** mulberry32: small, seeded, good enough to spread events. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Wall {
  readonly y: number;
  readonly mo: number;
  readonly d: number;
  readonly h: number;
  readonly mi: number;
}
const pad = (n: number, w = 2) => String(n).padStart(w, "0");
/** A wall clock moved by days/months/minutes, through UTC arithmetic on the fields (no zone). */
function shift(w: Wall, by: { days?: number; months?: number; minutes?: number }): Wall {
  const t = new Date(
    Date.UTC(w.y, w.mo - 1 + (by.months ?? 0), w.d + (by.days ?? 0), w.h, w.mi + (by.minutes ?? 0)),
  );
  return {
    y: t.getUTCFullYear(),
    mo: t.getUTCMonth() + 1,
    d: t.getUTCDate(),
    h: t.getUTCHours(),
    mi: t.getUTCMinutes(),
  };
}
const stamp = (w: Wall) => `${w.y}${pad(w.mo)}${pad(w.d)}T${pad(w.h)}${pad(w.mi)}00`;
const dateOnly = (w: Wall) => `${w.y}${pad(w.mo)}${pad(w.d)}`;
const weekday = (w: Wall) =>
  ["SU", "MO", "TU", "WE", "TH", "FR", "SA"][new Date(Date.UTC(w.y, w.mo - 1, w.d)).getUTCDay()]!;
const local = (w: Wall) => `;TZID=${ZONE}:${stamp(w)}`;
const base = (days: number, h: number, mi: number): Wall =>
  shift({ y: BASE.year, mo: BASE.month, d: BASE.day, h, mi }, { days });
/** Days from BASE (fractional days ignored: the wall clock's date). */
const dayOf = (w: Wall) =>
  Math.round((Date.UTC(w.y, w.mo - 1, w.d) - Date.UTC(BASE.year, BASE.month - 1, BASE.day)) / DAY);

function vcalendar(events: string[][]): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//booking-gateway//bench//EN",
    ...events.flatMap((e) => ["BEGIN:VEVENT", ...e, "DTSTAMP:20261001T000000Z", "END:VEVENT"]),
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

function singleEvent(i: number, r: () => number): string {
  const start = base(Math.floor(r() * 190) - 150, 7 + Math.floor(r() * 13), 15 * Math.floor(r() * 4));
  const end = shift(start, { minutes: 15 * (1 + Math.floor(r() * 8)) });
  const lines = [`UID:single-${i}@bench`, `SUMMARY:Appointment ${i}`];
  const form = r();
  if (form < 0.01) {
    lines.push(
      `DTSTART;VALUE=DATE:${dateOnly(start)}`,
      `DTEND;VALUE=DATE:${dateOnly(shift(start, { days: 1 }))}`,
    );
  } else if (form < 0.11) {
    lines.push(`DTSTART:${stamp(start)}`, `DTEND:${stamp(end)}`); // floating: the host's zone
  } else {
    lines.push(`DTSTART${local(start)}`, `DTEND${local(end)}`);
  }
  const status = r();
  if (status < 0.03) lines.push("STATUS:CANCELLED");
  else if (status < 0.08) lines.push("TRANSP:TRANSPARENT");
  return vcalendar([lines]);
}

/** What the generated series hold, for the report (filled by seriesEvent). */
const exceptions = { exdates: 0, moved: 0, cancelled: 0, in_horizon: 0 };

type Kind = "weekdays" | "weekly" | "twice-weekly" | "fortnightly" | "monthly";

function seriesEvent(i: number, r: () => number): string {
  const pick = r();
  const kind: Kind =
    pick < 0.15
      ? "weekdays"
      : pick < 0.6
        ? "weekly"
        : pick < 0.8
          ? "twice-weekly"
          : pick < 0.9
            ? "fortnightly"
            : "monthly";
  let start = base(Math.floor(r() * 130) - 120, 7 + Math.floor(r() * 12), 15 * Math.floor(r() * 4));
  if (kind === "monthly" && start.d > 28) start = { ...start, d: 28 };
  if (kind === "weekdays" && (weekday(start) === "SA" || weekday(start) === "SU"))
    start = shift(start, { days: 2 });
  const minutes = [30, 45, 60, 90][Math.floor(r() * 4)]!;
  // Occurrence k (k ≥ 0) lies at a whole number of weeks or months from DTSTART for every kind.
  const occurrence = (k: number): Wall =>
    kind === "monthly"
      ? shift(start, { months: k })
      : shift(start, { days: (kind === "fortnightly" ? 14 : 7) * k });
  const counted = kind === "weekly" || kind === "fortnightly" || kind === "monthly";
  let rule: string;
  let lastK: number; // the last k that is an occurrence (inclusive)
  const ending = r();
  if (ending < 0.25) {
    const until = base(-1 - Math.floor(r() * 30), 23, 59);
    rule = `UNTIL=${stamp(until)}Z`;
    lastK = 0;
    while (dayOf(occurrence(lastK + 1)) < dayOf(until)) lastK++;
  } else if (ending < 0.45 && counted) {
    const count = 10 + Math.floor(r() * 30);
    rule = `COUNT=${count}`;
    lastK = count - 1;
  } else {
    rule = "";
    lastK = Infinity;
  }
  const freq = {
    weekdays: "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
    weekly: "FREQ=WEEKLY",
    "twice-weekly": `FREQ=WEEKLY;BYDAY=${weekday(start)},${weekday(shift(start, { days: 2 + Math.floor(r() * 3) }))}`,
    fortnightly: "FREQ=WEEKLY;INTERVAL=2",
    monthly: "FREQ=MONTHLY",
  }[kind];
  const uid = `series-${i}@bench`;
  const end = (w: Wall) => shift(w, { minutes });
  // Exceptions on instances within the horizon when the series reaches it, else in its past.
  const ks: number[] = [];
  for (let k = 1; k <= Math.min(lastK, 200); k++) if (dayOf(occurrence(k)) > -150) ks.push(k);
  const ahead = ks.filter((k) => dayOf(occurrence(k)) >= 1 && dayOf(occurrence(k)) <= 36);
  const pool = ahead.length >= 4 ? ahead : ks;
  const chosen: number[] = [];
  while (chosen.length < Math.min(4, pool.length)) {
    const k = pool[Math.floor(r() * pool.length)]!;
    if (!chosen.includes(k)) chosen.push(k);
  }
  const [exA, exB, moved, cancelled] = chosen;
  exceptions.exdates += [exA, exB].filter((k) => k !== undefined).length;
  exceptions.moved += moved === undefined ? 0 : 1;
  exceptions.cancelled += cancelled === undefined ? 0 : 1;
  exceptions.in_horizon += chosen.filter((k) => pool === ahead && dayOf(occurrence(k)) >= 1).length;
  const master = [
    `UID:${uid}`,
    `SUMMARY:Series ${i}`,
    `DTSTART${local(start)}`,
    `DTEND${local(end(start))}`,
    `RRULE:${freq}${rule === "" ? "" : `;${rule}`}`,
    ...[exA, exB].flatMap((k) => (k === undefined ? [] : [`EXDATE${local(occurrence(k))}`])),
  ];
  const overrides: string[][] = [];
  if (moved !== undefined) {
    const was = occurrence(moved);
    const to = r() < 0.5 ? shift(was, { minutes: 60 * (1 + Math.floor(r() * 3)) }) : shift(was, { days: 1 });
    overrides.push([
      `UID:${uid}`,
      `SUMMARY:Series ${i} (moved)`,
      `RECURRENCE-ID${local(was)}`,
      `DTSTART${local(to)}`,
      `DTEND${local(end(to))}`,
    ]);
  }
  if (cancelled !== undefined) {
    const was = occurrence(cancelled);
    overrides.push([
      `UID:${uid}`,
      `SUMMARY:Series ${i} (cancelled)`,
      `RECURRENCE-ID${local(was)}`,
      `DTSTART${local(was)}`,
      `DTEND${local(end(was))}`,
      "STATUS:CANCELLED",
    ]);
  }
  return vcalendar([master, ...overrides]);
}

function writeCalendar(dir: string): void {
  const r = prng(SEED);
  for (let i = 0; i < SERIES; i++) writeFileSync(join(dir, `series-${i}.ics`), seriesEvent(i, r));
  for (let i = 0; i < SINGLES; i++) writeFileSync(join(dir, `single-${i}.ics`), singleEvent(i, r));
}

// ---- the host and its connector, counted -----------------------------------------------------

function hostConfig(calendarDir: string): HostConfig {
  const parsed = parseHostsConfig({
    hosts: [
      {
        id: HOST,
        name: "Bench bays",
        kind: "business",
        timezone: ZONE,
        connector: { type: "ics-dir", settings: { path: calendarDir } },
        policies: { horizon: "P40D" },
        calendar: {
          capacity: { resource_type: "bay", units: UNITS },
          hours: HOURS,
          services: SERVICES,
          granularity: "PT15M",
          approver: { email: "bench@example.com" },
        },
      },
    ],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value[0]!;
}

/**
 * Counts every call to the calendar connector. The runtime holds this very object (the host
 * connector, the sync and the event writer all reach the calendar through it), so its methods
 * are wrapped in place: whichever path calls the calendar is counted.
 */
function countCalls(connector: CalendarConnector): { readonly calls: () => number; reset(): void } {
  let calls = 0;
  const wrap = (port: Record<string, unknown>) => {
    for (const [name, fn] of Object.entries(port)) {
      if (typeof fn !== "function") continue;
      port[name] = (...args: unknown[]) => {
        calls++;
        return (fn as (...a: unknown[]) => unknown).apply(port, args);
      };
    }
  };
  wrap(connector.calendar as unknown as Record<string, unknown>);
  wrap(connector.events as unknown as Record<string, unknown>);
  return { calls: () => calls, reset: () => void (calls = 0) };
}

// ---- the queries and the naive answer -------------------------------------------------------

interface Query {
  readonly serviceId: string;
  readonly start: number;
  readonly end: number;
}

function queries(): Query[] {
  const out: Query[] = [];
  for (const offset of [1, 2, 3, 4]) {
    const midnight = wallClockToInstant(
      { ...shiftDate(offset), hour: 0, minute: 0, second: 0, millisecond: 0 },
      ZONE,
      "compatible",
    );
    if (!midnight.ok) throw new Error("no local midnight");
    for (const s of SERVICES)
      out.push({ serviceId: s.id, start: midnight.value, end: midnight.value + 31 * DAY });
  }
  return out;
}
function shiftDate(days: number) {
  const w = base(days, 0, 0);
  return { year: w.y, month: w.mo, day: w.d };
}

/**
 * The naive answer: every event and series expanded again (from the clock to the horizon, as
 * the sync does, so events are laid on the same units), then the starts the core would offer:
 * on the PT15M grid from local midnight, not past, ending in the window, fitting whole
 * (buffer included) in a unit's working hours minus its busy time.
 */
function naiveStarts(
  events: readonly RawCalendarEvent[],
  host: { readonly units: readonly string[]; readonly hours: WeeklyHours },
  q: Query,
): number[] {
  const { units, hours } = host;
  const expanded = expandEvents(events, { from: NOW, to: NOW + HORIZON_MS, floatingZone: ZONE });
  if (!expanded.complete) throw new Error("the naive expansion hit its bound");
  const busy = expanded.occurrences
    .filter((o) => o.status !== "CANCELLED" && !o.transparent)
    .map((o) => ({ start: o.start, end: o.end }));
  const laid = layBusyOnUnits({ resourceType: "bay", ids: units }, busy);
  const { length, buffer } = SERVICE_MS[q.serviceId]!;
  const first = Math.max(q.start, NOW);
  const last = Math.min(q.end - length + 1, NOW + HORIZON_MS - length);
  const working = workingIntervals(hours, ZONE, { start: first, end: last + length + buffer });
  const starts = new Set<number>();
  for (const unit of units) {
    for (const s of slotStarts(subtractIntervals(working, laid.get(unit) ?? []), {
      duration: length,
      buffer,
      granularity: STEP_MS,
      anchor: q.start,
      now: first,
    })) {
      if (s < last) starts.add(s);
    }
  }
  return [...starts].sort((a, b) => a - b);
}

/** A CPU profile of the served path alone, sampled every 100 µs. */
async function profileServed(
  file: string,
  served: (q: Query) => Promise<unknown>,
  qs: readonly Query[],
): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  for (let round = 0; round < ROUNDS; round++) for (const q of qs) await served(q);
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  log(`profile of the served path written to ${file}`);
}

// ---- the run --------------------------------------------------------------------------------

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const round = (ms: number) => Math.round(ms * 1000) / 1000;

const clock = { now: () => NOW };
const quiet = { info: () => {}, warn: () => {}, error: (m: string) => log(`gateway error: ${m}`) };

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-availability-"));
  const calendarDir = join(dataDir, "calendar");
  try {
    mkdirSync(calendarDir);
    writeCalendar(calendarDir);
    const config = hostConfig(calendarDir);
    const out: Record<string, unknown> = ONLY === "throughput" ? {} : await latency(config, dataDir);
    if (ONLY !== "latency") out.throughput = await throughput(config, dataDir);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The latency part: one query at a time, served against naive (the fields above). */
async function latency(config: HostConfig, dataDir: string): Promise<Record<string, unknown>> {
  {
    const runtime = await createGatewayRuntime({
      hosts: [config],
      publicOrigin: "https://gateway.bench",
      dataDir,
      logger: quiet,
      workers: false,
      clock,
    });
    try {
      const handle = runtime.calendarHosts.find((h) => h.hostId === HOST);
      if (handle === undefined) throw new Error("the calendar host was not built");
      const host = { units: handle.plan.units.ids, hours: handle.section.hours };
      const counter = countCalls(handle.calendar);

      // The real sync, once: the calendar's busy time into the hold store.
      if (!(await runtime.syncCalendarNow(HOST))) throw new Error("not a calendar host");
      const sync = await runtime.upstreams?.calendar(HOST);
      const report = sync?.reports[0];
      if (report?.outcome !== "complete") throw new Error(`sync: ${JSON.stringify(report)}`);
      const syncCalls = counter.calls();
      log(
        `synced ${report.events} event files, ${report.busy} busy occurrences, ${syncCalls} calendar calls`,
      );

      // The naive path's input: the raw events, read once here (not during any query).
      const read = await handle.calendar.calendar.sync({
        calendarId: handle.plan.calendars[0]!.calendarId,
        window: { start: NOW, end: NOW + HORIZON_MS },
      });
      if (!read.ok) throw new Error(read.error.message);
      const events = read.value.events;
      const series = new Set(events.filter((e) => e.rrule !== undefined).map((e) => e.uid)).size;

      const caller = { agentKey: "bench-agent" };
      // The agent's request, as it arrives (written once per query, outside the timings).
      const bodies = new Map<Query, AvailabilityRequest>();
      const body = (q: Query): AvailabilityRequest => {
        let b = bodies.get(q);
        if (b === undefined) {
          b = {
            service_id: q.serviceId,
            window: { start: formatInstant(q.start), end: formatInstant(q.end) },
            constraints: { granularity: "PT15M" },
          };
          bodies.set(q, b);
        }
        return b;
      };
      /** One SchCP availability query: what p50_ms times. */
      const ask = async (q: Query): Promise<AvailabilityResponse> => {
        const answer = await runtime.service.availability(HOST, caller, body(q));
        if (!answer.ok) throw new Error(`availability refused: ${JSON.stringify(answer.error)}`);
        return answer.value;
      };
      /** Its starts as instants, for the comparisons (reading the wire times is the agent's work). */
      const served = async (q: Query): Promise<number[]> =>
        (await ask(q)).slots.map((s) => Date.parse(s.start));

      // Both paths must give the same starts, for every query (this also warms both up).
      const qs = queries();
      let slots = 0;
      for (const q of qs) {
        const a = await served(q);
        const b = naiveStarts(events, host, q);
        if (a.length !== b.length || a.some((s, i) => s !== b[i])) {
          const firstDiff = a.findIndex((s, i) => s !== b[i]);
          throw new Error(
            `${q.serviceId} from ${formatInstant(q.start)}: served ${a.length} starts, naive ${b.length}; ` +
              `first difference at ${firstDiff}: ${a[firstDiff]} vs ${b[firstDiff]}`,
          );
        }
        slots += a.length;
      }
      log(`${qs.length} queries agree (${slots} starts in all); ${ROUNDS} measured rounds`);
      for (const q of qs) await served(q); // a second warm-up pass of the served path

      // The calendar host connector alone, asked what openings asks it (a part of p50_ms).
      const connector = runtime.hosts.get(HOST)?.connector;
      if (connector === undefined) throw new Error("no host runtime");
      const upstreamStarts = async (q: Query): Promise<void> => {
        const { length } = SERVICE_MS[q.serviceId]!;
        const range = { start: Math.max(q.start, NOW), end: Math.min(q.end - length + 1, NOW + HORIZON_MS) };
        const found = await connector.slots.find({ serviceId: q.serviceId, range, partySize: 1 });
        if (!found.ok) throw new Error(found.error.message);
      };

      // The core's openings alone (the use case every edge shares, here through the direct edge:
      // no wire slots), and the one store read it makes: parts of p50_ms, for the breakdown.
      const directStarts = async (q: Query): Promise<number[]> => {
        const { length } = SERVICE_MS[q.serviceId]!;
        const answer = await runtime.service.openings(HOST, caller, {
          serviceId: q.serviceId,
          range: { start: q.start, end: q.end - length + 1 },
          partySize: 1,
        });
        if (!answer.ok) throw new Error(`openings refused: ${JSON.stringify(answer.error)}`);
        return answer.value.map((o) => o.start);
      };
      const storeRead = async (q: Query): Promise<void> => {
        const { length, buffer } = SERVICE_MS[q.serviceId]!;
        const first = Math.max(q.start, NOW);
        const last = Math.min(q.end - length + 1, NOW + HORIZON_MS);
        await runtime.store.listOccupancy(
          HOST,
          host.units,
          { start: first, end: last + length + buffer },
          NOW,
        );
      };
      for (const q of qs) {
        const a = await served(q);
        const b = await directStarts(q);
        if (a.length !== b.length || a.some((s, i) => s !== b[i]))
          throw new Error(`${q.serviceId}: the direct openings differ from the served starts`);
      }

      counter.reset();
      // Per path: wall time of each query, and the process's CPU time over it (the machine may be
      // shared: CPU time is what the query itself cost, whatever else ran).
      const paths = {
        served: ask,
        naive: (q: Query) => naiveStarts(events, host, q),
        connector: upstreamStarts,
        openings: directStarts,
        store: storeRead,
      } as const;
      const names = Object.keys(paths) as Array<keyof typeof paths>;
      const wall = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<
        keyof typeof paths,
        number[]
      >;
      const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<
        keyof typeof paths,
        number[]
      >;
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, q] of qs.entries()) {
          // Rotate which path goes first, so drift lands on all of them.
          for (let k = 0; k < names.length; k++) {
            const name = names[(round + i + k) % names.length]!;
            const c0 = process.cpuUsage();
            const t0 = performance.now();
            await paths[name](q);
            wall[name].push(performance.now() - t0);
            const c = process.cpuUsage(c0);
            cpu[name].push((c.user + c.system) / 1000);
          }
        }
      }
      const upstreamCalls = counter.calls();
      if (values.profile !== undefined) await profileServed(values.profile, ask, qs);

      for (const xs of [...Object.values(wall), ...Object.values(cpu)]) xs.sort((a, b) => a - b);
      const p50 = percentile(wall.served, 50);
      const naiveP50 = percentile(wall.naive, 50);
      const openingsP50 = percentile(wall.openings, 50);
      const connectorP50 = percentile(wall.connector, 50);
      const storeP50 = percentile(wall.store, 50);
      const cpuP50 = (n: keyof typeof paths) => round(percentile(cpu[n], 50));
      const result = {
        queries: wall.served.length,
        slots_per_query: Math.round(slots / qs.length),
        p50_ms: round(p50),
        p99_ms: round(percentile(wall.served, 99)),
        naive_p50_ms: round(naiveP50),
        naive_p99_ms: round(percentile(wall.naive, 99)),
        connector_p50_ms: round(connectorP50),
        ratio: Math.round((naiveP50 / p50) * 10) / 10,
        breakdown: {
          openings_p50_ms: round(openingsP50),
          store_read_p50_ms: round(storeP50),
          per_start_ms: round(openingsP50 - connectorP50 - storeP50),
          wire_ms: round(p50 - openingsP50),
        },
        cpu: {
          p50_ms: cpuP50("served"),
          naive_p50_ms: cpuP50("naive"),
          ratio: Math.round((percentile(cpu.naive, 50) / percentile(cpu.served, 50)) * 10) / 10,
          openings_p50_ms: cpuP50("openings"),
          connector_p50_ms: cpuP50("connector"),
          store_read_p50_ms: cpuP50("store"),
        },
        upstream_calls: upstreamCalls,
        sync_upstream_calls: syncCalls,
        events: SINGLES + SERIES,
        series,
        busy_occurrences: report.busy,
        exceptions,
      };
      if (upstreamCalls !== 0) {
        log(`FAIL: ${upstreamCalls} calendar calls during the measured queries`);
        process.exitCode = 1;
      }
      return result;
    } finally {
      await runtime.close();
    }
  }
}

// ---- throughput: memory against Redis, at 1, 10 and 100 clients ------------------------------

const CONCURRENCY = [1, 10, 100] as const;

/** Each throughput cell is measured in this many slices, memory and Redis taking turns. */
const SLICES = 6;
const WARM_MS = Math.min(500, CELL_MS / 4);

interface Slice {
  readonly times: number[];
  readonly elapsed: number;
  readonly cpuMs: number;
}

interface Cell {
  requests: number;
  /** This process's CPU time per request (the Redis server's is not in it). */
  cpu_ms_per_query: number;
  per_s: number;
  p50_ms: number;
  p99_ms: number;
}

/** One-day windows over the 31 days, each service in turn: what an agent usually asks. */
function dayQueries(): Query[] {
  const out: Query[] = [];
  for (let d = 1; d <= 31; d++) {
    const midnight = wallClockToInstant(
      { ...shiftDate(d), hour: 0, minute: 0, second: 0, millisecond: 0 },
      ZONE,
      "compatible",
    );
    if (!midnight.ok) throw new Error("no local midnight");
    const s = SERVICES[d % SERVICES.length]!;
    out.push({ serviceId: s.id, start: midnight.value, end: midnight.value + DAY });
  }
  return out;
}

async function throughput(config: HostConfig, dataDir: string): Promise<Record<string, unknown>> {
  const { Redis } = await import("ioredis");
  const prefix = `bench-avail-${process.pid}-${Date.now()}:`;
  const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  // A bucket no bench client empties: the limiter's cost is measured, not its refusals.
  const availabilityRate = { capacity: 1_000_000, refillPerSec: 1_000_000 };
  const open = (redisUrl?: string) =>
    createGatewayRuntime({
      hosts: [config],
      publicOrigin: "https://gateway.bench",
      dataDir,
      logger: quiet,
      workers: false,
      clock,
      availabilityRate,
      ...(redisUrl !== undefined && { redisUrl, redisKeyPrefix: prefix }),
    });
  const memory = await open();
  let redis: Awaited<ReturnType<typeof open>> | undefined;
  try {
    redis = await open(REDIS_URL);
    const qs = dayQueries();
    const bodies = qs.map((q): AvailabilityRequest => ({
      service_id: q.serviceId,
      window: { start: formatInstant(q.start), end: formatInstant(q.end) },
      constraints: { granularity: "PT15M" },
    }));
    const stores = { memory, redis } as const;
    const slotsSeen: Record<string, number> = {};
    for (const [name, rt] of Object.entries(stores)) {
      if (!(await rt.syncCalendarNow(HOST))) throw new Error("not a calendar host");
      // Both stores must answer alike before either is timed.
      let slots = 0;
      for (const b of bodies) {
        const a = await rt.service.availability(HOST, { agentKey: "bench-check" }, b);
        if (!a.ok) throw new Error(`${name}: availability refused: ${JSON.stringify(a.error)}`);
        slots += a.value.slots.length;
      }
      slotsSeen[name] = slots;
    }
    if (slotsSeen.memory !== slotsSeen.redis)
      throw new Error(`memory offers ${slotsSeen.memory} starts, Redis ${slotsSeen.redis}`);
    log(`throughput: ${qs.length} one-day queries agree on both stores (${slotsSeen.memory} starts)`);

    /** What the edge does per availability query past the signature: the bucket, then the core. */
    const request = async (rt: typeof memory, agentKey: string, k: number): Promise<void> => {
      const taken = await rt.rateLimiter.take(agentKey, Date.now());
      if (!taken.ok) throw new Error("the bench's bucket refused a request");
      const a = await rt.service.availability(HOST, { agentKey }, bodies[k % bodies.length]!);
      if (!a.ok) throw new Error(`availability refused: ${JSON.stringify(a.error)}`);
    };
    /** `clients` loops of requests for `ms`: their times, the wall time and this process's CPU. */
    const slice = async (rt: typeof memory, clients: number, ms: number): Promise<Slice> => {
      const times: number[] = [];
      const until = performance.now() + ms;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          const key = `bench-agent-${clients}-${c}`;
          while (performance.now() < until) {
            const s = performance.now();
            await request(rt, key, next++);
            times.push(performance.now() - s);
          }
        }),
      );
      const c = process.cpuUsage(c0);
      return { times, elapsed: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
    };
    const cellOf = (slices: readonly Slice[]): Cell => {
      const times = slices.flatMap((x) => x.times).sort((a, b) => a - b);
      const elapsed = slices.reduce((sum, x) => sum + x.elapsed, 0);
      const cpuMs = slices.reduce((sum, x) => sum + x.cpuMs, 0);
      return {
        requests: times.length,
        cpu_ms_per_query: round(cpuMs / Math.max(1, times.length)),
        per_s: Math.round((times.length / elapsed) * 1000),
        p50_ms: round(percentile(times, 50)),
        p99_ms: round(percentile(times, 99)),
      };
    };
    const cell = async (rt: typeof memory, clients: number, ms: number): Promise<Cell> =>
      cellOf([await slice(rt, clients, ms)]);
    const commands = async () =>
      Number(/total_commands_processed:(\d+)/.exec(await admin.info("stats"))?.[1] ?? NaN);
    /** The server's own accounting: its CPU seconds, and time spent in scripts (EVALSHA). */
    const serverTime = async () => {
      const info = await admin.info("all");
      const num = (re: RegExp) => Number(re.exec(info)?.[1] ?? NaN);
      return {
        cpuMs: (num(/used_cpu_user:([\d.]+)/) + num(/used_cpu_sys:([\d.]+)/)) * 1000,
        scriptUs: num(/cmdstat_evalsha:calls=\d+,usec=(\d+)/),
        scripts: num(/cmdstat_evalsha:calls=(\d+)/),
      };
    };

    const result = {
      memory: {} as Record<string, Cell>,
      redis: {} as Record<string, Cell>,
    };
    let redisRequests = 0;
    let redisCommands = 0;
    const server = { cpuMs: 0, scriptUs: 0, scripts: 0 };
    const pings: number[] = [];
    for (const clients of CONCURRENCY) {
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        await admin.ping();
        pings.push(performance.now() - t);
      }
      const slices: Record<"memory" | "redis", Slice[]> = { memory: [], redis: [] };
      for (const name of ["memory", "redis"] as const) await slice(stores[name], clients, WARM_MS);
      // Memory and Redis take turns in short slices (who goes first alternating), so a change in
      // the machine's load lands on both rather than on whichever cell ran then.
      for (let k = 0; k < SLICES; k++) {
        for (const name of k % 2 === 0 ? (["memory", "redis"] as const) : (["redis", "memory"] as const)) {
          const rt = stores[name];
          const before = name === "redis" ? await commands() : 0;
          const t0 = name === "redis" ? await serverTime() : undefined;
          const measured = await slice(rt, clients, CELL_MS / SLICES);
          if (t0 !== undefined) {
            const t1 = await serverTime();
            server.cpuMs += t1.cpuMs - t0.cpuMs;
            server.scriptUs += t1.scriptUs - t0.scriptUs;
            server.scripts += t1.scripts - t0.scripts;
            redisCommands += (await commands()) - before - 2;
            redisRequests += measured.times.length;
          }
          slices[name].push(measured);
        }
      }
      for (const name of ["memory", "redis"] as const) {
        const measured = cellOf(slices[name]);
        result[name][`c${clients}`] = measured;
        log(`throughput ${name} at ${clients} clients: ${measured.per_s}/s, p50 ${measured.p50_ms} ms`);
      }
    }
    const profileAt = values["profile-throughput"];
    if (profileAt !== undefined) {
      for (const name of ["memory", "redis"] as const) {
        const session = new Session();
        session.connect();
        await session.post("Profiler.enable");
        await session.post("Profiler.setSamplingInterval", { interval: 100 });
        await session.post("Profiler.start");
        const profiled = await cell(stores[name], 10, CELL_MS);
        const { profile } = await session.post("Profiler.stop");
        writeFileSync(`${profileAt}.${name}.cpuprofile`, JSON.stringify(profile));
        session.disconnect();
        log(
          `profile of ${name} at 10 clients (${profiled.per_s}/s) written to ${profileAt}.${name}.cpuprofile`,
        );
      }
    }
    const ratios = Object.fromEntries(
      CONCURRENCY.map((c) => [
        `c${c}`,
        Math.round((result.redis[`c${c}`]!.per_s / result.memory[`c${c}`]!.per_s) * 100) / 100,
      ]),
    );
    const cpu = cpus();
    return {
      machine: { cpu_model: cpu[0]?.model ?? "unknown", cpus: cpu.length },
      window_days: 1,
      ...result,
      ratio_c10: ratios.c10,
      ratios,
      redis_commands_per_query: Math.round((redisCommands / Math.max(1, redisRequests)) * 100) / 100,
      redis_ping_ms: ((sorted) => ({
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
      }))(pings.sort((a, b) => a - b)),
      redis_server_cpu_ms_per_query: round(server.cpuMs / Math.max(1, redisRequests)),
      redis_scripts_per_query: Math.round((server.scripts / Math.max(1, redisRequests)) * 100) / 100,
      redis_script_ms_per_query: round(server.scriptUs / 1000 / Math.max(1, redisRequests)),
    };
  } finally {
    await memory.close();
    await redis?.close();
    // Only this run's keys: the server may be shared.
    let cursor = "0";
    do {
      const [next, keys] = await admin.scan(cursor, "MATCH", `*${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await admin.del(...keys);
    } while (cursor !== "0");
    admin.disconnect();
  }
}

main().catch((e: unknown) => {
  log(`FAIL: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exitCode = 1;
});
