// Calendar sync against a real CalDAV server (xandikos, test/support/xandikos.ts): recurring
// series from the recurrence corpus (fixtures/recurrence, SOURCES.md) uploaded as they are and
// read back as RawCalendarEvents with their recurrence data as written (no server expansion),
// then RFC 6578 sync-collection picking up a change, an addition and a deletion.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaldavConnector, type CaldavConnector } from "../../../src/connectors/caldav/index.js";
import { encodeCursor } from "../../../src/connectors/caldav/cursor.js";
import type { RawCalendarEvent } from "../../../src/connectors/port.js";
import { readFixture } from "../../support/fixtures.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../support/xandikos.js";

let server: Xandikos;
let connector: CaldavConnector;

beforeAll(async () => {
  server = await startXandikos();
  connector = createCaldavConnector({ serverUrl: server.serverUrl });
}, XANDIKOS_START_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
});

/** Uploads a file as a foreign client would (not through the connector). */
async function upload(calendar: string, name: string, body: string): Promise<void> {
  const answer = await fetch(new URL(`${calendar}${name}`, server.serverUrl), {
    method: "PUT",
    headers: { "content-type": "text/calendar; charset=utf-8" },
    body,
  });
  await answer.arrayBuffer();
  if (answer.status !== 201 && answer.status !== 204) throw new Error(`PUT ${name}: ${answer.status}`);
}

async function remove(calendar: string, name: string): Promise<void> {
  const answer = await fetch(new URL(`${calendar}${name}`, server.serverUrl), { method: "DELETE" });
  await answer.arrayBuffer();
  if (answer.status !== 204) throw new Error(`DELETE ${name}: ${answer.status}`);
}

const oneOff = (uid: string, start: string, end: string, extra = "") =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//test//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20261201T000000Z",
    `DTSTART:${start}`,
    `DTEND:${end}`,
    "SUMMARY:one-off",
    ...(extra === "" ? [] : [extra]),
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");

const byStart = (a: RawCalendarEvent, b: RawCalendarEvent) =>
  JSON.stringify(a.recurrenceId ?? "").localeCompare(JSON.stringify(b.recurrenceId ?? ""));

/** The event as written, less the server's version and SEQUENCE (checked on their own). */
const withoutEtag = ({ etag: _etag, sequence: _sequence, ...rest }: RawCalendarEvent) => rest;

describe("CalDAV calendar sync against xandikos: full sync", () => {
  const window = { start: Date.parse("2026-12-01T00:00:00Z"), end: Date.parse("2027-01-01T00:00:00Z") };

  it("reads series from the corpus with their recurrence data as written", async () => {
    const cal = await server.makeCalendar("corpus");
    await upload(cal, "deleted.ics", readFixture("recurrence/each_week_but_one_deleted.ics"));
    await upload(cal, "cancel.ics", readFixture("recurrence/issue_18_cancel_status.ics"));
    await upload(cal, "range.ics", readFixture("recurrence/issue_75_range_parameter.ics"));
    await upload(
      cal,
      "floating.ics",
      readFixture("recurrence/issue_243_recurrence_id_is_not_identical_to_dtstart.ics"),
    );

    // A window of 2019-03: the weekly series is in it, the others were begun before or after.
    const march = { start: Date.parse("2019-03-01T00:00:00Z"), end: Date.parse("2019-04-01T00:00:00Z") };
    const page = await connector.calendar.sync({ calendarId: cal, window: march });
    expect(page.ok).toBe(true);
    if (!page.ok) return;
    expect(page.value).toMatchObject({ removed: [], complete: true, readUntil: march.end });
    expect(page.value.nextCursor).toEqual(expect.any(String));
    const events = new Map<string, RawCalendarEvent[]>();
    for (const e of page.value.events)
      events.set(e.eventId, [...(events.get(e.eventId) ?? []), e].sort(byStart));
    expect([...events.keys()].sort()).toEqual(["cancel", "deleted", "floating", "range"]);
    for (const e of page.value.events) expect(e.etag).toMatch(/^".+"$/);
    // SEQUENCE as the file wrote it (RFC 5545 §3.8.7.4), for the engine to rank copies by.
    expect(events.get("deleted")?.[0]?.sequence).toBe(1);

    // each_week_but_one_deleted.ics: TZID start, EXDATE written in UTC, COUNT.
    expect(events.get("deleted")?.map(withoutEtag)).toEqual([
      {
        uid: "SX2CURHKFTKKFFU3VUD7K",
        eventId: "deleted",
        start: { dateTime: "2019-03-04T00:30:00", zone: "Europe/Berlin" },
        end: { dateTime: "2019-03-04T01:00:00", zone: "Europe/Berlin" },
        rrule: "FREQ=WEEKLY;COUNT=8",
        exdate: ["2019-03-10T23:30:00Z"],
        status: "confirmed",
        transparency: "opaque",
      },
    ]);

    // issue_18_cancel_status.ics: the master and its CANCELLED override share the resource.
    expect(events.get("cancel")?.map(withoutEtag)).toEqual([
      {
        uid: "b65c2b5b-b785-4edc-9560-e0379036d1f2",
        eventId: "cancel",
        start: { dateTime: "2020-01-28T22:00:00", zone: "Europe/Berlin" },
        end: { dateTime: "2020-01-28T23:00:00", zone: "Europe/Berlin" },
        rrule: "FREQ=DAILY;COUNT=3",
        status: "confirmed",
        transparency: "opaque",
      },
      {
        uid: "b65c2b5b-b785-4edc-9560-e0379036d1f2",
        eventId: "cancel",
        recurrenceId: { dateTime: "2020-01-29T22:00:00", zone: "Europe/Berlin" },
        start: { dateTime: "2020-01-29T22:00:00", zone: "Europe/Berlin" },
        end: { dateTime: "2020-01-29T23:00:00", zone: "Europe/Berlin" },
        status: "cancelled",
        transparency: "opaque",
      },
    ]);

    // issue_75_range_parameter.ics: RDATE, two RANGE=THISANDFUTURE overrides and a plain one.
    const range = events.get("range") ?? [];
    expect(range.map((e) => [e.recurrenceId, e.thisAndFuture ?? false, e.start])).toEqual([
      [undefined, false, { dateTime: "2024-09-01T12:00:00Z" }],
      [{ dateTime: "2024-09-13T12:00:00Z" }, true, { dateTime: "2024-09-13T09:00:00Z" }],
      [{ dateTime: "2024-09-15T12:00:00Z" }, false, { dateTime: "2024-09-15T17:00:00Z" }],
      [{ dateTime: "2024-09-21T12:00:00Z" }, true, { dateTime: "2024-09-22T14:22:00Z" }],
    ]);
    expect(range[0]).toMatchObject({
      rrule: "FREQ=DAILY;INTERVAL=2;UNTIL=20250920",
      rdate: ["2024-09-14T09:00:00Z"],
    });

    // issue_243: a floating daily series begun in 2015 (xandikos's time-range test sees only
    // its first instance; the RRULE query still finds it).
    expect(events.get("floating")?.map(withoutEtag)).toEqual([
      {
        uid: "test1",
        eventId: "floating",
        start: { dateTime: "2015-09-01T08:00:00" },
        end: { dateTime: "2015-09-01T10:00:00" },
        rrule: "FREQ=DAILY",
        status: "confirmed",
        transparency: "opaque",
      },
    ]);
  });

  it("reads one-off events in the window only, with their resource as eventId", async () => {
    const cal = await server.makeCalendar("oneoffs");
    await upload(cal, "in.ics", oneOff("in@test", "20261210T090000Z", "20261210T100000Z"));
    await upload(
      cal,
      "free.ics",
      oneOff("free@test", "20261211T090000Z", "20261211T100000Z", "TRANSP:TRANSPARENT"),
    );
    await upload(cal, "later.ics", oneOff("later@test", "20270310T090000Z", "20270310T100000Z"));
    await upload(cal, "earlier.ics", oneOff("earlier@test", "20261110T090000Z", "20261110T100000Z"));
    const page = await connector.calendar.sync({ calendarId: cal, window });
    if (!page.ok) throw new Error(page.error.message);
    expect(page.value.events.map((e) => [e.eventId, e.uid, e.transparency]).sort()).toEqual([
      ["free", "free@test", "transparent"],
      ["in", "in@test", "opaque"],
    ]);
    expect(page.upstream).toMatchObject({ call: "REPORT /user/calendars/oneoffs/", status: 207 });
  });

  it("a calendar that does not exist is not_found", async () => {
    const page = await connector.calendar.sync({ calendarId: "/user/calendars/nope/", window });
    expect(page.ok ? "ok" : page.error.code).toBe("not_found");
    expect(page.upstream).toMatchObject({ call: "PROPFIND /user/calendars/nope/" });
  });
});

describe("CalDAV calendar sync against xandikos: sync-collection (RFC 6578)", () => {
  const window = { start: Date.parse("2026-12-01T00:00:00Z"), end: Date.parse("2027-01-01T00:00:00Z") };

  it("picks up a change, an addition and a deletion since the cursor", async () => {
    const cal = await server.makeCalendar("incremental");
    await upload(cal, "stays.ics", oneOff("stays@test", "20261210T090000Z", "20261210T100000Z"));
    await upload(cal, "changes.ics", oneOff("changes@test", "20261211T090000Z", "20261211T100000Z"));
    await upload(cal, "goes.ics", oneOff("goes@test", "20261212T090000Z", "20261212T100000Z"));
    const full = await connector.calendar.sync({ calendarId: cal, window });
    if (!full.ok) throw new Error(full.error.message);
    expect(full.value.events.map((e) => e.eventId).sort()).toEqual(["changes", "goes", "stays"]);
    const cursor = full.value.nextCursor;
    expect(cursor).toEqual(expect.any(String));

    // Nothing changed: an empty page that still carries a cursor.
    const quiet = await connector.calendar.sync({ calendarId: cal, cursor, window });
    expect(quiet).toMatchObject({ ok: true, value: { events: [], removed: [], complete: true } });

    await upload(
      cal,
      "changes.ics",
      oneOff("changes@test", "20261211T130000Z", "20261211T140000Z", "STATUS:TENTATIVE"),
    );
    await remove(cal, "goes.ics");
    // A series added after the full sync (begun long ago: sync-collection has no window).
    await upload(cal, "series.ics", readFixture("recurrence/issue_18_cancel_status.ics"));

    const delta = await connector.calendar.sync({ calendarId: cal, cursor, window });
    expect(delta.ok).toBe(true);
    if (!delta.ok) return;
    expect(delta.value.removed).toEqual(["goes"]);
    expect(delta.value.complete).toBe(true);
    expect(delta.value.readUntil).toBe(window.end);
    expect(delta.value.events.map((e) => [e.eventId, e.status, e.start]).sort()).toEqual([
      ["changes", "tentative", { dateTime: "2026-12-11T13:00:00Z" }],
      ["series", "cancelled", { dateTime: "2020-01-29T22:00:00", zone: "Europe/Berlin" }],
      ["series", "confirmed", { dateTime: "2020-01-28T22:00:00", zone: "Europe/Berlin" }],
    ]);
    expect(delta.value.nextCursor).not.toBe(cursor);

    // The next cursor carries on from there.
    const after = await connector.calendar.sync({ calendarId: cal, cursor: delta.value.nextCursor, window });
    expect(after).toMatchObject({ ok: true, value: { events: [], removed: [] } });
  });

  it("a sync token the server does not know is cursor_expired", async () => {
    const cal = await server.makeCalendar("expired");
    const cursor = encodeCursor({ token: "0123456789abcdef0123456789abcdef01234567", readUntil: window.end });
    const result = await connector.calendar.sync({ calendarId: cal, cursor, window });
    expect(result.ok ? "ok" : result.error.code).toBe("cursor_expired");
    expect(result.upstream).toMatchObject({ call: "REPORT /user/calendars/expired/" });
  });

  it("a cursor this connector did not write is cursor_expired, without a request", async () => {
    const result = await connector.calendar.sync({
      calendarId: server.defaultCalendar,
      cursor: "nonsense",
      window,
    });
    expect(result).toMatchObject({ ok: false, error: { code: "cursor_expired" } });
    expect(result.upstream).toBeUndefined();
  });
});
