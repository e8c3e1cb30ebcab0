/**
 * Property test: expandIcs against an independent reading of the same RRULE, the `rrule`
 * package (a port of python-dateutil, the reference RFC 5545 implementation), on generated
 * rules over every FREQ and BY* part.
 *
 * - In UTC: rrule reads "DTSTART:…Z\nRRULE:…" itself; the starts must be equal.
 * - In a zone with DST (America/New_York): rrule expands the same rule over the wall clock
 *   (it treats naive dates as UTC), each wall clock becomes an instant with Temporal
 *   ("compatible": a gap moves forward, an overlap takes the earlier instant; RFC 5545 §3.3.5)
 *   and UNTIL (an instant, as RFC 5545 requires for a zoned DTSTART) is applied to the instants.
 *   Sub-daily frequencies are left out there: whether FREQ=HOURLY counts wall-clock or elapsed
 *   hours across a DST change is not settled by RFC 5545, so no sound oracle exists.
 *
 * Where rrule (like dateutil) reads a rule differently on purpose, the comparison steers
 * around it: a YEARLY rule with BYWEEKNO and no day part is given DTSTART's weekday explicitly
 * (rrule takes every day of the week, we take DTSTART's, as libical does), and such a rule has
 * no INTERVAL and no BYSETPOS (rrule's periods are calendar years, ours the week-numbering
 * years the weeks belong to, so a week 1 starting in December falls in another period: both
 * readings are tested against libical's and ical.net's own cases in week-numbers.test.ts).
 *
 * DTSTART is synchronized with the rule (the rule's first instance from a random seed), since
 * RFC 5545 leaves an unsynchronized DTSTART undefined and the two libraries differ there on
 * purpose (RFC: DTSTART is always the first instance; dateutil: it is not).
 */
import fc from "fast-check";
import rrulePkg from "rrule";
import { describe, expect, it } from "vitest";
import { expandIcs } from "../../../src/calendar/index.js";
import { formatInstant, wallClockToInstant } from "../../../src/protocol/time/index.js";

// rrule's ESM build is not Node ESM; its CommonJS build is, through the default export.
const { rrulestr } = rrulePkg;

const FREQS = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY"] as const;
type Freq = (typeof FREQS)[number];
const WD = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
const DAY = 86_400_000;
/** How long a window to compare over, per frequency (keeps every run small). */
const SPAN: Record<Freq, number> = {
  YEARLY: 8 * 365 * DAY,
  MONTHLY: 3 * 365 * DAY,
  WEEKLY: 365 * DAY,
  DAILY: 200 * DAY,
  HOURLY: 5 * DAY,
  MINUTELY: 12 * 3_600_000,
  SECONDLY: 30 * 60_000,
};

const basic = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, "").slice(0, 15);

const list = <T>(arb: fc.Arbitrary<T>, max: number): fc.Arbitrary<T[] | undefined> =>
  fc.option(fc.uniqueArray(arb, { minLength: 1, maxLength: max }), { nil: undefined, freq: 2 });

const signed = (max: number): fc.Arbitrary<number> =>
  fc.integer({ min: 1, max }).chain((n) => fc.constantFrom(n, -n));

/** An RRULE without COUNT/UNTIL (added later, once DTSTART is known). */
const ruleBody = (freqs: readonly Freq[]): fc.Arbitrary<{ freq: Freq; text: string }> =>
  fc
    .record({
      freq: fc.constantFrom(...freqs),
      interval: fc.integer({ min: 1, max: 4 }),
      // All with an ordinal or none: rrule requires a day to match both kinds when a list
      // mixes them ("1MO,TU" gives nothing), where RFC 5545 takes either.
      byDay: fc.option(
        fc
          .boolean()
          .chain((withOrdinals) =>
            fc.uniqueArray(
              fc.record({ n: withOrdinals ? signed(5) : fc.constant(0), wd: fc.constantFrom(...WD) }),
              { minLength: 1, maxLength: 3, selector: (d) => `${d.n}${d.wd}` },
            ),
          ),
        { nil: undefined, freq: 2 },
      ),
      byMonthDay: list(signed(31), 3),
      byMonth: list(fc.integer({ min: 1, max: 12 }), 3),
      byYearDay: list(signed(366), 2),
      // Not the last week (52, 53, -1): dateutil and rrule count the previous year's weeks with
      // this year's length, so 1-2 January 2011 (ISO week 52 of 2010) count as week 53 there.
      byWeekNo: list(fc.oneof(fc.integer({ min: 1, max: 51 }), fc.integer({ min: -51, max: -2 })), 2),
      byHour: list(fc.integer({ min: 0, max: 23 }), 2),
      byMinute: list(fc.constantFrom(0, 15, 30, 45, 59), 2),
      bySecond: list(fc.constantFrom(0, 30), 1),
      // One sign: rrule yields an instance twice when 1 and -1 pick the same one (and counts
      // it twice for COUNT); a recurrence set has no duplicates.
      bySetPos: fc.option(
        fc.boolean().chain((neg) =>
          fc.uniqueArray(
            fc.integer({ min: 1, max: 4 }).map((n) => (neg ? -n : n)),
            { minLength: 1, maxLength: 2 },
          ),
        ),
        { nil: undefined, freq: 2 },
      ),
      wkst: fc.option(fc.constantFrom(...WD), { nil: undefined, freq: 3 }),
    })
    .map((r) => {
      const parts = [`FREQ=${r.freq}`];
      const weekNumbered = r.freq === "YEARLY" && r.byWeekNo !== undefined;
      if (r.interval > 1 && !weekNumbered) parts.push(`INTERVAL=${r.interval}`);
      // Ordinal BYDAY only where RFC 5545 allows it (MONTHLY, YEARLY without BYWEEKNO).
      const ordinals = r.freq === "MONTHLY" || (r.freq === "YEARLY" && r.byWeekNo === undefined);
      if (r.byDay)
        parts.push(
          `BYDAY=${[...new Set(r.byDay.map((d) => `${ordinals && d.n ? d.n : ""}${d.wd}`))].join(",")}`,
        );
      // BYMONTHDAY is not allowed with WEEKLY, BYYEARDAY only with YEARLY (and sub-daily),
      // BYWEEKNO only with YEARLY (RFC 5545 §3.3.10).
      if (r.byMonthDay && r.freq !== "WEEKLY") parts.push(`BYMONTHDAY=${r.byMonthDay.join(",")}`);
      if (r.byMonth) parts.push(`BYMONTH=${r.byMonth.join(",")}`);
      if (r.byYearDay && r.freq === "YEARLY") parts.push(`BYYEARDAY=${r.byYearDay.join(",")}`);
      if (r.byWeekNo && r.freq === "YEARLY") parts.push(`BYWEEKNO=${r.byWeekNo.join(",")}`);
      // Ascending: rrule keeps time lists in written order, so "BYMINUTE=45,0" comes out of
      // order and UNTIL and BYSETPOS then cut at the wrong instance (its bug, not a reading).
      const up = (xs: number[]): string => [...xs].sort((a, b) => a - b).join(",");
      if (r.byHour) parts.push(`BYHOUR=${up(r.byHour)}`);
      if (r.byMinute) parts.push(`BYMINUTE=${up(r.byMinute)}`);
      if (r.bySecond) parts.push(`BYSECOND=${up(r.bySecond)}`);
      // rrule wraps a position past the end of the period's set round to its start (JS
      // slice), where RFC 5545 selects nothing: positions beyond ±1 only where every period
      // has at least 4 instances (a plain weekday in every month).
      const roomy =
        (r.freq === "MONTHLY" || r.freq === "YEARLY") &&
        r.byDay !== undefined &&
        r.byDay.every((d) => d.n === 0) &&
        !parts.some((p) => /^BY(MONTHDAY|YEARDAY|WEEKNO)=/.test(p));
      if (r.bySetPos && !weekNumbered) {
        const pos = roomy ? r.bySetPos : [...new Set(r.bySetPos.map((p) => Math.sign(p)))];
        parts.push(`BYSETPOS=${pos.join(",")}`);
      }
      if (r.wkst) parts.push(`WKST=${r.wkst}`);
      return { freq: r.freq, text: parts.join(";") };
    });

/**
 * An instance of the rule after `seed` (wall clock as UTC), to be DTSTART. Found with the code
 * under test, because `rrule` walks to the year 9999 when a rule has no instance at all
 * (FREQ=HOURLY;INTERVAL=4;BYHOUR=1 from midnight): so rules that the code under test finds
 * empty are not compared (fc.pre), and an instance it made up would show as a mismatch.
 */
function firstAfter(rule: string, seed: number, freq: Freq): number | undefined {
  const r = expandIcs(ics(`DTSTART:${basic(seed)}Z`, rule), {
    from: formatInstant(seed),
    to: formatInstant(seed + 4 * SPAN[freq]),
    maxPerSeries: 1_000_000,
  });
  return r.occurrences.map((o) => Date.parse(o.start)).find((t) => t > seed);
}

/** The rule as rrule must be given it to mean what RFC 5545 (and we) read (see the header). */
function oracleRule(rule: string, start: number): string {
  const weekNumbered = /FREQ=YEARLY/.test(rule) && /BYWEEKNO=/.test(rule);
  if (!weekNumbered || /BY(DAY|MONTHDAY|YEARDAY)=/.test(rule)) return rule;
  return `${rule};BYDAY=${WD[(new Date(start).getUTCDay() + 6) % 7]}`;
}

const ending = fc.oneof(
  fc.constant({ kind: "none" as const }),
  fc.integer({ min: 1, max: 25 }).map((count) => ({ kind: "count" as const, count })),
  fc.double({ min: 0, max: 1, noNaN: true }).map((at) => ({ kind: "until" as const, at })),
);

const seedArb = fc
  .integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2035, 0, 1) })
  .map((t) => Math.floor(t / 1000) * 1000);

function ics(dtstart: string, rule: string): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//test//EN",
    "BEGIN:VEVENT",
    "UID:p",
    dtstart,
    `RRULE:${rule}`,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

describe("RRULE expansion against the rrule package", () => {
  it("UTC: every FREQ and BY* part", () => {
    fc.assert(
      fc.property(ruleBody(FREQS), seedArb, ending, (body, seed, end) => {
        const start = firstAfter(body.text, seed, body.freq);
        fc.pre(start !== undefined);
        const span = SPAN[body.freq];
        const to = start + span;
        let rule = body.text;
        if (end.kind === "count") rule += `;COUNT=${end.count}`;
        if (end.kind === "until") rule += `;UNTIL=${basic(start + Math.floor(end.at * span))}Z`;
        const oracle = rrulestr(`DTSTART:${basic(start)}Z\nRRULE:${oracleRule(rule, start)}`)
          .between(new Date(start), new Date(to), true)
          .map((d) => d.getTime())
          .filter((t) => t < to)
          .map((t) => formatInstant(t));
        const r = expandIcs(ics(`DTSTART:${basic(start)}Z`, rule), {
          from: formatInstant(start),
          to: formatInstant(to),
          maxPerSeries: 100_000,
        });
        expect(r.complete).toBe(true);
        expect(
          r.occurrences.map((o) => o.start),
          rule,
        ).toEqual(oracle);
      }),
      { numRuns: 300 },
    );
  }, 300_000);

  it("America/New_York wall clock across DST, UNTIL in UTC", () => {
    const zone = "America/New_York";
    const toInstant = (naive: number): number => {
      const d = new Date(naive);
      const r = wallClockToInstant(
        {
          year: d.getUTCFullYear(),
          month: d.getUTCMonth() + 1,
          day: d.getUTCDate(),
          hour: d.getUTCHours(),
          minute: d.getUTCMinutes(),
          second: d.getUTCSeconds(),
          millisecond: 0,
        },
        zone,
      );
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    };
    const freqs: Freq[] = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY"];
    fc.assert(
      fc.property(ruleBody(freqs), seedArb, ending, (body, seed, end) => {
        const startWall = firstAfter(body.text, seed, body.freq);
        fc.pre(startWall !== undefined);
        const span = SPAN[body.freq];
        const from = toInstant(startWall);
        const to = from + span;
        let rule = body.text;
        let until = Infinity;
        if (end.kind === "count") rule += `;COUNT=${end.count}`;
        if (end.kind === "until") until = from + Math.floor(end.at * span);
        const oracle = [
          ...new Set(
            rrulestr(`DTSTART:${basic(startWall)}Z\nRRULE:${oracleRule(rule, startWall)}`)
              .between(new Date(startWall), new Date(startWall + span + 2 * DAY), true)
              .map((d) => toInstant(d.getTime())),
          ),
        ]
          .filter((t) => t <= until && t >= from && t < to)
          .map((t) => formatInstant(t));
        const ours = until === Infinity ? rule : `${rule};UNTIL=${basic(until)}Z`;
        const r = expandIcs(ics(`DTSTART;TZID=${zone}:${basic(startWall)}`, ours), {
          from: formatInstant(from),
          to: formatInstant(to),
          maxPerSeries: 100_000,
        });
        expect(r.complete).toBe(true);
        expect(
          r.occurrences.map((o) => o.start),
          ours,
        ).toEqual(oracle);
      }),
      { numRuns: 200 },
    );
  }, 300_000);
});
