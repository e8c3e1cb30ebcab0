import { describe, expect, it } from "vitest";
import type { CalendarSyncPage, RawCalendarEvent } from "../../../src/connectors/port.js";
import { connector, expectNoToken, fixture, google, useNock, WINDOW } from "./support.js";

useNock();

const LIST = "/calendar/v3/calendars/alice%40example.com/events";

function okPage(r: { ok: boolean; value?: CalendarSyncPage }): CalendarSyncPage {
  expect(r.ok).toBe(true);
  return r.value!;
}

const byId = (events: readonly RawCalendarEvent[], id: string): RawCalendarEvent | undefined =>
  events.find((e) => e.eventId === id);

describe("Google full sync", () => {
  it("reads the window page by page, keeps recurrence data, and ends with the sync token as cursor", async () => {
    const queries: Record<string, string>[] = [];
    google()
      .get(LIST)
      .query((q) => (queries.push(q as Record<string, string>), q.pageToken === undefined))
      .reply(200, fixture("events-list-full-page1.json"), { "X-RateLimit-Remaining": "99" })
      .get(LIST)
      .query((q) => (queries.push(q as Record<string, string>), q.pageToken !== undefined))
      .reply(200, fixture("events-list-full-page2.json"));
    const c = connector({ pageSize: 100 });

    const first = await c.calendar.sync({ calendarId: "alice@example.com", window: WINDOW });
    expectNoToken(first);
    const p1 = okPage(first);
    expect(p1.complete).toBe(false);
    expect(p1.removed).toEqual([]);
    expect(p1.readUntil).toBe(WINDOW.end);
    expect(first.upstream).toMatchObject({
      call: "GET /calendar/v3/calendars/[redacted:email]/events",
      status: 200,
      api_version: "v3",
      ratelimit: { "x-ratelimit-remaining": "99" },
    });
    expect(first.upstream?.request_id).toBeUndefined();

    expect(byId(p1.events, "4olec1ndqitve4otre2fo1k1ea")).toEqual({
      uid: "4olec1ndqitve4otre2fo1k1ea@google.com",
      eventId: "4olec1ndqitve4otre2fo1k1ea",
      start: { dateTime: "2026-12-08T10:30:00", zone: "America/New_York" },
      end: { dateTime: "2026-12-08T11:30:00", zone: "America/New_York" },
      status: "confirmed",
      transparency: "opaque",
      sequence: 0,
      etag: '"3512345678901000"',
    });
    expect(byId(p1.events, "0m2v8s1ab9c7allday01")).toMatchObject({
      start: { date: "2026-12-10" },
      end: { date: "2026-12-12" },
    });
    expect(byId(p1.events, "5h1s4free0reminder2")).toMatchObject({
      start: { dateTime: "2026-12-09T17:00:00Z" },
      transparency: "transparent",
    });

    const second = await c.calendar.sync({
      calendarId: "alice@example.com",
      cursor: p1.nextCursor!,
      window: WINDOW,
    });
    expectNoToken(second);
    const p2 = okPage(second);
    expect(p2.complete).toBe(true);
    expect(p2.nextCursor).toBeDefined();

    // Both pages asked for the same window, unexpanded, without deleted events.
    expect(queries).toHaveLength(2);
    for (const q of queries) {
      expect(q).toMatchObject({
        timeMin: "2026-12-07T00:00:00.000Z",
        timeMax: "2027-01-07T00:00:00.000Z",
        singleEvents: "false",
        showDeleted: "false",
        maxResults: "100",
      });
    }
    expect(queries[1]!.pageToken).toBe(
      fixture<{ nextPageToken: string }>("events-list-full-page1.json").nextPageToken,
    );
  });

  it("maps a series with a moved and a cancelled exception into its zone, unexpanded", async () => {
    google().get(LIST).query(true).reply(200, fixture("events-list-full-page2.json"));
    const page = okPage(await connector().calendar.sync({ calendarId: "alice@example.com", window: WINDOW }));

    const madrid = (dateTime: string) => ({ dateTime, zone: "Europe/Madrid" });
    expect(page.events).toEqual([
      {
        uid: "7kq3series0@google.com",
        eventId: "7kq3series0",
        // Google wrote 03:00-05:00 (the calendar's New York offset); the series lives at 09:00 in Madrid.
        start: madrid("2026-12-07T09:00:00"),
        end: madrid("2026-12-07T10:00:00"),
        rrule: "FREQ=WEEKLY;BYDAY=MO;COUNT=6",
        // The TZID value as written; the UTC one moved into the start's zone (08:00Z is 09:00 CET).
        exdate: ["20261228T090000", "20270104T090000"],
        status: "confirmed",
        transparency: "opaque",
        sequence: 2,
        etag: '"3512345678904000"',
      },
      {
        uid: "7kq3series0@google.com",
        eventId: "7kq3series0_20261214T080000Z",
        recurrenceId: madrid("2026-12-14T09:00:00"),
        start: madrid("2026-12-14T11:00:00"),
        end: madrid("2026-12-14T12:00:00"),
        status: "confirmed",
        transparency: "opaque",
        sequence: 2,
        etag: '"3512345678905000"',
      },
      {
        // No iCalUID on a cancelled instance: the series' uid, from the same page.
        uid: "7kq3series0@google.com",
        eventId: "7kq3series0_20261221T080000Z",
        recurrenceId: madrid("2026-12-21T09:00:00"),
        start: madrid("2026-12-21T09:00:00"),
        status: "cancelled",
        transparency: "opaque",
        etag: '"3512345678906000"',
      },
    ]);
    expect(page.removed).toEqual([]);
  });
});

describe("Google incremental sync", () => {
  async function cursorAfterFullSync(): Promise<string> {
    google().get(LIST).query(true).reply(200, fixture("events-list-full-page2.json"));
    const page = okPage(await connector().calendar.sync({ calendarId: "alice@example.com", window: WINDOW }));
    return page.nextCursor!;
  }

  it("sends only the sync token; deletions are removals, a cancelled instance is a cancelled exception", async () => {
    const cursor = await cursorAfterFullSync();
    let query: Record<string, string> = {};
    google()
      .get(LIST)
      .query((q) => ((query = q as Record<string, string>), true))
      .reply(200, fixture("events-list-incremental.json"))
      // The cancelled instance's series is not on the page: its uid is read once.
      .get(`${LIST}/9xseries1`)
      .reply(200, fixture("event-series-9xseries1.json"));

    const result = await connector().calendar.sync({
      calendarId: "alice@example.com",
      cursor,
      window: WINDOW,
    });
    expectNoToken(result);
    const page = okPage(result);
    expect(query.syncToken).toBe("CPDAlvWDx70CEPDAlvWDx70CGAU=");
    expect(query.timeMin).toBeUndefined();
    expect(query.timeMax).toBeUndefined();
    expect(query.showDeleted).toBeUndefined();

    expect(page.removed).toEqual(["4olec1ndqitve4otre2fo1k1ea"]);
    expect(byId(page.events, "9xseries1_20261216T150000Z")).toEqual({
      uid: "9xseries1-imported-uid@example.org",
      eventId: "9xseries1_20261216T150000Z",
      recurrenceId: { dateTime: "2026-12-16T10:00:00", zone: "America/New_York" },
      start: { dateTime: "2026-12-16T10:00:00", zone: "America/New_York" },
      status: "cancelled",
      transparency: "opaque",
      etag: '"3512345678908000"',
    });
    expect(byId(page.events, "2b3c4d5e6f7g8h9i0j1k")).toMatchObject({ status: "tentative" });
    expect(page.complete).toBe(true);
    // readUntil stays the full sync's horizon: an incremental sync reads no further.
    expect(page.readUntil).toBe(WINDOW.end);
    expect(page.nextCursor).not.toBe(cursor);
  });

  it("answers 410 Gone as cursor_expired", async () => {
    const cursor = await cursorAfterFullSync();
    google().get(LIST).query(true).reply(410, fixture("error-410-full-sync-required.json"));
    const result = await connector().calendar.sync({
      calendarId: "alice@example.com",
      cursor,
      window: WINDOW,
    });
    expectNoToken(result);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe("cursor_expired");
    expect(result.upstream).toMatchObject({ status: 410 });
  });

  it("answers a cursor that is not its own as cursor_expired, without a call", async () => {
    const result = await connector().calendar.sync({
      calendarId: "primary",
      cursor: "garbage",
      window: WINDOW,
    });
    expect(!result.ok && result.error.code).toBe("cursor_expired");
    expect(result.upstream).toBeUndefined();
  });
});

describe("Google sync failures", () => {
  it("429 with Retry-After is rate_limited with retryAfterMs, the header kept in metadata", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(429, fixture("error-429-rate-limit-exceeded.json"), { "Retry-After": "30" });
    const result = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expectNoToken(result);
    expect(!result.ok && result.error).toMatchObject({ code: "rate_limited", retryAfterMs: 30_000 });
    expect(result.upstream).toMatchObject({
      call: "GET /calendar/v3/calendars/primary/events",
      status: 429,
      ratelimit: { "retry-after": "30" },
    });
  });

  it("403 rateLimitExceeded is rate_limited (no Retry-After: none invented)", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(403, fixture("error-403-rate-limit-exceeded.json"));
    const result = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!result.ok && result.error.code).toBe("rate_limited");
    expect(!result.ok && result.error.retryAfterMs).toBeUndefined();
  });

  it("403 in the usageLimits domain is rate_limited whatever its reason; other 403s are unauthorized", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(403, {
        error: { code: 403, message: "Quota", errors: [{ domain: "usageLimits", reason: "someNewQuota" }] },
      })
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(403, {
        error: {
          code: 403,
          message: "Forbidden",
          errors: [{ domain: "global", reason: "insufficientPermissions" }],
        },
      });
    const c = connector();
    const quota = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!quota.ok && quota.error.code).toBe("rate_limited");
    const denied = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!denied.ok && denied.error.code).toBe("unauthorized");
  });

  it("the SDK does not retry on its own: a 503 comes back as unavailable, the next call is the caller's", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(503, { error: { code: 503, message: "Backend Error", errors: [{ reason: "backendError" }] } })
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(200, { kind: "calendar#events", items: [], nextSyncToken: "x" });
    const c = connector();
    const first = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!first.ok && first.error.code).toBe("unavailable");
    const second = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(second.ok).toBe(true);
  });

  it("401 is unauthorized, and neither error nor metadata holds the token", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(401, fixture("error-401-invalid-credentials.json"));
    const result = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expectNoToken(result);
    expect(!result.ok && result.error.code).toBe("unauthorized");
  });

  it("Deprecation and Sunset are kept verbatim", async () => {
    google().get("/calendar/v3/calendars/primary/events").query(true).reply(
      200,
      { kind: "calendar#events", items: [], nextSyncToken: "x" },
      {
        Deprecation: "@1798761600",
        Sunset: "Fri, 01 Jan 2027 00:00:00 GMT",
        Server: "ESF",
      },
    );
    const result = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(result.upstream).toMatchObject({
      deprecation: "@1798761600",
      sunset: "Fri, 01 Jan 2027 00:00:00 GMT",
      server: "ESF",
    });
  });

  it("a token provider that fails is reported without its message and without a call", async () => {
    const { createGoogleCalendarConnector } = await import("../../../src/connectors/google/index.js");
    const c = createGoogleCalendarConnector(
      {},
      {
        accessToken: () =>
          Promise.reject(
            Object.assign(new Error("refresh token rt-SECRET revoked"), { code: "unauthorized" }),
          ),
      },
    );
    const result = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!result.ok && result.error.code).toBe("unauthorized");
    expect(JSON.stringify(result)).not.toContain("rt-SECRET");
  });
});

describe("Google with no answer", () => {
  it("a call that outlives timeoutMs is timeout, with status 0 and no token", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .delay(2_000)
      .reply(200, { kind: "calendar#events", items: [] });
    const result = await connector({ timeoutMs: 50 }).calendar.sync({
      calendarId: "primary",
      window: WINDOW,
    });
    expectNoToken(result);
    expect(!result.ok && result.error.code).toBe("timeout");
    expect(result.upstream).toEqual({ call: "GET /calendar/v3/calendars/primary/events", status: 0 });
  });
});

describe("Google pages that cannot be read in full", () => {
  it("a series deleted on the page takes its cancelled instances with it, without a lookup", async () => {
    const cursor =
      "gcal1." +
      Buffer.from(JSON.stringify({ k: "incr", syncToken: "t0", readUntil: WINDOW.end })).toString(
        "base64url",
      );
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query({ syncToken: "t0", singleEvents: "false", maxResults: "250" })
      .reply(200, {
        kind: "calendar#events",
        nextSyncToken: "t1",
        items: [
          { id: "gone0series", status: "cancelled" },
          {
            id: "gone0series_20261216T150000Z",
            status: "cancelled",
            recurringEventId: "gone0series",
            originalStartTime: { dateTime: "2026-12-16T10:00:00-05:00", timeZone: "America/New_York" },
          },
        ],
      });
    const result = await connector().calendar.sync({ calendarId: "primary", cursor, window: WINDOW });
    expect(result.ok && result.value).toMatchObject({
      events: [],
      removed: ["gone0series", "gone0series_20261216T150000Z"],
      complete: true,
    });
  });

  it("an event it cannot read fails the page (incomplete sync), naming the event", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(200, {
        kind: "calendar#events",
        nextSyncToken: "t1",
        items: [
          {
            id: "bad0zone",
            status: "confirmed",
            start: { dateTime: "2026-12-08T10:00:00Z", timeZone: "Mars/Olympus" },
          },
        ],
      });
    const result = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!result.ok && result.error.code).toBe("unavailable");
    expect(!result.ok && result.error.message).toContain("bad0zone");
    expect(result.upstream).toMatchObject({ status: 200 });
  });
});
