/**
 * expandIcs beyond the fixture corpus: its input checks, its output form, RFC 5545's own
 * RRULE examples (§3.8.5.3, America/New_York), invalid dates, and the TZID forms it reads.
 */
import { describe, expect, it } from "vitest";
import { expandIcs } from "../../../src/calendar/index.js";

const cal = (...lines: string[]): string =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...lines, "END:VCALENDAR", ""].join("\r\n");
const event = (...lines: string[]): string[] => ["BEGIN:VEVENT", "UID:e", ...lines, "END:VEVENT"];

const starts = (text: string, from: string, to: string, floatingZone?: string): string[] =>
  expandIcs(text, { from, to, ...(floatingZone !== undefined && { floatingZone }) }).occurrences.map(
    (o) => o.start,
  );

describe("expandIcs input", () => {
  const ok = cal(...event("DTSTART:20260301T090000Z"));
  const win = { from: "2026-03-01T00:00:00Z", to: "2026-04-01T00:00:00Z" };

  it("refuses text that is not iCalendar", () => {
    expect(() => expandIcs("hello", win)).toThrow(TypeError);
    expect(() => expandIcs("hello", win)).toThrow(/not iCalendar/);
    expect(() => expandIcs("BEGIN:VCALENDAR\r\nthis is not a content line\r\n", win)).toThrow(
      /not iCalendar/,
    );
  });

  it("refuses a window that is empty, inverted or not RFC 3339 instants", () => {
    expect(() => expandIcs(ok, { from: win.to, to: win.from })).toThrow(RangeError);
    expect(() => expandIcs(ok, { from: win.from, to: win.from })).toThrow(/must be before/);
    expect(() => expandIcs(ok, { ...win, from: "2026-03-01T00:00:00" })).toThrow(TypeError);
    expect(() => expandIcs(ok, { ...win, from: "2026-03-01T00:00:00" })).toThrow(/^from: /);
    expect(() => expandIcs(ok, { ...win, to: "tomorrow" })).toThrow(/^to: /);
    expect(() => expandIcs(ok, { ...win, floatingZone: "Nowhere/Special" })).toThrow(RangeError);
    expect(() => expandIcs(ok, { ...win, maxPerSeries: 1.5 })).toThrow(/maxPerSeries/);
  });

  it("reads each RRULE as written: a lowercase or X- part is fine, a bad one costs only its event", () => {
    const r = expandIcs(
      cal(
        ...event("DTSTART:20260302T090000Z", "RRULE:freq=daily;count=2;X-NAME=1"),
        "BEGIN:VEVENT",
        "UID:bad",
        "DTSTART:20260305T090000Z",
        "RRULE:FREQ=FORTNIGHTLY",
        "END:VEVENT",
      ),
      win,
    );
    expect(r.occurrences.map((o) => `${o.uid} ${o.start}`)).toEqual([
      "e 2026-03-02T09:00:00Z",
      "e 2026-03-03T09:00:00Z",
      "bad 2026-03-05T09:00:00Z",
    ]);
    expect(r.complete).toBe(false);
  });

  it("answers UTC RFC 3339 text, STATUS as written or null, no recurrenceId for single events", () => {
    const r = expandIcs(
      cal(
        ...event("DTSTART;TZID=Europe/Berlin:20260302T100000", "DTEND;TZID=Europe/Berlin:20260302T110000"),
        "BEGIN:VEVENT",
        "UID:s",
        "DTSTART:20260303T090000Z",
        "DURATION:PT30M",
        "STATUS:TENTATIVE",
        "TRANSP:TRANSPARENT",
        "RRULE:FREQ=DAILY;COUNT=1",
        "END:VEVENT",
      ),
      win,
    );
    expect(r).toEqual({
      occurrences: [
        {
          uid: "e",
          start: "2026-03-02T09:00:00Z",
          end: "2026-03-02T10:00:00Z",
          allDay: false,
          status: null,
          transparent: false,
        },
        {
          uid: "s",
          start: "2026-03-03T09:00:00Z",
          end: "2026-03-03T09:30:00Z",
          allDay: false,
          recurrenceId: "2026-03-03T09:00:00Z",
          status: "TENTATIVE",
          transparent: true,
        },
      ],
      complete: true,
      unknownZones: [],
    });
  });

  it("an occurrence is in the window when it starts before `to` and ends after `from`", () => {
    const text = cal(
      ...event("DTSTART:20260301T090000Z", "DTEND:20260301T100000Z", "RRULE:FREQ=HOURLY;COUNT=3"),
    );
    expect(starts(text, "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z")).toEqual(["2026-03-01T10:00:00Z"]);
    expect(starts(text, "2026-03-01T09:59:59Z", "2026-03-01T10:00:00Z")).toEqual(["2026-03-01T09:00:00Z"]);
  });

  it("floating times default to UTC and follow floatingZone", () => {
    const text = cal(...event("DTSTART:20260302T090000", "DTEND:20260302T100000"));
    expect(starts(text, win.from, win.to)).toEqual(["2026-03-02T09:00:00Z"]);
    expect(starts(text, win.from, win.to, "Asia/Tokyo")).toEqual(["2026-03-02T00:00:00Z"]);
  });
});

describe("RFC 5545 §3.8.5.3 examples (DTSTART;TZID=America/New_York:19970902T090000)", () => {
  const rfc = (rule: string, dtstart = "19970902T090000", ...extra: string[]): string[] =>
    starts(
      cal(...event(`DTSTART;TZID=America/New_York:${dtstart}`, `RRULE:${rule}`, ...extra)),
      "1996-01-01T00:00:00Z",
      "2001-01-01T00:00:00Z",
    );

  it("daily for 10 occurrences, across the end of DST", () => {
    const r = rfc("FREQ=DAILY;COUNT=10");
    expect(r).toHaveLength(10);
    expect(r[0]).toBe("1997-09-02T13:00:00Z");
    expect(r[9]).toBe("1997-09-11T13:00:00Z");
    const later = rfc("FREQ=WEEKLY;COUNT=10");
    expect(later[8]).toBe("1997-10-28T14:00:00Z"); // EST after Oct 26
  });

  it("every other week on Tuesday and Sunday, WKST=MO vs WKST=SU", () => {
    expect(rfc("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", "19970805T090000")).toEqual([
      "1997-08-05T13:00:00Z",
      "1997-08-10T13:00:00Z",
      "1997-08-19T13:00:00Z",
      "1997-08-24T13:00:00Z",
    ]);
    expect(rfc("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", "19970805T090000")).toEqual([
      "1997-08-05T13:00:00Z",
      "1997-08-17T13:00:00Z",
      "1997-08-19T13:00:00Z",
      "1997-08-31T13:00:00Z",
    ]);
  });

  it("the last weekday of the month (BYSETPOS=-1)", () => {
    expect(rfc("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3", "19970930T090000")).toEqual([
      "1997-09-30T13:00:00Z",
      "1997-10-31T14:00:00Z",
      "1997-11-28T14:00:00Z",
    ]);
  });

  it("Friday the 13th (the RFC excludes its unsynchronized DTSTART), the first Saturday after the first Sunday", () => {
    const exdate = "EXDATE;TZID=America/New_York:19970902T090000";
    expect(
      rfc("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;COUNT=4", "19970902T090000", exdate).map((s) =>
        s.slice(0, 10),
      ),
    ).toEqual(["1998-02-13", "1998-03-13", "1998-11-13"]);
    expect(
      rfc("FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13;COUNT=3", "19970913T090000").map((s) =>
        s.slice(0, 10),
      ),
    ).toEqual(["1997-09-13", "1997-10-11", "1997-11-08"]);
  });

  it("US presidential election day, every 4 years", () => {
    expect(
      rfc(
        "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8;COUNT=2",
        "19961105T090000",
      ).map((s) => s.slice(0, 10)),
    ).toEqual(["1996-11-05", "2000-11-07"]);
  });

  it("Monday of week 20, and the 3rd instance of TU/WE/TH in the month", () => {
    expect(
      rfc("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;COUNT=3", "19970512T090000").map((s) => s.slice(0, 10)),
    ).toEqual(["1997-05-12", "1998-05-11", "1999-05-17"]);
    expect(
      rfc("FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3", "19970904T090000").map((s) => s.slice(0, 10)),
    ).toEqual(["1997-09-04", "1997-10-07", "1997-11-06"]);
  });
});

describe("BYWEEKNO follows ISO 8601 week numbering", () => {
  it("1-2 January 2011 are in week 52 of 2010 (dateutil and rrule call it week 53)", () => {
    const days = starts(
      cal(
        ...event(
          "DTSTART:20101227T090000Z",
          "RRULE:FREQ=YEARLY;BYWEEKNO=52;BYDAY=MO,TU,WE,TH,FR,SA,SU;COUNT=7",
        ),
      ),
      "2010-01-01T00:00:00Z",
      "2012-01-01T00:00:00Z",
    ).map((s) => s.slice(0, 10));
    expect(days).toEqual([
      "2010-12-27",
      "2010-12-28",
      "2010-12-29",
      "2010-12-30",
      "2010-12-31",
      "2011-01-01",
      "2011-01-02",
    ]);
  });
});

describe("invalid dates are skipped (RFC 5545 §3.3.10)", () => {
  const all = (dtstart: string, rule: string): string[] =>
    starts(
      cal(...event(`DTSTART:${dtstart}`, `RRULE:${rule}`)),
      "2024-01-01T00:00:00Z",
      "2033-01-01T00:00:00Z",
    ).map((s) => s.slice(0, 10));

  it("monthly on the 31st skips shorter months", () => {
    expect(all("20240131T090000Z", "FREQ=MONTHLY;COUNT=4")).toEqual([
      "2024-01-31",
      "2024-03-31",
      "2024-05-31",
      "2024-07-31",
    ]);
  });

  it("yearly on February 29 waits for leap years", () => {
    expect(all("20240229T090000Z", "FREQ=YEARLY;COUNT=3")).toEqual([
      "2024-02-29",
      "2028-02-29",
      "2032-02-29",
    ]);
  });
});

describe("an unsynchronized DTSTART is the first instance (RFC 5545 §3.8.5.3) and counts for COUNT", () => {
  it("a Wednesday DTSTART with BYDAY=MO;COUNT=3", () => {
    expect(
      starts(
        cal(...event("DTSTART:20260304T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3")),
        "2026-03-01T00:00:00Z",
        "2026-04-01T00:00:00Z",
      ),
    ).toEqual(["2026-03-04T09:00:00Z", "2026-03-09T09:00:00Z", "2026-03-16T09:00:00Z"]);
  });
});

describe("time zones a TZID may name", () => {
  const win = { from: "2026-07-01T00:00:00Z", to: "2026-07-02T00:00:00Z" };
  const at = (tzid: string, extra: string[] = []): ReturnType<typeof expandIcs> =>
    expandIcs(cal(...extra, ...event(`DTSTART;TZID=${tzid}:20260701T120000`)), win);

  it("IANA, Windows and a path ending in an IANA name", () => {
    expect(at("Europe/Berlin").occurrences[0]?.start).toBe("2026-07-01T10:00:00Z");
    expect(at("W. Europe Standard Time").occurrences[0]?.start).toBe("2026-07-01T10:00:00Z");
    expect(at("/mozilla.org/20050126_1/Europe/Berlin").occurrences[0]?.start).toBe("2026-07-01T10:00:00Z");
    expect(at('"America/New_York"').occurrences[0]?.start).toBe("2026-07-01T16:00:00Z");
  });

  it("a VTIMEZONE that names no known zone uses its own rules", () => {
    const vtz = [
      "BEGIN:VTIMEZONE",
      "TZID:Customized Time Zone",
      "BEGIN:STANDARD",
      "DTSTART:16010101T030000",
      "TZOFFSETFROM:+0330",
      "TZOFFSETTO:+0230",
      "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:16010101T020000",
      "TZOFFSETFROM:+0230",
      "TZOFFSETTO:+0330",
      "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
      "END:DAYLIGHT",
      "END:VTIMEZONE",
    ];
    const r = at("Customized Time Zone", vtz);
    expect(r.unknownZones).toEqual([]);
    expect(r.occurrences[0]?.start).toBe("2026-07-01T08:30:00Z");
  });

  it("an unknown TZID without VTIMEZONE is read in the floating zone and reported", () => {
    const r = at("Somewhere Standard Time");
    expect(r.unknownZones).toEqual(["Somewhere Standard Time"]);
    expect(r.occurrences[0]?.start).toBe("2026-07-01T12:00:00Z");
  });
});
