/**
 * Every case in fixtures/recurrence (R01…, driven from the directory listing, so a new case is
 * picked up) as a test of expandIcs: the expected starts in the case's window, the expected
 * statuses and ends, every entry of `checks` (the source repo's own assertions, read from their
 * query text), and the extra calendars. A check or field this file cannot read fails the test
 * rather than passing unread. SUMMARY is not part of an occurrence, so expected_summary /
 * expected_last_summary are checked through the counts they come with only.
 */
import { describe, expect, it } from "vitest";
import { busyIntervals, expandIcs, type IcsExpansion } from "../../../src/calendar/index.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import {
  caseFiles,
  caseZone,
  dayWindow,
  expectedKey,
  instantIn,
  KNOWN_FIELDS,
  readCalendar,
  readCase,
  rfc3339In,
  type RecurrenceCase,
} from "./fixture-cases.js";

const FAR_PAST = "1900-01-01T00:00:00Z";
const FAR_FUTURE = "2200-01-01T00:00:00Z";

interface Ctx {
  readonly ics: string;
  readonly zone: string;
}

const expand = (ctx: Ctx, from: string, to: string): IcsExpansion =>
  expandIcs(ctx.ics, { from, to, floatingZone: ctx.zone });

/** An occurrence's start as expectedKey writes it. */
const keyOf = (ctx: Ctx, o: { start: string; allDay: boolean }): string =>
  o.allDay ? `date ${formatInstant(Date.parse(o.start), ctx.zone).slice(0, 10)}` : o.start;

const local = (ctx: Ctx, instant: string): string => formatInstant(Date.parse(instant), ctx.zone);

/** A python-recurring-ical-events argument: '20240901T000000Z', (2017,1,1), date(2020,1,13), 2023. */
function argStart(ctx: Ctx, arg: string): string {
  const a = arg.trim().replace(/^'|'$/g, "");
  const basic = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(a);
  if (basic !== null) return `${basic[1]}-${basic[2]}-${basic[3]}T${basic[4]}:${basic[5]}:${basic[6]}Z`;
  if (/(Z|[+-]\d{2}:\d{2})$/.test(a)) return formatInstant(Date.parse(a));
  return dayWindow(a, ctx.zone).from;
}

function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  return [...out, cur].map((s) => s.trim());
}

/** The function name and argument text of "name(args)…", parentheses balanced. */
function callOf(query: string): [string, string, string] | undefined {
  const m = /^(\w+)\(/.exec(query);
  if (m === null) return undefined;
  let depth = 0;
  for (let i = m[0].length - 1; i < query.length; i++) {
    if (query[i] === "(") depth++;
    if (query[i] === ")" && --depth === 0) return [m[1]!, m[1]!, query.slice(m[0].length, i)];
  }
  return undefined;
}

/** The window a check's query asks about, or "throws" for an inverted one. */
function windowOf(ctx: Ctx, check: Record<string, unknown>): { from: string; to: string } {
  if (typeof check["window_start"] === "string" && typeof check["window_end"] === "string")
    return { from: rfc3339In(check["window_start"], ctx.zone), to: rfc3339In(check["window_end"], ctx.zone) };
  if (typeof check["instant"] === "string") {
    const t = Date.parse(check["instant"]);
    return { from: formatInstant(t), to: formatInstant(t + 1) };
  }
  if (typeof check["day"] === "string") return dayWindow(check["day"], ctx.zone);
  const query = String(check["query"]);
  const call = callOf(query);
  if (call === undefined) throw new Error(`uninterpreted query ${query}`);
  const args = splitArgs(call[2]);
  switch (call[1]) {
    case "at": {
      const a = args.join(",").replace(/^'|'$/g, "");
      if (/^\d{4}$/.test(a)) return dayWindow(`(${a})`, ctx.zone);
      if (/^\d{8}$/.test(a) || a.startsWith("(")) return dayWindow(a, ctx.zone);
      throw new Error(`uninterpreted at() ${query}`);
    }
    case "between":
      return { from: argStart(ctx, args[0]!), to: argStart(ctx, args[1]!) };
    case "after":
      return { from: argStart(ctx, args[0]!), to: FAR_FUTURE };
    default:
      return { from: FAR_PAST, to: FAR_FUTURE };
  }
}

const IGNORED = new Set([
  "query",
  "window_start",
  "window_end",
  "day",
  "instant",
  "expected_summary",
  "expected_last_summary",
]);

function runCheck(ctx: Ctx, check: Record<string, unknown>): void {
  const query = typeof check["query"] === "string" ? check["query"] : "";
  if (Array.isArray(check["days"])) {
    for (const day of check["days"] as string[])
      runCheck(ctx, { day, expected_count: check["expected_count_each"] });
    return;
  }
  const w = windowOf(ctx, check);
  if (Date.parse(w.from) >= Date.parse(w.to)) {
    // The source library answers an inverted range with nothing; expandIcs refuses it.
    expect(check["expected_count"], query).toBe(0);
    expect(() => expand(ctx, w.from, w.to)).toThrow(RangeError);
    return;
  }
  const r = expand(ctx, w.from, w.to);
  const occ = r.occurrences;
  const first = occ[0];
  for (const [field, value] of Object.entries(check)) {
    if (IGNORED.has(field)) continue;
    switch (field) {
      case "expected_count":
        expect(occ.length, query).toBe(value);
        break;
      case "expected_starts":
      case "derived_starts": {
        if (typeof value === "string") break; // prose ("each end minus 3h"), checked through expected_ends
        const want = (value as string[]).map((s) => expectedKey(s, ctx.zone));
        const got = occ.map((o) => keyOf(ctx, o));
        expect(query.startsWith("paginate") ? got.slice(0, want.length) : got, query).toEqual(want);
        break;
      }
      case "expected_ends": {
        const want = (value as string[]).map((s) => formatInstant(instantIn(s, ctx.zone)));
        expect(
          occ.slice(0, want.length).map((o) => o.end),
          query,
        ).toEqual(want);
        break;
      }
      case "expected_start_hour":
        expect(Number(local(ctx, first!.start).slice(11, 13)), query).toBe(value);
        break;
      case "expected_start":
        expect(first?.start, query).toBe(formatInstant(instantIn(String(value), ctx.zone)));
        break;
      case "expected_end":
        expect(first?.end, query).toBe(formatInstant(instantIn(String(value), ctx.zone)));
        break;
      case "expected_recurrence_id":
        expect(first?.recurrenceId, query).toBe(formatInstant(instantIn(String(value), ctx.zone)));
        break;
      case "expected": {
        // "2015-09-01T08:00:00 (floating)": the first occurrence's RECURRENCE-ID.
        const floatingValue = String(value).replace(/\s*\(floating\)$/, "");
        expect(first?.recurrenceId, query).toBe(formatInstant(instantIn(floatingValue, ctx.zone)));
        break;
      }
      case "expected_STATUS":
        expect(first, query).toBeDefined();
        expect(first!.status, query).toBe(value);
        break;
      case "expected_TRANSP":
        expect(first?.transparent, query).toBe(value === "TRANSPARENT");
        break;
      case "expected_start_time":
        expect(local(ctx, first!.start).slice(11, 16), query).toBe(value);
        break;
      case "expected_end_time":
        expect(local(ctx, first!.end).slice(11, 16), query).toBe(value);
        break;
      case "start_dates_must_include": {
        const dates = occ.map((o) => local(ctx, o.start).slice(0, 10));
        for (const d of value as string[]) expect(dates, query).toContain(d);
        break;
      }
      default:
        throw new Error(`check field ${field} of ${query} is not interpreted by this test`);
    }
  }
}

/** Busy expectations stated in prose (busy_note) in the cases, as starts of busy intervals. */
const BUSY: Record<string, { busyStarts: string[]; minutes?: number }> = {
  // Transparent and zero-length: no busy time.
  R01_moved_occurrence_to_earlier_date: { busyStarts: [] },
  // Timed series opaque 14:00-15:00 on Aug 8, 14, 22; the all-day series transparent.
  R02_moved_timed_and_allday_occurrences: {
    busyStarts: ["2023-08-08T14:00:00+10:00", "2023-08-14T14:00:00+10:00", "2023-08-22T14:00:00+10:00"],
    minutes: 60,
  },
  // RFC 4791 §7.10: the cancelled occurrence of Jan 29 is free.
  R07_cancelled_occurrence: { busyStarts: ["2020-01-28T22:00:00+01:00", "2020-01-30T22:00:00+01:00"] },
};

describe("fixtures/recurrence through expandIcs", () => {
  const files = caseFiles();
  it("finds the cases", () => expect(files.length).toBeGreaterThanOrEqual(19));

  for (const file of files) {
    const c: RecurrenceCase = readCase(file);
    describe(c.id, () => {
      const ics = readCalendar(c.calendar);
      const ctx: Ctx = { ics, zone: caseZone(ics) };
      const from = rfc3339In(c.window_start, ctx.zone);
      const to = rfc3339In(c.window_end, ctx.zone);

      it(`yields exactly the expected starts in ${c.window_start} .. ${c.window_end}`, () => {
        const r = expand(ctx, from, to);
        expect(r.complete).toBe(true);
        expect(r.occurrences.map((o) => keyOf(ctx, o))).toEqual(
          c.expected_starts.map((s) => expectedKey(s, ctx.zone)),
        );
        if (c.expected_status) expect(r.occurrences.map((o) => o.status)).toEqual(c.expected_status);
        if (c.expected_ends)
          expect(r.occurrences.map((o) => o.end)).toEqual(
            c.expected_ends.map((s) => formatInstant(instantIn(s, ctx.zone))),
          );
      });

      it("has only fields this test knows", () => {
        expect(Object.keys(c).filter((k) => !KNOWN_FIELDS.has(k))).toEqual([]);
      });

      if (c.derived_full_series !== undefined) {
        const series = c.derived_full_series;
        it("yields the whole derived series", () => {
          const r = expand(ctx, FAR_PAST, FAR_FUTURE);
          expect(r.occurrences.map((o) => keyOf(ctx, o))).toEqual(
            series.starts.map((s) => expectedKey(s, ctx.zone)),
          );
        });
      }

      for (const [i, check] of c.checks.entries())
        it(`check ${i}: ${String(check["query"])}`, () => runCheck(ctx, check));

      for (const extra of c.extra_calendars ?? []) {
        const xics = readCalendar(String(extra["calendar"]));
        const x: Ctx = { ics: xics, zone: caseZone(xics) };
        it(`extra calendar ${String(extra["calendar"])}`, () => {
          const { calendar: _c, features: _f, ics_path: _p, at_checks, ...check } = extra;
          if (check["query"] !== undefined) runCheck(x, check);
          for (const [arg, count] of (at_checks as [string, number][] | undefined) ?? [])
            runCheck(x, { query: `at(${arg})`, expected_count: count });
        });
      }

      const busy = BUSY[c.id];
      if (busy !== undefined || c.busy_note !== undefined) {
        it("busy view (busy_note)", () => {
          expect(busy, `${c.id} has a busy_note: state it in BUSY`).toBeDefined();
          const intervals = busyIntervals(expand(ctx, from, to).occurrences);
          expect(intervals.map((b) => b.start)).toEqual(busy!.busyStarts.map((s) => instantIn(s, ctx.zone)));
          if (busy!.minutes !== undefined)
            for (const b of intervals) expect(b.end - b.start).toBe(busy!.minutes * 60_000);
        });
      }
    });
  }
});
