/**
 * RRULE (RFC 5545 §3.3.10) parsing and expansion over FLOATING wall-clock time, pure.
 *
 * Written by hand, on purpose. The two libraries at hand both get RRULEs wrong in ways that
 * matter for busy time: ical.js 2.2 turns FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29 into March 1 in
 * common years (RFC 5545: invalid dates are skipped), ignores INTERVAL with BYHOUR under
 * FREQ=HOURLY and misplaces BYWEEKNO; `rrule` has no RECURRENCE-ID and open EXDATE/time-zone
 * bugs (it stays a dev dependency, as the independent reading the property test compares with).
 * The algorithm is the RFC's own: each period of the frequency (a year, month, week, day,
 * hour…), stepped by INTERVAL, contributes the days that every BY* part allows (which is how
 * "expand" and "limit" in the RFC's table both come out), times from BYHOUR/BYMINUTE/BYSECOND,
 * then BYSETPOS picks from the period's sorted set. Days are only ever real calendar days, so
 * "February 30" never exists rather than being rolled over.
 *
 * Local times are "floating ms": Date.UTC of the wall clock. The caller maps them to instants
 * in the series' zone (so DST never moves a 09:00 meeting) and decides UNTIL, which may be an
 * instant (…Z), a floating time or a date, through `stop`.
 */

type Frequency = "YEARLY" | "MONTHLY" | "WEEKLY" | "DAILY" | "HOURLY" | "MINUTELY" | "SECONDLY";

/** An UNTIL as written: a date (inclusive of the whole day), a floating time, or an instant (utc). */
interface Until {
  readonly date: boolean;
  readonly utc: boolean;
  /** Floating ms of the value as written (UTC wall clock when utc). */
  readonly local: number;
}

export interface Rule {
  readonly freq: Frequency;
  readonly interval: number;
  readonly count?: number;
  readonly until?: Until;
  readonly bySecond?: readonly number[];
  readonly byMinute?: readonly number[];
  readonly byHour?: readonly number[];
  /** ISO weekday 1..7 and ordinal (0: every such weekday in the period). */
  readonly byDay?: readonly { readonly n: number; readonly wd: number }[];
  readonly byMonthDay?: readonly number[];
  readonly byYearDay?: readonly number[];
  readonly byWeekNo?: readonly number[];
  readonly byMonth?: readonly number[];
  readonly bySetPos?: readonly number[];
  /** ISO weekday the week starts on (MO by default). */
  readonly wkst: number;
}

const DAY = 86_400_000;
const FREQS: readonly Frequency[] = [
  "YEARLY",
  "MONTHLY",
  "WEEKLY",
  "DAILY",
  "HOURLY",
  "MINUTELY",
  "SECONDLY",
];
const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

function ints(name: string, value: string, min: number, max: number, signed: boolean): number[] {
  return value.split(",").map((s) => {
    const n = Number(s.trim());
    const ok = Number.isInteger(n) && /^[+-]?\d+$/.test(s.trim()) && Math.abs(n) <= max;
    if (!ok || (signed ? n === 0 : n < min))
      throw new RangeError(`RRULE ${name}=${value}: ${JSON.stringify(s)} is out of range`);
    return n;
  });
}

/** Reads an UNTIL or date value in basic ("20200204T151459Z", "20191023") or extended form. */
function parseUntil(value: string): Until {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value.replace(/[-:]/g, ""));
  if (m === null) throw new RangeError(`RRULE UNTIL=${value} is not a date or date-time`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { date: m[4] === undefined, utc: m[7] === "Z", local: Date.UTC(y, mo - 1, d, h, mi, s) };
}

/** Parses an RRULE value ("FREQ=WEEKLY;BYDAY=MO,WE"); throws RangeError naming the bad part. */
export function parseRule(text: string): Rule {
  const parts = new Map<string, string>();
  for (const part of text
    .trim()
    .replace(/^RRULE:/i, "")
    .split(";")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq < 1) throw new RangeError(`RRULE part ${JSON.stringify(part)} is not NAME=VALUE`);
    parts.set(part.slice(0, eq).toUpperCase(), part.slice(eq + 1));
  }
  const freq = parts.get("FREQ")?.toUpperCase() as Frequency | undefined;
  if (freq === undefined || !FREQS.includes(freq))
    throw new RangeError(`RRULE ${text}: FREQ is missing or unknown`);
  const interval = parts.has("INTERVAL") ? ints("INTERVAL", parts.get("INTERVAL")!, 1, 1e6, false)[0]! : 1;
  const count = parts.has("COUNT") ? ints("COUNT", parts.get("COUNT")!, 1, 1e9, false)[0] : undefined;
  if (parts.has("COUNT") && parts.has("UNTIL"))
    throw new RangeError(`RRULE ${text}: COUNT and UNTIL together`);
  const wd = (s: string, name: string): number => {
    const i = WEEKDAYS.indexOf(s.toUpperCase());
    if (i < 0) throw new RangeError(`RRULE ${name}: ${JSON.stringify(s)} is not a weekday`);
    return i + 1;
  };
  const list = (name: string, min: number, max: number, signed: boolean): number[] | undefined =>
    parts.has(name) ? ints(name, parts.get(name)!, min, max, signed) : undefined;
  const byDay = parts
    .get("BYDAY")
    ?.split(",")
    .map((s) => {
      const m = /^([+-]?\d{1,2})?([A-Za-z]{2})$/.exec(s.trim());
      if (m === null) throw new RangeError(`RRULE BYDAY: ${JSON.stringify(s)} is not [±n]weekday`);
      const n = m[1] === undefined ? 0 : Number(m[1]);
      if (n === 0 && m[1] !== undefined) throw new RangeError(`RRULE BYDAY: ${s} has ordinal 0`);
      if (Math.abs(n) > 53) throw new RangeError(`RRULE BYDAY: ${s} is out of range`);
      return { n, wd: wd(m[2]!, "BYDAY") };
    });
  return {
    freq,
    interval,
    ...(count !== undefined && { count }),
    ...(parts.has("UNTIL") && { until: parseUntil(parts.get("UNTIL")!) }),
    ...optional("bySecond", list("BYSECOND", 0, 60, false)),
    ...optional("byMinute", list("BYMINUTE", 0, 59, false)),
    ...optional("byHour", list("BYHOUR", 0, 23, false)),
    ...optional("byDay", byDay),
    ...optional("byMonthDay", list("BYMONTHDAY", 1, 31, true)),
    ...optional("byYearDay", list("BYYEARDAY", 1, 366, true)),
    ...optional("byWeekNo", list("BYWEEKNO", 1, 53, true)),
    ...optional("byMonth", list("BYMONTH", 1, 12, false)),
    ...optional("bySetPos", list("BYSETPOS", 1, 366, true)),
    wkst: parts.has("WKST") ? wd(parts.get("WKST")!, "WKST") : 1,
  };
}

const optional = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } =>
  (v === undefined ? {} : { [key]: v }) as { [P in K]?: V };

// ---- calendar arithmetic on epoch days (Date's proleptic Gregorian calendar) ---------------

/** Year, month, day of an epoch day (civil-from-days: integer arithmetic, no Date per call). */
const ymd = (day: number): [number, number, number] => {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
};
const dayOf = (y: number, m: number, d: number): number => Math.floor(Date.UTC(y, m - 1, d) / DAY);
/** ISO weekday of an epoch day (1970-01-01 was a Thursday). */
const weekday = (day: number): number => ((((day + 3) % 7) + 7) % 7) + 1;
const daysInMonth = (y: number, m: number): number => dayOf(y, m + 1, 1) - dayOf(y, m, 1);

/** The first day of week 1 of `year` for weeks starting on `wkst` (week 1 has ≥ 4 days of the year). */
function week1Start(year: number, wkst: number): number {
  const jan1 = dayOf(year, 1, 1);
  const back = (weekday(jan1) - wkst + 7) % 7;
  const start = jan1 - back;
  return back >= 4 ? start + 7 : start;
}

/** Week number of `day` within `year` (positive, and negative from the year's last week); 0 when outside. */
function weekNumbers(day: number, year: number, wkst: number): [number, number] {
  const first = week1Start(year, wkst);
  const weeks = (week1Start(year + 1, wkst) - first) / 7;
  const w = Math.floor((day - first) / 7) + 1;
  return w < 1 || w > weeks ? [0, 0] : [w, w - weeks - 1];
}

/** The week-numbering year `day` belongs to (its week 1 may start in December, its last week end in January). */
function weekYear(day: number, wkst: number): number {
  const [y] = ymd(day);
  if (day >= week1Start(y + 1, wkst)) return y + 1;
  return day < week1Start(y, wkst) ? y - 1 : y;
}

/**
 * Whether a YEARLY rule's periods are week-numbering years: with BYWEEKNO a year is the run of
 * its weeks, so DTSTART's week (and INTERVAL's count) is that of the year the week belongs to:
 * 2010-01-02 is in week 53 of 2009, and INTERVAL=6 next reaches 2015 (ical.net's test cases).
 */
const byWeekYear = (rule: Rule): boolean => rule.freq === "YEARLY" && rule.byWeekNo !== undefined;

// ---- expansion -------------------------------------------------------------------------------

/**
 * RFC 5545's defaults taken from DTSTART when the rule does not say ("information, not
 * contained in the rule, necessary to determine the various recurrence instance start time and
 * dates are derived from the Start Time", §3.3.10), as python-dateutil does, except that a week
 * number without a weekday takes DTSTART's weekday (libical, CalendarServer and JSCalendar
 * read it so; dateutil and rrule.js take every day of the week).
 */
function withDefaults(rule: Rule, start: number): Rule {
  const [, m, d] = ymd(Math.floor(start / DAY));
  if (rule.freq === "YEARLY" && rule.byWeekNo && !rule.byYearDay && !rule.byMonthDay && !rule.byDay)
    return { ...rule, byDay: [{ n: 0, wd: weekday(Math.floor(start / DAY)) }] };
  if (rule.byWeekNo || rule.byYearDay || rule.byMonthDay || rule.byDay) return rule;
  switch (rule.freq) {
    case "YEARLY":
      return { ...rule, byMonth: rule.byMonth ?? [m], byMonthDay: [d] };
    case "MONTHLY":
      return { ...rule, byMonthDay: [d] };
    case "WEEKLY":
      return { ...rule, byDay: [{ n: 0, wd: weekday(Math.floor(start / DAY)) }] };
    case "DAILY":
    case "HOURLY":
    case "MINUTELY":
    case "SECONDLY":
      return rule;
  }
}

function dayMatches(rule: Rule, day: number): boolean {
  const [y, m, d] = ymd(day);
  if (rule.byMonth && !rule.byMonth.includes(m)) return false;
  if (rule.byWeekNo) {
    // A day near New Year may belong to a week of the year before or after.
    const hit = [y - 1, y, y + 1].some((wy) => {
      const [pos, neg] = weekNumbers(day, wy, rule.wkst);
      return pos !== 0 && (rule.byWeekNo!.includes(pos) || rule.byWeekNo!.includes(neg));
    });
    if (!hit) return false;
  }
  if (rule.byYearDay) {
    const yday = day - dayOf(y, 1, 1) + 1;
    const len = dayOf(y + 1, 1, 1) - dayOf(y, 1, 1);
    if (!rule.byYearDay.includes(yday) && !rule.byYearDay.includes(yday - len - 1)) return false;
  }
  if (rule.byMonthDay) {
    const len = daysInMonth(y, m);
    if (!rule.byMonthDay.includes(d) && !rule.byMonthDay.includes(d - len - 1)) return false;
  }
  if (rule.byDay) {
    const wd = weekday(day);
    // Ordinals count within the month (MONTHLY, or YEARLY with BYMONTH) or the year (YEARLY).
    const inMonth = rule.freq === "MONTHLY" || (rule.freq === "YEARLY" && rule.byMonth !== undefined);
    const ordinals = rule.freq === "MONTHLY" || rule.freq === "YEARLY";
    const [idx, len] = inMonth
      ? [d - 1, daysInMonth(y, m)]
      : [day - dayOf(y, 1, 1), dayOf(y + 1, 1, 1) - dayOf(y, 1, 1)];
    const nth = Math.floor(idx / 7) + 1;
    const nthBack = -(Math.floor((len - 1 - idx) / 7) + 1);
    const hit = rule.byDay.some(
      (x) =>
        x.wd === wd &&
        (x.n === 0 || !ordinals || rule.byWeekNo !== undefined || x.n === nth || x.n === nthBack),
    );
    if (!hit) return false;
  }
  return true;
}

const sortedSet = (xs: readonly number[]): number[] => [...new Set(xs)].sort((a, b) => a - b);

const clockOf = (t: number): [number, number, number] => {
  const ms = ((t % DAY) + DAY) % DAY;
  return [Math.floor(ms / 3_600_000), Math.floor(ms / 60_000) % 60, Math.floor(ms / 1000) % 60];
};

/** Times of day (ms) of a YEARLY…DAILY rule: the same every period, so worked out once. */
const timesOf = new WeakMap<Rule, readonly number[]>();
function dailyTimes(rule: Rule, h0: number, m0: number, s0: number): readonly number[] {
  const known = timesOf.get(rule);
  if (known !== undefined) return known;
  const hours = sortedSet(rule.byHour ?? [h0]);
  const minutes = sortedSet(rule.byMinute ?? [m0]);
  const seconds = sortedSet(rule.bySecond ?? [s0]);
  const times = hours.flatMap((h) =>
    minutes.flatMap((x) => seconds.map((y) => h * 3_600_000 + x * 60_000 + y * 1000)),
  );
  timesOf.set(rule, times);
  return times;
}

/** The period's candidates (floating ms, sorted), BYSETPOS applied. */
function periodCandidates(rule: Rule, start: number, period: number): number[] {
  const sub = rule.freq === "HOURLY" || rule.freq === "MINUTELY" || rule.freq === "SECONDLY";
  let days: number[] = [];
  let times: readonly number[];
  const [h0, m0, s0] = clockOf(start);
  if (sub) {
    const day = Math.floor(period / DAY);
    const t = period - day * DAY;
    const [h, mi, s] = [Math.floor(t / 3_600_000), Math.floor(t / 60_000) % 60, Math.floor(t / 1000) % 60];
    if (rule.byHour && !rule.byHour.includes(h)) return [];
    if (rule.freq !== "HOURLY" && rule.byMinute && !rule.byMinute.includes(mi)) return [];
    if (rule.freq === "SECONDLY" && rule.bySecond && !rule.bySecond.includes(s)) return [];
    if (!dayMatches(rule, day)) return [];
    const minutes = rule.freq === "HOURLY" ? sortedSet(rule.byMinute ?? [m0]) : [mi];
    const seconds = rule.freq === "SECONDLY" ? [s] : sortedSet(rule.bySecond ?? [s0]);
    times = minutes.flatMap((x) => seconds.map((y) => h * 3_600_000 + x * 60_000 + y * 1000));
    days = [day];
  } else {
    const first = Math.floor(period / DAY);
    const [y, m] = ymd(first);
    const length = byWeekYear(rule)
      ? week1Start(weekYear(first, rule.wkst) + 1, rule.wkst) - first
      : rule.freq === "YEARLY"
        ? dayOf(y + 1, 1, 1) - first
        : rule.freq === "MONTHLY"
          ? daysInMonth(y, m)
          : rule.freq === "WEEKLY"
            ? 7
            : 1;
    for (let i = 0; i < length; i++) if (dayMatches(rule, first + i)) days.push(first + i);
    times = dailyTimes(rule, h0, m0, s0);
  }
  const all: number[] = [];
  for (const d of days) for (const t of times) all.push(d * DAY + t);
  if (!rule.bySetPos) return all;
  const picked = rule.bySetPos
    .map((p) => (p > 0 ? all[p - 1] : all[all.length + p]))
    .filter((x): x is number => x !== undefined);
  return sortedSet(picked);
}

/** The start (floating ms) of period k (k = 0 holds DTSTART). */
function periodStart(rule: Rule, start: number, k: number): number {
  const day0 = Math.floor(start / DAY);
  const [y, m] = ymd(day0);
  const step = k * rule.interval;
  if (byWeekYear(rule)) return week1Start(weekYear(day0, rule.wkst) + step, rule.wkst) * DAY;
  switch (rule.freq) {
    case "YEARLY":
      return Date.UTC(y + step, 0, 1);
    case "MONTHLY":
      return Date.UTC(y, m - 1 + step, 1);
    case "WEEKLY":
      return (day0 - ((weekday(day0) - rule.wkst + 7) % 7) + 7 * step) * DAY;
    case "DAILY":
      return (day0 + step) * DAY;
    case "HOURLY":
      return Math.floor(start / 3_600_000) * 3_600_000 + step * 3_600_000;
    case "MINUTELY":
      return Math.floor(start / 60_000) * 60_000 + step * 60_000;
    case "SECONDLY":
      return Math.floor(start / 1000) * 1000 + step * 1000;
  }
}

/** The index of the period holding floating time `t` (≥ 0), to skip straight to a window. */
function periodIndexAt(rule: Rule, start: number, t: number): number {
  if (t <= start) return 0;
  const [y0, m0] = ymd(Math.floor(start / DAY));
  const [y, m] = ymd(Math.floor(t / DAY));
  const units = byWeekYear(rule)
    ? weekYear(Math.floor(t / DAY), rule.wkst) - weekYear(Math.floor(start / DAY), rule.wkst)
    : rule.freq === "YEARLY"
      ? y - y0
      : rule.freq === "MONTHLY"
        ? (y - y0) * 12 + (m - m0)
        : rule.freq === "WEEKLY"
          ? Math.floor((Math.floor(t / DAY) - Math.floor(periodStart(rule, start, 0) / DAY)) / 7)
          : Math.floor(
              (t - periodStart(rule, start, 0)) /
                { DAILY: DAY, HOURLY: 3_600_000, MINUTELY: 60_000, SECONDLY: 1000 }[rule.freq],
            );
  return Math.max(0, Math.floor(units / rule.interval));
}

/** For a sub-daily period whose day or hour no BY* part allows: the next day's or hour's start. */
function filteredUntil(rule: Rule, p: number): number | undefined {
  if (rule.freq !== "HOURLY" && rule.freq !== "MINUTELY" && rule.freq !== "SECONDLY") return undefined;
  const day = Math.floor(p / DAY);
  if (!dayMatches(rule, day)) return (day + 1) * DAY;
  const hour = Math.floor(p / 3_600_000);
  if (rule.byHour && !rule.byHour.includes(hour % 24)) return (hour + 1) * 3_600_000;
  return undefined;
}

export interface ExpandLimits {
  /** Floating ms: nothing before it is needed (a rule without COUNT skips ahead to it). */
  readonly after: number;
  /** Floating ms: stop once a period starts after it. */
  readonly before: number;
  /** Most periods to walk; more is an incomplete expansion. */
  readonly maxPeriods: number;
}

export interface RuleExpansion {
  /** Floating ms of the instances in [after, before] (and a little around), sorted. */
  readonly starts: number[];
  /** Whether DTSTART itself is one of the rule's instances (RFC 5545: it is the first either way). */
  readonly startMatches: boolean;
  /** False when maxPeriods ran out before `before`. */
  readonly complete: boolean;
}

/**
 * The instances of `rule` from DTSTART `start` (floating ms), excluding DTSTART itself when the
 * rule does not produce it (the caller adds it: RFC 5545 makes DTSTART the first instance,
 * and counts it in COUNT, so an unsynchronized DTSTART leaves COUNT - 1 for the rule).
 * `stop(t)` is UNTIL: true once t is past it.
 */
export function expandRule(
  raw: Rule,
  start: number,
  stop: (t: number) => boolean,
  limits: ExpandLimits,
): RuleExpansion {
  const rule = withDefaults(raw, start);
  const startMatches = periodCandidates(rule, start, periodStart(rule, start, 0)).includes(start);
  let budget = rule.count === undefined ? Infinity : rule.count - (startMatches ? 0 : 1);
  const starts: number[] = [];
  let k = rule.count === undefined ? periodIndexAt(rule, start, limits.after) : 0;
  for (let walked = 0; budget > 0; k++, walked++) {
    if (walked >= limits.maxPeriods) return { starts, startMatches, complete: false };
    const p = periodStart(rule, start, k);
    if (p > limits.before) break;
    const skipTo = filteredUntil(rule, p);
    if (skipTo !== undefined) {
      // A sub-daily period on a day (or hour) the BY* parts exclude: go straight past it.
      k = Math.max(k, periodIndexAt(rule, start, skipTo) - 1);
      if (periodStart(rule, start, k + 1) < skipTo) k++;
      continue;
    }
    for (const t of periodCandidates(rule, start, p)) {
      if (t < start) continue;
      if (stop(t)) return { starts, startMatches, complete: true };
      if (t === start && !startMatches) continue;
      budget--;
      if (t >= limits.after && t <= limits.before) starts.push(t);
      if (budget <= 0) break;
    }
  }
  return { starts, startMatches, complete: true };
}
