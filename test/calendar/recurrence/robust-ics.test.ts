/**
 * expandIcs on real calendar files that used to lose a rule or the whole calendar
 * (fixtures/ics-robustness, each file's source in its SOURCES.md): what cannot be read is
 * skipped and logged, the rest is expanded, and the answer says `complete: false`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandIcs } from "../../../src/calendar/index.js";
import type { Logger } from "../../../src/protocol/logger.js";

const DIR = join(import.meta.dirname, "../../../fixtures/ics-robustness");
const file = (name: string): string => readFileSync(join(DIR, name), "utf8");

function recorder(): Pick<Logger, "warn"> & { messages: { message: string; fields: unknown }[] } {
  const messages: { message: string; fields: unknown }[] = [];
  return { messages, warn: (message, fields) => messages.push({ message, fields }) };
}

/** The occurrences' starts that overlap one floating (UTC) day, as python-recurring-ical-events' `at(day)`. */
const at = (text: string, day: string): string[] => {
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
  return expandIcs(text, { from: `${day}T00:00:00Z`, to: next }).occurrences.map((o) => o.start);
};

describe("a Mozilla Calendar export folds every line inside its name (RFC 5545 §3.1)", () => {
  const mozilla = file("import-real-world-2004-11-19.ics");

  it("keeps the folded RRULEs: every other Friday and every Monday (GNU Emacs' expected diary)", () => {
    const r = expandIcs(mozilla, { from: "2004-11-01T00:00:00Z", to: "2004-12-01T00:00:00Z" });
    expect(r.complete).toBe(true);
    expect(r.occurrences.map((o) => `${o.start} ${o.end}`)).toEqual([
      "2004-11-01T00:00:00Z 2004-11-02T00:00:00Z",
      "2004-11-08T00:00:00Z 2004-11-09T00:00:00Z",
      // diary-cyclic 14 12 11 2004, 14:00-18:30
      "2004-11-12T14:00:00Z 2004-11-12T18:30:00Z",
      "2004-11-15T00:00:00Z 2004-11-16T00:00:00Z",
      "2004-11-19T00:00:00Z 2004-11-20T00:00:00Z",
      "2004-11-22T00:00:00Z 2004-11-23T00:00:00Z",
      "2004-11-23T11:00:00Z 2004-11-23T12:00:00Z",
      "2004-11-23T14:00:00Z 2004-11-23T14:30:00Z",
      "2004-11-23T14:45:00Z 2004-11-23T15:45:00Z",
      "2004-11-26T14:00:00Z 2004-11-26T18:30:00Z",
      "2004-11-29T00:00:00Z 2004-11-30T00:00:00Z",
    ]);
  });
});

describe("one unreadable part costs only itself", () => {
  it("a UTF-8 byte-order mark is not content (collective/icalendar bom_calendar.ics)", () => {
    const r = expandIcs(file("bom_calendar.ics"), {
      from: "2020-01-01T00:00:00Z",
      to: "2021-01-01T00:00:00Z",
    });
    expect(r).toEqual({ occurrences: [], complete: true, unknownZones: [] });
  });

  it("a line without ':' (Apple's X-APPLE-RADIUS=…) is skipped and logged, its event kept", () => {
    const log = recorder();
    const r = expandIcs(file("issue_168_input.ics"), {
      from: "2015-09-05T00:00:00Z",
      to: "2015-09-06T00:00:00Z",
      logger: log,
    });
    expect(r.occurrences.map((o) => `${o.uid} ${o.start} ${o.end}`)).toEqual([
      "123 2015-09-05T09:00:00Z 2015-09-05T10:00:00Z",
    ]);
    expect(r.complete).toBe(false);
    expect(log.messages).toEqual([
      {
        message: "calendar: a line is not an iCalendar content line; it is skipped",
        fields: { line: 6, text: "X-APPLE-RADIUS=49.91307046514149" },
      },
    ]);
  });

  it("DURATION:P999999999999999999W (valid, RFC 5545 §3.3.6) skips its event, logged, the rest expands", () => {
    const log = recorder();
    const huge = file("invalid_duration.ics");
    const alone = expandIcs(huge, {
      from: "2024-01-01T00:00:00Z",
      to: "2024-02-01T00:00:00Z",
      logger: log,
    });
    expect(alone).toEqual({ occurrences: [], complete: false, unknownZones: [] });
    expect(log.messages).toHaveLength(1);
    expect(log.messages[0]!.fields).toMatchObject({ uid: "invalid-duration@example.com" });

    const both = expandIcs(huge + file("import-real-world-2004-11-19.ics"), {
      from: "2004-11-23T00:00:00Z",
      to: "2004-11-24T00:00:00Z",
    });
    expect(both.complete).toBe(false);
    expect(both.occurrences.map((o) => o.start)).toEqual([
      "2004-11-23T11:00:00Z",
      "2004-11-23T14:00:00Z",
      "2004-11-23T14:45:00Z",
    ]);
  });
});

describe("SEQUENCE: the higher copy supersedes (RFC 5545 §3.8.7.4)", () => {
  it("a series saved again with an EXDATE frees the excluded instance (a case python-recurring-ical-events fixed)", () => {
    const text = file("issue_148_ignored_exdate.ics");
    const r = expandIcs(text, { from: "2024-01-01T00:00:00Z", to: "2025-01-01T00:00:00Z" });
    // test_total_events: two events; test_the_exdate_is_not_available: none on 2024-07-15.
    expect(r.occurrences.map((o) => o.start)).toEqual(["2024-07-01T00:00:00Z", "2024-07-29T00:00:00Z"]);
    expect(at(text, "2024-07-15")).toEqual([]);
  });

  it("the higher copy's EXDATE and RDATE replace the lower's (test_rdate_and_exdate_are_updated)", () => {
    const text = file("issue_148_exdate_and_rdate_updated.ics");
    const counts = ["2024-07-01", "2024-07-15", "2024-07-17", "2024-07-29", "2024-07-30"].map(
      (day) => at(text, day).length,
    );
    expect(counts).toEqual([1, 1, 0, 0, 1]);
  });

  it("an override written twice with the same RECURRENCE-ID and SEQUENCE counts once", () => {
    const r = expandIcs(file("issue_164_duplicated_event.ics"), {
      from: "2024-08-01T00:00:00Z",
      to: "2024-09-01T00:00:00Z",
    });
    // test_event_is_only_returned_once: two events in August 2024, on the 5th and the 26th.
    expect(r.occurrences.map((o) => o.start)).toEqual(["2024-08-05T00:00:00Z", "2024-08-26T00:00:00Z"]);
  });
});
