/**
 * expandEvents on events as the calendar connectors map them (src/connectors/ports/
 * calendar-sync.ts): Google Calendar (IANA zones, originalStartTime as recurrenceId, cancelled
 * instances), Microsoft Graph (Windows zone names, moved occurrences), CalDAV (floating times,
 * RANGE=THISANDFUTURE), plus the bounds. Window: March 2026, which holds the US and EU DST
 * changes.
 */
import { describe, expect, it } from "vitest";
import {
  busyIntervals,
  expandEvents,
  expandIcs,
  type EventOccurrence,
  type RawCalendarEvent,
} from "../../../src/calendar/index.js";

const at = (iso: string): number => Date.parse(iso);
const MARCH = { from: at("2026-03-01T00:00:00Z"), to: at("2026-04-01T00:00:00Z") };
const base = { status: "confirmed", transparency: "opaque" } as const;
const starts = (occ: readonly EventOccurrence[]): string[] => occ.map((o) => new Date(o.start).toISOString());

describe("expandEvents: Google Calendar style", () => {
  // Weekly Tuesday 09:00 Berlin; the Mar 10 instance moved to Wed 11 14:00, Mar 17 cancelled.
  const series: RawCalendarEvent = {
    ...base,
    uid: "g1@google.com",
    eventId: "g1",
    start: { dateTime: "2026-02-03T09:00:00", zone: "Europe/Berlin" },
    end: { dateTime: "2026-02-03T10:00:00", zone: "Europe/Berlin" },
    rrule: "FREQ=WEEKLY;BYDAY=TU",
  };
  const moved: RawCalendarEvent = {
    ...base,
    uid: "g1@google.com",
    eventId: "g1_20260310T080000Z",
    recurrenceId: { dateTime: "2026-03-10T09:00:00+01:00", zone: "Europe/Berlin" },
    start: { dateTime: "2026-03-11T14:00:00+01:00", zone: "Europe/Berlin" },
    end: { dateTime: "2026-03-11T15:30:00+01:00", zone: "Europe/Berlin" },
  };
  const cancelled: RawCalendarEvent = {
    ...base,
    status: "cancelled",
    uid: "g1@google.com",
    eventId: "g1_20260317T080000Z",
    recurrenceId: { dateTime: "2026-03-17T09:00:00+01:00", zone: "Europe/Berlin" },
    start: { dateTime: "2026-03-17T09:00:00+01:00", zone: "Europe/Berlin" },
    end: { dateTime: "2026-03-17T10:00:00+01:00", zone: "Europe/Berlin" },
  };

  it("keeps 09:00 Berlin across the EU DST change, moves one instance and cancels another", () => {
    const r = expandEvents([series, moved, cancelled], MARCH);
    expect(r.complete).toBe(true);
    expect(starts(r.occurrences)).toEqual([
      "2026-03-03T08:00:00.000Z",
      "2026-03-11T13:00:00.000Z",
      "2026-03-17T08:00:00.000Z",
      "2026-03-24T08:00:00.000Z",
      "2026-03-31T07:00:00.000Z", // CEST after Mar 29
    ]);
    const [, mv, cx] = r.occurrences;
    expect(mv).toMatchObject({ eventId: "g1_20260310T080000Z", recurrenceId: at("2026-03-10T08:00:00Z") });
    expect(mv!.end - mv!.start).toBe(90 * 60_000);
    expect(cx).toMatchObject({ status: "CANCELLED", recurrenceId: at("2026-03-17T08:00:00Z") });
    expect(r.occurrences[0]).toMatchObject({
      eventId: "g1",
      status: "CONFIRMED",
      allDay: false,
      transparent: false,
    });
  });

  it("busy time: the moved instance only at its new time, the cancelled one free", () => {
    const busy = busyIntervals(expandEvents([series, moved, cancelled], MARCH).occurrences);
    expect(busy.map((b) => new Date(b.start).toISOString())).toEqual([
      "2026-03-03T08:00:00.000Z",
      "2026-03-11T13:00:00.000Z",
      "2026-03-24T08:00:00.000Z",
      "2026-03-31T07:00:00.000Z",
    ]);
  });

  it("gives the same answer in any event order", () => {
    const a = expandEvents([series, moved, cancelled], MARCH);
    const b = expandEvents([cancelled, moved, series], MARCH);
    expect(b).toEqual(a);
  });

  it("finds an instance moved into the window from far outside it, and frees one moved out", () => {
    const inFromJune: RawCalendarEvent = {
      ...base,
      uid: "g1@google.com",
      eventId: "g1_20260616",
      recurrenceId: { dateTime: "2026-06-16T09:00:00", zone: "Europe/Berlin" },
      start: { dateTime: "2026-03-20T12:00:00", zone: "Europe/Berlin" },
      end: { dateTime: "2026-03-20T13:00:00", zone: "Europe/Berlin" },
    };
    const outToMay: RawCalendarEvent = {
      ...base,
      uid: "g1@google.com",
      eventId: "g1_20260324",
      recurrenceId: { dateTime: "2026-03-24T09:00:00", zone: "Europe/Berlin" },
      start: { dateTime: "2026-05-05T09:00:00", zone: "Europe/Berlin" },
      end: { dateTime: "2026-05-05T10:00:00", zone: "Europe/Berlin" },
    };
    const r = expandEvents([series, inFromJune, outToMay], MARCH);
    expect(starts(r.occurrences)).toContain("2026-03-20T11:00:00.000Z");
    expect(starts(r.occurrences)).not.toContain("2026-03-24T08:00:00.000Z");
    expect(r.occurrences.find((o) => o.eventId === "g1_20260616")?.recurrenceId).toBe(
      at("2026-06-16T07:00:00Z"),
    );
  });

  it("reads all-day events in the floating zone, end date exclusive", () => {
    const holiday: RawCalendarEvent = {
      ...base,
      uid: "h@google.com",
      eventId: "h",
      start: { date: "2026-03-05" },
      end: { date: "2026-03-07" },
      rrule: "FREQ=MONTHLY;COUNT=2",
      exdate: ["20260405"],
    };
    const r = expandEvents([holiday], {
      ...MARCH,
      to: at("2026-06-01T00:00:00Z"),
      floatingZone: "America/New_York",
    });
    expect(r.occurrences).toHaveLength(1);
    expect(r.occurrences[0]).toMatchObject({
      allDay: true,
      start: at("2026-03-05T05:00:00Z"),
      end: at("2026-03-07T05:00:00Z"),
      recurrenceId: at("2026-03-05T05:00:00Z"),
    });
  });

  it("EXDATE with an offset, in UTC or as the start's local time all remove their instance", () => {
    const r = expandEvents(
      [{ ...series, exdate: ["2026-03-03T09:00:00+01:00", "20260310T080000Z", "20260317T090000"] }],
      MARCH,
    );
    expect(starts(r.occurrences)).toEqual(["2026-03-24T08:00:00.000Z", "2026-03-31T07:00:00.000Z"]);
  });

  it("EXDATE and RDATE as whole content lines (Google's recurrence array), TZID honoured", () => {
    const r = expandEvents(
      [
        {
          ...series,
          exdate: ["EXDATE;TZID=America/New_York:20260303T030000,20260310T040000"],
          rdate: ["RDATE:20260305T120000Z"],
        },
      ],
      MARCH,
    );
    expect(starts(r.occurrences)).toEqual([
      "2026-03-05T12:00:00.000Z",
      "2026-03-17T08:00:00.000Z",
      "2026-03-24T08:00:00.000Z",
      "2026-03-31T07:00:00.000Z",
    ]);
  });

  it("transparent events are returned but not busy", () => {
    const r = expandEvents([{ ...series, transparency: "transparent" }], MARCH);
    expect(r.occurrences.every((o) => o.transparent)).toBe(true);
    expect(busyIntervals(r.occurrences)).toEqual([]);
  });
});

describe("expandEvents: Microsoft Graph style (Windows zone names)", () => {
  it("reads 'Pacific Standard Time' as America/Los_Angeles across the US DST change", () => {
    const standup: RawCalendarEvent = {
      ...base,
      uid: "040000008200E00074C5B7101A82E008",
      eventId: "AAMkAG-series",
      start: { dateTime: "2026-03-02T10:00:00.0000000", zone: "Pacific Standard Time" },
      end: { dateTime: "2026-03-02T10:15:00.0000000", zone: "Pacific Standard Time" },
      rrule: "FREQ=WEEKLY;BYDAY=MO;UNTIL=20260316T170000Z",
    };
    const r = expandEvents([standup], MARCH);
    expect(r.unknownZones).toEqual([]);
    // PST (-8) on Mar 2 and 9; PDT (-7) from Mar 8; UNTIL 17:00Z = 10:00 PDT is inclusive.
    expect(starts(r.occurrences)).toEqual([
      "2026-03-02T18:00:00.000Z",
      "2026-03-09T17:00:00.000Z",
      "2026-03-16T17:00:00.000Z",
    ]);
  });

  it("reads an unknown zone in the floating zone and reports it", () => {
    const odd: RawCalendarEvent = {
      ...base,
      uid: "x",
      eventId: "x",
      start: { dateTime: "2026-03-02T10:00:00", zone: "Customized Time Zone" },
      end: { dateTime: "2026-03-02T11:00:00", zone: "Customized Time Zone" },
    };
    const r = expandEvents([odd], { ...MARCH, floatingZone: "Europe/Paris" });
    expect(r.unknownZones).toEqual(["Customized Time Zone"]);
    expect(r.occurrences[0]?.start).toBe(at("2026-03-02T09:00:00Z"));
  });
});

describe("expandEvents: Microsoft Graph all-day exceptions", () => {
  it("an originalStart in UTC names the all-day instance of its date in the floating zone", () => {
    const series: RawCalendarEvent = {
      ...base,
      uid: "ad",
      eventId: "ad",
      start: { date: "2026-03-09" },
      end: { date: "2026-03-10" },
      rrule: "FREQ=DAILY;COUNT=3",
    };
    const moved: RawCalendarEvent = {
      ...base,
      uid: "ad",
      eventId: "ad-2",
      recurrenceId: { dateTime: "2026-03-09T23:00:00Z" }, // Mar 10, midnight in Berlin
      start: { date: "2026-03-12" },
      end: { date: "2026-03-13" },
    };
    const r = expandEvents([series, moved], { ...MARCH, floatingZone: "Europe/Berlin" });
    expect(r.occurrences.map((o) => [o.eventId, new Date(o.start).toISOString()])).toEqual([
      ["ad", "2026-03-08T23:00:00.000Z"],
      ["ad", "2026-03-10T23:00:00.000Z"],
      ["ad-2", "2026-03-11T23:00:00.000Z"],
    ]);
  });
});

describe("expandEvents: CalDAV style", () => {
  it("floating times are read in the floating zone", () => {
    const e: RawCalendarEvent = {
      ...base,
      uid: "f",
      eventId: "f.ics",
      start: { dateTime: "2026-03-07T09:00:00" },
      duration: "PT45M",
      rrule: "FREQ=DAILY;COUNT=3",
    };
    const r = expandEvents([e], { ...MARCH, floatingZone: "America/New_York" });
    // Mar 8 is the US spring-forward day: 09:00 EDT is 13:00Z.
    expect(starts(r.occurrences)).toEqual([
      "2026-03-07T14:00:00.000Z",
      "2026-03-08T13:00:00.000Z",
      "2026-03-09T13:00:00.000Z",
    ]);
    expect(r.occurrences.every((o) => o.end - o.start === 45 * 60_000)).toBe(true);
  });

  it("RANGE=THISANDFUTURE moves this and every later instance, with its length and status", () => {
    const daily: RawCalendarEvent = {
      ...base,
      uid: "t",
      eventId: "t.ics",
      start: { dateTime: "2026-03-02T12:00:00Z" },
      end: { dateTime: "2026-03-02T13:00:00Z" },
      rrule: "FREQ=DAILY;COUNT=6",
    };
    const later: RawCalendarEvent = {
      ...base,
      status: "tentative",
      uid: "t",
      eventId: "t.ics#2",
      recurrenceId: { dateTime: "2026-03-05T12:00:00Z" },
      thisAndFuture: true,
      start: { dateTime: "2026-03-05T15:00:00Z" },
      end: { dateTime: "2026-03-05T15:30:00Z" },
    };
    const r = expandEvents([daily, later], MARCH);
    expect(starts(r.occurrences)).toEqual([
      "2026-03-02T12:00:00.000Z",
      "2026-03-03T12:00:00.000Z",
      "2026-03-04T12:00:00.000Z",
      "2026-03-05T15:00:00.000Z",
      "2026-03-06T15:00:00.000Z",
      "2026-03-07T15:00:00.000Z",
    ]);
    const tail = r.occurrences.slice(3);
    expect(tail.every((o) => o.status === "TENTATIVE" && o.end - o.start === 30 * 60_000)).toBe(true);
    expect(tail.map((o) => o.recurrenceId)).toEqual([
      at("2026-03-05T12:00:00Z"),
      at("2026-03-06T12:00:00Z"),
      at("2026-03-07T12:00:00Z"),
    ]);
  });

  it("RDATE periods and dates add instances", () => {
    const e: RawCalendarEvent = {
      ...base,
      uid: "r",
      eventId: "r",
      start: { dateTime: "2026-03-02T09:00:00", zone: "Europe/London" },
      end: { dateTime: "2026-03-02T10:00:00", zone: "Europe/London" },
      rdate: ["20260304T090000", "20260306T140000/PT3H", "20260309T080000Z/20260309T083000Z"],
    };
    const r = expandEvents([e], MARCH);
    expect(r.occurrences.map((o) => [new Date(o.start).toISOString(), (o.end - o.start) / 60_000])).toEqual([
      ["2026-03-02T09:00:00.000Z", 60],
      ["2026-03-04T09:00:00.000Z", 60],
      ["2026-03-06T14:00:00.000Z", 180],
      ["2026-03-09T08:00:00.000Z", 30],
    ]);
  });
});

describe("DST gaps and overlaps (RFC 5545 §3.3.5)", () => {
  const daily = (time: string): RawCalendarEvent => ({
    ...base,
    uid: time,
    eventId: time,
    start: { dateTime: `2026-03-07T${time}`, zone: "America/New_York" },
    end: { dateTime: `2026-03-07T${time}`, zone: "America/New_York" },
    duration: undefined,
    rrule: "FREQ=DAILY;COUNT=3",
  });

  it("a time in the spring-forward gap moves forward by the gap", () => {
    const r = expandEvents([daily("02:30:00")], MARCH);
    // Mar 8 02:30 does not exist in New York: it is 03:30 EDT (07:30Z).
    expect(starts(r.occurrences)).toEqual([
      "2026-03-07T07:30:00.000Z",
      "2026-03-08T07:30:00.000Z",
      "2026-03-09T06:30:00.000Z",
    ]);
  });

  it("a time in the fall-back overlap takes the earlier instant", () => {
    const e = { ...daily("01:30:00"), start: { dateTime: "2026-10-31T01:30:00", zone: "America/New_York" } };
    const r = expandEvents([{ ...e, end: e.start }], {
      from: at("2026-10-30T00:00:00Z"),
      to: at("2026-11-05T00:00:00Z"),
    });
    // Nov 1 01:30 happens twice: EDT (05:30Z) first.
    expect(starts(r.occurrences)).toEqual([
      "2026-10-31T05:30:00.000Z",
      "2026-11-01T05:30:00.000Z",
      "2026-11-02T06:30:00.000Z",
    ]);
  });
});

describe("bounds", () => {
  const hourly: RawCalendarEvent = {
    ...base,
    uid: "h",
    eventId: "h",
    start: { dateTime: "2026-03-01T00:00:00Z" },
    end: { dateTime: "2026-03-01T00:30:00Z" },
    rrule: "FREQ=HOURLY",
  };

  it("a series over maxPerSeries is incomplete and keeps its earliest occurrences", () => {
    const r = expandEvents([hourly], { ...MARCH, maxPerSeries: 5 });
    expect(r.complete).toBe(false);
    expect(starts(r.occurrences)).toEqual([0, 1, 2, 3, 4].map((h) => `2026-03-01T0${h}:00:00.000Z`));
  });

  it("a sync over maxTotal is incomplete", () => {
    const other = { ...hourly, uid: "h2", eventId: "h2" };
    const r = expandEvents([hourly, other], { ...MARCH, maxTotal: 100 });
    expect(r.complete).toBe(false);
    expect(r.occurrences).toHaveLength(100);
  });

  it("the default bound cuts a secondly rule", () => {
    const r = expandEvents([{ ...hourly, rrule: "FREQ=SECONDLY" }], MARCH);
    expect(r.complete).toBe(false);
  });

  it("a rule walking too many periods from an old DTSTART is incomplete", () => {
    const old = {
      ...hourly,
      start: { dateTime: "1990-01-01T00:00:00Z" },
      end: undefined,
      rrule: "FREQ=MINUTELY;COUNT=100000000",
    };
    expect(expandEvents([old], MARCH).complete).toBe(false);
  });

  it("within the bounds the answer is complete", () => {
    const r = expandEvents([hourly], MARCH);
    expect(r.complete).toBe(true);
    expect(r.occurrences).toHaveLength(31 * 24);
  });

  it("an unreadable RRULE keeps DTSTART and makes the answer incomplete", () => {
    const r = expandEvents([{ ...hourly, rrule: "FREQ=FORTNIGHTLY" }], MARCH);
    expect(r.complete).toBe(false);
    expect(r.occurrences).toHaveLength(1);
  });

  it("an event whose times cannot be read is left out and makes the answer incomplete", () => {
    const bad = { ...hourly, uid: "b", eventId: "b", start: { dateTime: "next tuesday" } };
    const r = expandEvents([bad, { ...hourly, rrule: undefined }], MARCH);
    expect(r.complete).toBe(false);
    expect(r.occurrences).toHaveLength(1);
  });

  it("refuses bad options", () => {
    expect(() => expandEvents([], { from: 2, to: 1 })).toThrow(RangeError);
    expect(() => expandEvents([], { from: Number.NaN, to: 1 })).toThrow(TypeError);
    expect(() => expandEvents([], { ...MARCH, floatingZone: "Mars/Olympus" })).toThrow(/floatingZone/);
    expect(() => expandEvents([], { ...MARCH, maxPerSeries: 0 })).toThrow(/maxPerSeries/);
  });
});

describe("odd calendars", () => {
  const one: RawCalendarEvent = {
    ...base,
    uid: "o",
    eventId: "o",
    start: { dateTime: "2026-03-02T09:00:00Z" },
    end: { dateTime: "2026-03-02T10:00:00Z" },
    rrule: "FREQ=DAILY;COUNT=2",
  };
  const moved: RawCalendarEvent = {
    ...base,
    uid: "o",
    eventId: "o-2",
    recurrenceId: { dateTime: "2026-03-03T09:00:00Z" },
    start: { dateTime: "2026-03-03T15:00:00Z" },
    end: { dateTime: "2026-03-03T16:00:00Z" },
  };

  it("an exception without its series (a shared single instance) is still an occurrence", () => {
    const r = expandEvents([moved], MARCH);
    expect(r.occurrences).toEqual([
      expect.objectContaining({
        eventId: "o-2",
        start: at("2026-03-03T15:00:00Z"),
        recurrenceId: at("2026-03-03T09:00:00Z"),
      }),
    ]);
  });

  it("two masters under one UID both expand; their exception counts once", () => {
    const twin = { ...one, eventId: "o-twin", start: { dateTime: "2026-03-02T11:00:00Z" }, end: undefined };
    const r = expandEvents([one, twin, moved], MARCH);
    expect(r.occurrences.filter((o) => o.eventId === "o-2")).toHaveLength(1);
    expect(starts(r.occurrences)).toEqual([
      "2026-03-02T09:00:00.000Z",
      "2026-03-02T11:00:00.000Z",
      "2026-03-03T11:00:00.000Z",
      "2026-03-03T15:00:00.000Z",
    ]);
  });
});

describe("one engine", () => {
  it("expandIcs and expandEvents agree on the same series", () => {
    const ics = [
      "BEGIN:VCALENDAR",
      "BEGIN:VEVENT",
      "UID:same",
      "DTSTART;TZID=W. Europe Standard Time:20260302T080000",
      "DTEND;TZID=W. Europe Standard Time:20260302T083000",
      "RRULE:FREQ=WEEKLY;BYDAY=MO,TH;COUNT=8",
      "EXDATE;TZID=W. Europe Standard Time:20260305T080000",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:same",
      "RECURRENCE-ID;TZID=W. Europe Standard Time:20260312T080000",
      "DTSTART;TZID=W. Europe Standard Time:20260312T100000",
      "DTEND;TZID=W. Europe Standard Time:20260312T110000",
      "STATUS:TENTATIVE",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n");
    const fromIcs = expandIcs(ics, { from: "2026-03-01T00:00:00Z", to: "2026-04-01T00:00:00Z" });
    const fromEvents = expandEvents(
      [
        {
          ...base,
          uid: "same",
          eventId: "same",
          start: { dateTime: "2026-03-02T08:00:00", zone: "W. Europe Standard Time" },
          end: { dateTime: "2026-03-02T08:30:00", zone: "W. Europe Standard Time" },
          rrule: "FREQ=WEEKLY;BYDAY=MO,TH;COUNT=8",
          exdate: ["20260305T080000"],
        },
        {
          ...base,
          status: "tentative",
          uid: "same",
          eventId: "same",
          recurrenceId: { dateTime: "2026-03-12T08:00:00", zone: "W. Europe Standard Time" },
          start: { dateTime: "2026-03-12T10:00:00", zone: "W. Europe Standard Time" },
          end: { dateTime: "2026-03-12T11:00:00", zone: "W. Europe Standard Time" },
        },
      ],
      MARCH,
    );
    expect(fromIcs.occurrences).toHaveLength(7);
    expect(
      fromEvents.occurrences.map((o) => [o.start, o.end, o.recurrenceId, o.status === "TENTATIVE"]),
    ).toEqual(
      fromIcs.occurrences.map((o) => [at(o.start), at(o.end), at(o.recurrenceId!), o.status === "TENTATIVE"]),
    );
  });
});
