// VEVENT → RawCalendarEvent, unit by unit, on files of the recurrence corpus
// (fixtures/recurrence, SOURCES.md) and small hand-written objects: forms of start and end
// (RFC 5545 §3.3.4 DATE, §3.3.5 DATE-TIME floating / UTC / TZID), DURATION (§3.8.2.5),
// RDATE PERIOD (§3.8.5.2), EXDATE (§3.8.5.1), RECURRENCE-ID;RANGE (§3.8.4.4).
import { describe, expect, it } from "vitest";
import { readResource } from "../../../src/connectors/caldav/vevent.js";
import type { RawCalendarEvent } from "../../../src/connectors/port.js";
import { readFixture } from "../../support/fixtures.js";

function read(file: string, eventId = "e", etag?: string): readonly RawCalendarEvent[] {
  const result = readResource(readFixture(`recurrence/${file}`), eventId, etag);
  if (!result.ok) throw new Error(result.error);
  return result.value.events;
}

const calendar = (...lines: string[]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//EN", ...lines, "END:VCALENDAR", ""].join("\r\n");

describe("readResource", () => {
  it("keeps a Windows TZID verbatim (the expansion resolves it)", () => {
    const [series] = read("issue_107_omitting_last_event.ics");
    expect(series).toMatchObject({
      start: { dateTime: "2023-01-05T10:00:00", zone: "Pacific Standard Time" },
      end: { dateTime: "2023-01-05T11:00:00", zone: "Pacific Standard Time" },
      rrule: expect.stringContaining("UNTIL=20230608T170000Z") as unknown,
    });
    expect(series?.rrule).toContain("FREQ=WEEKLY");
    expect(series?.rrule).toContain("BYDAY=TH");
    expect(series?.rrule).toContain("WKST=SU");
  });

  it("reads all-day series and their overrides (an Exchange RECURRENCE-ID with a Windows TZID)", () => {
    const events = read("issue_28_rrule_with_UTC_endinginZ.ics", "bins", '"v1"');
    const refuse = events.filter((e) => e.uid.startsWith("040000008200E00074C5B7101A82E00800000000017E"));
    expect(refuse[0]).toEqual({
      uid: refuse[0]?.uid,
      eventId: "bins",
      start: { date: "2020-04-02" },
      end: { date: "2020-04-03" },
      // The same rule as written, in ical.js's order and without the default WKST=MO.
      rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TH;UNTIL=20200916T230000Z",
      status: "confirmed",
      transparency: "transparent",
      sequence: 0,
      etag: '"v1"',
    });
    expect(refuse[1]).toMatchObject({
      recurrenceId: { dateTime: "2020-04-16T00:00:00", zone: "GMT Standard Time" },
      start: { date: "2020-04-17" },
      end: { date: "2020-04-18" },
    });
    expect(refuse[1]?.rrule).toBeUndefined();
  });

  it("reads DURATION instead of an end, a floating start, and a date written without VALUE=DATE", () => {
    const events = read("duration.ics");
    expect(events.map((e) => [e.start, e.end, e.duration])).toEqual([
      [{ date: "2018-01-10" }, undefined, "P3D"],
      [{ dateTime: "2018-01-15T10:00:00" }, undefined, "PT3H"],
      [{ dateTime: "2018-01-20T12:00:00" }, undefined, undefined],
    ]);
  });

  it("reads an RDATE PERIOD and an EXDATE in the start's zone", () => {
    const [series] = read("issue_113_period_in_rdate.ics");
    expect(series).toMatchObject({
      start: { dateTime: "2023-09-20T12:00:00", zone: "America/Vancouver" },
      rdate: ["2023-12-13T12:00:00/2023-12-13T15:00:00"],
      exdate: ["2023-12-20T12:00:00"],
    });
  });

  it("converts an EXDATE written in another zone to UTC with the object's VTIMEZONE", () => {
    const events = readResource(
      calendar(
        "BEGIN:VTIMEZONE",
        "TZID:Custom Tokyo",
        "BEGIN:STANDARD",
        "DTSTART:19700101T000000",
        "TZOFFSETFROM:+0900",
        "TZOFFSETTO:+0900",
        "END:STANDARD",
        "END:VTIMEZONE",
        "BEGIN:VEVENT",
        "UID:x",
        "DTSTART;TZID=Europe/Berlin:20261201T090000",
        "DTEND;TZID=Europe/Berlin:20261201T100000",
        "RRULE:FREQ=DAILY;COUNT=5",
        "EXDATE;TZID=Custom Tokyo:20261202T170000,20261203T170000",
        "EXDATE;VALUE=DATE:20261204",
        "END:VEVENT",
      ),
      "x",
      undefined,
    );
    expect(events).toMatchObject({
      ok: true,
      value: { events: [{ exdate: ["2026-12-02T08:00:00Z", "2026-12-03T08:00:00Z", "2026-12-04"] }] },
    });
  });

  it("reads STATUS, TRANSP, RANGE=THISANDFUTURE and a missing UID (the resource names it)", () => {
    const result = readResource(
      calendar(
        "BEGIN:VEVENT",
        "DTSTART:20261201T090000Z",
        "DURATION:PT30M",
        "RECURRENCE-ID;RANGE=thisandfuture:20261201T080000Z",
        "STATUS:TENTATIVE",
        "TRANSP:TRANSPARENT",
        "END:VEVENT",
      ),
      "no-uid",
      undefined,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        events: [
          {
            uid: "no-uid",
            eventId: "no-uid",
            recurrenceId: { dateTime: "2026-12-01T08:00:00Z" },
            thisAndFuture: true,
            start: { dateTime: "2026-12-01T09:00:00Z" },
            duration: "PT30M",
            status: "tentative",
            transparency: "transparent",
          },
        ],
      },
    });
  });

  it("reports, never skips, what it cannot read", () => {
    expect(readResource("not a calendar", "bad", undefined)).toMatchObject({ ok: false });
    const noStart = readResource(calendar("BEGIN:VEVENT", "UID:y", "END:VEVENT"), "y", undefined);
    expect(noStart).toMatchObject({ ok: false, error: expect.stringContaining("DTSTART") as unknown });
  });

  it("answers no events for an object without VEVENT (a VTODO)", () => {
    expect(readResource(calendar("BEGIN:VTODO", "UID:t", "END:VTODO"), "t", undefined)).toEqual({
      ok: true,
      value: { events: [] },
    });
  });
});
