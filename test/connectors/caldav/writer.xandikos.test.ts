// Event writes against a real CalDAV server (xandikos, test/support/xandikos.ts): create with
// If-None-Match, update and delete with If-Match (RFC 4791 §5.3.2, RFC 9110 §13.1), and what
// the gateway reads back through the connector's own calendar sync.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaldavConnector, type CaldavConnector } from "../../../src/connectors/caldav/index.js";
import type { CalendarEventWrite, RawCalendarEvent } from "../../../src/connectors/port.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../support/xandikos.js";

let server: Xandikos;
let connector: CaldavConnector;
const NOW = Date.parse("2026-12-01T08:00:00Z");
const window = { start: NOW, end: NOW + 31 * 86_400_000 };

beforeAll(async () => {
  server = await startXandikos();
  connector = createCaldavConnector({ serverUrl: server.serverUrl }, { clock: { now: () => NOW } });
}, XANDIKOS_START_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
});

const booking = (
  calendarId: string,
  eventId: string,
  over: Partial<CalendarEventWrite> = {},
): CalendarEventWrite => ({
  calendarId,
  eventId,
  start: Date.parse("2026-12-03T14:00:00Z"),
  end: Date.parse("2026-12-03T15:00:00Z"),
  zone: "Europe/Berlin",
  summary: "Haircut (pending approval)",
  status: "tentative",
  transparency: "opaque",
  ...over,
});

async function readAll(calendarId: string): Promise<readonly RawCalendarEvent[]> {
  const page = await connector.calendar.sync({ calendarId, window });
  if (!page.ok) throw new Error(`sync failed: ${page.error.code} ${page.error.message}`);
  return page.value.events;
}

describe("CalDAV event writer against xandikos", () => {
  it("creates a TENTATIVE event under <calendar>/<eventId>.ics and reads it back", async () => {
    const cal = await server.makeCalendar("create");
    const created = await connector.events.create(booking(cal, "host1:hold-7f3a b"));
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.value).toMatchObject({ calendarId: cal, eventId: "host1:hold-7f3a b" });
    expect(created.value.etag).toMatch(/^".+"$/);
    expect(created.upstream).toMatchObject({
      call: "PUT /user/calendars/create/host1%3Ahold-7f3a%20b.ics",
      status: 201,
    });

    const events = await readAll(cal);
    expect(events).toEqual([
      {
        uid: "host1:hold-7f3a b",
        eventId: "host1:hold-7f3a b",
        start: { dateTime: "2026-12-03T14:00:00Z" },
        end: { dateTime: "2026-12-03T15:00:00Z" },
        status: "tentative",
        transparency: "opaque",
        etag: created.value.etag,
      },
    ]);
  });

  it("a retried create answers the stored event and never writes a second one", async () => {
    const cal = await server.makeCalendar("retry");
    const first = await connector.events.create(booking(cal, "hold-1"));
    const again = await connector.events.create(booking(cal, "hold-1", { summary: "changed in between" }));
    expect(first.ok && again.ok).toBe(true);
    if (!first.ok || !again.ok) return;
    expect(again.value.etag).toBe(first.value.etag);
    expect(again.upstream).toMatchObject({ call: "GET /user/calendars/retry/hold-1.ics", status: 200 });
    const events = await readAll(cal);
    expect(events).toHaveLength(1);
    expect(events[0]?.etag).toBe(first.value.etag);
  });

  it("updates with the current ETag; a stale one is read again and the change made on the current version", async () => {
    const cal = await server.makeCalendar("update");
    const created = await connector.events.create(booking(cal, "hold-2"));
    if (!created.ok) throw new Error(created.error.message);
    const approved = await connector.events.update(
      booking(cal, "hold-2", { status: "confirmed" }),
      created.value.etag,
    );
    expect(approved.ok).toBe(true);
    if (!approved.ok) return;
    expect(approved.value.etag).not.toBe(created.value.etag);
    expect((await readAll(cal)).map((e) => [e.status, e.etag])).toEqual([["confirmed", approved.value.etag]]);

    const stale = await connector.events.update(
      booking(cal, "hold-2", { status: "cancelled", transparency: "transparent" }),
      created.value.etag,
    );
    expect(stale.ok).toBe(true);
    if (!stale.ok) return;
    expect(stale.upstream).toMatchObject({ call: "PUT /user/calendars/update/hold-2.ics", status: 204 });
    expect((await readAll(cal)).map((e) => [e.status, e.transparency, e.etag])).toEqual([
      ["cancelled", "transparent", stale.value.etag],
    ]);
  });

  it("a rewrite after someone else's edit keeps what they wrote (LOCATION, COMMENT, VALARM, X-, parameters)", async () => {
    const cal = await server.makeCalendar("merge");
    const created = await connector.events.create(booking(cal, "hold-9", { description: "Booked online." }));
    if (!created.ok) throw new Error(created.error.message);
    const url = new URL(`${cal}hold-9.ics`, server.serverUrl);
    const before = await fetch(url);
    const edited = (await before.text()).replace(
      "END:VEVENT",
      [
        'LOCATION;ALTREP="https://maps.example/2":Chair 2\\, back room',
        "COMMENT:Bring the blue towel",
        "ATTENDEE;PARTSTAT=ACCEPTED;CN=Reception:mailto:desk@example.com",
        "X-RECEPTION-NOTE:called to confirm",
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        "DESCRIPTION:Prepare chair",
        "TRIGGER:-PT15M",
        "END:VALARM",
        "END:VEVENT",
      ].join("\r\n"),
    );
    const put = await fetch(url, {
      method: "PUT",
      headers: { "content-type": "text/calendar", "if-match": before.headers.get("etag") ?? "" },
      body: edited.replace("DESCRIPTION:Booked online.", "DESCRIPTION:Booked online. Allergic to lavender."),
    });
    await put.arrayBuffer();
    expect(put.status).toBe(204);

    const moved = await connector.events.update(
      booking(cal, "hold-9", {
        status: "confirmed",
        start: Date.parse("2026-12-03T16:00:00Z"),
        end: Date.parse("2026-12-03T17:00:00Z"),
        description: "Booked online.",
      }),
      created.value.etag,
    );
    expect(moved.ok).toBe(true);
    const stored = await (await fetch(url)).text();
    expect(stored).toContain("STATUS:CONFIRMED");
    expect(stored).toContain("TRANSP:OPAQUE");
    expect(stored).toContain("DTSTART:20261203T160000Z");
    expect(stored).toContain("DTEND:20261203T170000Z");
    expect(stored).toContain("SEQUENCE:1");
    expect(stored).toContain('LOCATION;ALTREP="https://maps.example/2":Chair 2\\, back room');
    expect(stored).toContain("COMMENT:Bring the blue towel");
    // ical.js writes parameters in its own order; their order carries no meaning (RFC 5545 §3.2).
    expect(stored).toMatch(
      /ATTENDEE;(CN=Reception;PARTSTAT=ACCEPTED|PARTSTAT=ACCEPTED;CN=Reception):mailto:desk@example\.com/,
    );
    expect(stored).toContain("X-RECEPTION-NOTE:called to confirm");
    expect(stored).toMatch(/BEGIN:VALARM[\s\S]*TRIGGER:-PT15M[\s\S]*END:VALARM/);
    expect(stored).toContain("DESCRIPTION:Booked online. Allergic to lavender.");
  });

  it("a CANCELLED rewrite keeps the resource, with STATUS:CANCELLED and TRANSP as written", async () => {
    const cal = await server.makeCalendar("cancel");
    const created = await connector.events.create(booking(cal, "hold-3"));
    if (!created.ok) throw new Error(created.error.message);
    const declined = await connector.events.update(
      booking(cal, "hold-3", { status: "cancelled", transparency: "transparent" }),
      created.value.etag,
    );
    expect(declined.ok).toBe(true);
    expect((await readAll(cal)).map((e) => [e.status, e.transparency])).toEqual([
      ["cancelled", "transparent"],
    ]);
  });

  it("deletes with If-Match: a stale ETag is precondition_failed, a gone event is not an error", async () => {
    const cal = await server.makeCalendar("delete");
    const created = await connector.events.create(booking(cal, "hold-4"));
    if (!created.ok) throw new Error(created.error.message);
    const updated = await connector.events.update(
      booking(cal, "hold-4", { summary: "moved" }),
      created.value.etag,
    );
    if (!updated.ok) throw new Error(updated.error.message);

    const stale = await connector.events.delete(cal, "hold-4", created.value.etag);
    expect(stale.ok ? "ok" : stale.error.code).toBe("precondition_failed");
    expect(await readAll(cal)).toHaveLength(1);

    const deleted = await connector.events.delete(cal, "hold-4", updated.value.etag);
    expect(deleted).toMatchObject({ ok: true, value: { deleted: true } });
    expect(deleted.upstream).toMatchObject({ call: "DELETE /user/calendars/delete/hold-4.ics", status: 204 });
    expect(await readAll(cal)).toHaveLength(0);

    expect(await connector.events.delete(cal, "hold-4", updated.value.etag)).toMatchObject({
      ok: true,
      value: { deleted: false },
    });
    expect(await connector.events.delete(cal, "hold-4")).toMatchObject({
      ok: true,
      value: { deleted: false },
    });
  });

  it("an update of an event that is gone is precondition_failed (the gateway reads again)", async () => {
    const cal = await server.makeCalendar("gone");
    const result = await connector.events.update(booking(cal, "never-made"), '"an-old-etag"');
    expect(result.ok ? "ok" : result.error.code).toBe("precondition_failed");
  });

  it("a UID already used by another resource is invalid_request (CalDAV no-uid-conflict)", async () => {
    const cal = await server.makeCalendar("uid-conflict");
    // A client filed an event with the UID the gateway is about to use, under another name.
    const body = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//EN", "BEGIN:VEVENT", "UID:hold-6"]
      .concat(["DTSTAMP:20261201T000000Z", "DTSTART:20261205T090000Z", "DTEND:20261205T100000Z"])
      .concat(["END:VEVENT", "END:VCALENDAR", ""])
      .join("\r\n");
    const put = await fetch(new URL(`${cal}foreign.ics`, server.serverUrl), {
      method: "PUT",
      headers: { "content-type": "text/calendar" },
      body,
    });
    await put.arrayBuffer();
    expect(put.status).toBe(201);

    const result = await connector.events.create(booking(cal, "hold-6"));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("no-uid-conflict") as unknown,
    });
    expect(result.upstream).toMatchObject({ call: "PUT /user/calendars/uid-conflict/hold-6.ics" });
    expect((await readAll(cal)).map((e) => e.eventId)).toEqual(["foreign"]);
  });

  it("a write into a calendar that does not exist is not_found", async () => {
    const result = await connector.events.create(booking("/user/calendars/missing/", "hold-8"));
    expect(result.ok ? "ok" : result.error.code).toBe("not_found");
    expect(result.upstream).toMatchObject({ call: "PUT /user/calendars/missing/hold-8.ics", status: 404 });
  });

  it("refuses a calendar on another origin before any request (credentials stay home)", async () => {
    const result = await connector.events.create(booking("https://elsewhere.example/cal/", "x"));
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(result.upstream).toBeUndefined();
  });
});

describe("CalDAV calendar discovery against xandikos (onboarding)", () => {
  it("walks /.well-known/caldav, the principal and its calendar home to the calendars", async () => {
    await server.makeCalendar("found-by-discovery");
    const found = await connector.discoverCalendars();
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    expect(found.value).toContainEqual({
      calendarId: "/user/calendars/found-by-discovery/",
      displayName: "found-by-discovery",
      components: expect.arrayContaining(["VEVENT"]) as unknown,
      syncCollection: true,
    });
    expect(found.value.map((c) => c.calendarId)).toContain(server.defaultCalendar);
    expect(found.upstream).toMatchObject({
      call: expect.stringMatching(/^PROPFIND \/user\/calendars\//) as unknown,
    });
  });
});
