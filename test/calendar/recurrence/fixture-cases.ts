/**
 * Reading the independent recurrence cases in fixtures/recurrence (R01… JSON, see SOURCES.md
 * there): their windows and expected starts are ISO 8601 with an offset, bare dates (all-day /
 * floating) or floating date-times, which are read here in the case's zone: the calendar's
 * X-WR-TIMEZONE, else the zone of its first TZID (IANA or Windows), else UTC. expandIcs gets
 * that zone as floatingZone, as a host's own zone would be.
 */
import { readdirSync } from "node:fs";
import { findIana } from "windows-iana";
import { formatInstant, isValidTimeZone, wallClockToInstant } from "../../../src/protocol/time/index.js";
import { fixturePath, readFixture, readFixtureJson } from "../../support/fixtures.js";

export interface RecurrenceCase {
  readonly id: string;
  readonly calendar: string;
  readonly window_start: string;
  readonly window_end: string;
  readonly expected_starts: string[];
  readonly expected_status?: (string | null)[];
  readonly expected_ends?: string[];
  readonly checks: Record<string, unknown>[];
  readonly extra_calendars?: Record<string, unknown>[];
  readonly busy_note?: string;
  readonly expected_starts_provenance?: string;
  readonly derived_full_series?: { readonly note?: string; readonly starts: string[] };
}

/** Top-level fields this test reads or knowingly leaves (prose, sources); any other fails. */
export const KNOWN_FIELDS = new Set([
  "id",
  "calendar",
  "window_start",
  "window_end",
  "expected_starts",
  "expected_status",
  "expected_ends",
  "checks",
  "extra_calendars",
  "busy_note",
  "derived_full_series",
  "expected_starts_provenance",
  "features",
  "notes",
  "source",
]);

export const caseFiles = (): string[] =>
  readdirSync(fixturePath("recurrence"))
    .filter((f) => /^R\d+.*\.json$/.test(f))
    .sort();

export const readCase = (file: string): RecurrenceCase =>
  readFixtureJson<RecurrenceCase>(`recurrence/${file}`);
export const readCalendar = (name: string): string => readFixture(`recurrence/${name}`);

function iana(name: string): string | undefined {
  if (isValidTimeZone(name)) return name;
  try {
    return findIana(name).find((z) => isValidTimeZone(z));
  } catch {
    return undefined;
  }
}

/** The zone a case's floating values are read in. */
export function caseZone(ics: string): string {
  const wr = /^X-WR-TIMEZONE:(.+)$/m.exec(ics)?.[1]?.trim();
  const fromWr = wr === undefined ? undefined : iana(wr);
  if (fromWr !== undefined) return fromWr;
  for (const m of ics.matchAll(/;TZID=("?)([^:;"\r\n]+)\1[:;]/g)) {
    const z = iana(m[2]!.trim());
    if (z !== undefined) return z;
  }
  return "UTC";
}

/** Epoch ms of an ISO 8601 value from a case: with an offset as is, otherwise in `zone`. */
export function instantIn(value: string, zone: string): number {
  if (/(Z|[+-]\d{2}:\d{2})$/.test(value)) return Date.parse(value);
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  if (m === null) throw new Error(`cannot read ${value}`);
  const n = (i: number): number => Number(m[i] ?? 0);
  const r = wallClockToInstant(
    { year: n(1), month: n(2), day: n(3), hour: n(4), minute: n(5), second: n(6), millisecond: 0 },
    zone,
  );
  if (!r.ok) throw new Error(`cannot place ${value} in ${zone}`);
  return r.value;
}

export const rfc3339In = (value: string, zone: string): string => formatInstant(instantIn(value, zone));

/** An expected start as comparable text: "date 2020-05-29" or the UTC instant. */
export function expectedKey(value: string, zone: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `date ${value}` : formatInstant(instantIn(value, zone));
}

/** A day window: "20211231", "(2019, 3, 7)" or "(2018,1,15,10)" (that hour). */
export function dayWindow(text: string, zone: string): { from: string; to: string } {
  const nums = (text.match(/\d+/g) ?? []).map(Number);
  let parts: number[];
  if (nums.length === 1 && String(nums[0]).length === 8) {
    const s = String(nums[0]);
    parts = [Number(s.slice(0, 4)), Number(s.slice(4, 6)), Number(s.slice(6, 8))];
  } else parts = nums;
  const [y, mo = 1, d = 1, h] = parts as [number, number?, number?, number?];
  const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
  const start = `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h ?? 0)}:00:00`;
  const startMs = instantIn(start, zone);
  let end: string;
  if (h !== undefined) end = formatInstant(startMs + 3_600_000);
  else if (parts.length === 3) end = rfc3339In(nextDay(y, mo, d), zone);
  else if (parts.length === 2)
    end = rfc3339In(
      `${mo === 12 ? pad(y + 1, 4) : pad(y, 4)}-${pad(mo === 12 ? 1 : mo + 1)}-01T00:00:00`,
      zone,
    );
  else end = rfc3339In(`${pad(y + 1, 4)}-01-01T00:00:00`, zone);
  return { from: formatInstant(startMs), to: end };
}

function nextDay(y: number, m: number, d: number): string {
  const t = new Date(Date.UTC(y, m - 1, d + 1));
  return t.toISOString().slice(0, 19);
}
