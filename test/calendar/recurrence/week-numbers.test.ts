/**
 * RRULE cases from other projects' own test corpora (fixtures/rrule-cases, sources in its
 * SOURCES.md), run through expandIcs as written there: libical's icalrecur_test.txt and
 * ical.net's RecurrenceTestCases.txt. They pin what the `rrule` package (a dateutil port)
 * reads differently, so the property test cannot: a YEARLY BYWEEKNO without BYDAY takes
 * DTSTART's weekday (RFC 5545 §3.3.10, information not in the rule comes from DTSTART), INTERVAL
 * counts the week-numbering years weeks belong to, and a DATE DTSTART ignores BYHOUR, BYMINUTE
 * and BYSECOND.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandIcs } from "../../../src/calendar/index.js";

const DIR = join(import.meta.dirname, "../../../fixtures/rrule-cases");

interface Case {
  readonly name: string;
  readonly rrule: string;
  readonly dtstart: string;
  readonly instances: string[];
}

/** libical's format: "# name", "RRULE:…", "DTSTART:…", "INSTANCES:a,b,…", blank line between. */
function casesOf(file: string): Case[] {
  return readFileSync(join(DIR, file), "utf8")
    .split(/\n\s*\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const line = (prefix: string): string =>
        block
          .split("\n")
          .find((l) => l.startsWith(prefix))!
          .slice(prefix.length)
          .trim();
      return {
        name: line("# "),
        rrule: line("RRULE:"),
        dtstart: line("DTSTART:"),
        instances: line("INSTANCES:").split(","),
      };
    });
}

/** "20130101T000000", "…Z" or "20241018" → RFC 3339 in UTC (floating read in UTC). */
const iso = (basic: string): string => {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/.exec(basic)!;
  return `${m[1]}-${m[2]}-${m[3]}T${m[4] ?? "00"}:${m[5] ?? "00"}:${m[6] ?? "00"}Z`;
};

function expand(c: Case): string[] {
  const date = !c.dtstart.includes("T");
  const text = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//test//EN",
    "BEGIN:VEVENT",
    "UID:case",
    date ? `DTSTART;VALUE=DATE:${c.dtstart}` : `DTSTART:${c.dtstart}`,
    `RRULE:${c.rrule}`,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
  const r = expandIcs(text, { from: iso(c.dtstart), to: "2040-01-01T00:00:00Z" });
  expect(r.complete).toBe(true);
  return r.occurrences.map((o) => o.start);
}

describe.each([
  ["libical src/test/icalrecur_test.txt", "libical-icalrecur_test.txt"],
  ["ical.net RecurrenceTestCases.txt", "ical-net-RecurrenceTestCases.txt"],
])("%s", (_, file) => {
  it.each(casesOf(file).map((c) => [c.name, c] as const))("%s", (_name, c) => {
    expect(expand(c)).toEqual(c.instances.map(iso));
  });
});
