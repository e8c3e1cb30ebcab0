import { describe, expect, it } from "vitest";
import type { CalendarSyncPage, RawCalendarEvent } from "../../../src/connectors/port.js";
import { connector, expectNoToken, fixture, graph, useNock, WINDOW } from "./support.js";

useNock();

const DELTA = "/v1.0/me/calendarView/delta";
const page1 = fixture<{ "@odata.nextLink": string }>("delta-initial-page1.json");
const page2 = fixture<{ "@odata.deltaLink": string }>("delta-initial-page2.json");
const pathOf = (link: string) => link.slice("https://graph.microsoft.com".length);

function okPage(r: { ok: boolean; value?: CalendarSyncPage }): CalendarSyncPage {
  expect(r.ok).toBe(true);
  return r.value!;
}
const byId = (events: readonly RawCalendarEvent[], id: string) => events.find((e) => e.eventId === id);

describe("Graph full sync (calendarView delta)", () => {
  it("reads the window page by page, replaying nextLink verbatim, ending with the deltaLink as cursor", async () => {
    const seen: { path: string; prefer: unknown }[] = [];
    graph()
      .get(DELTA)
      .query({ startDateTime: "2026-12-07T00:00:00.000Z", endDateTime: "2027-01-07T00:00:00.000Z" })
      .reply(function () {
        seen.push({ path: this.req.path, prefer: this.req.headers.prefer });
        return [200, page1, { "request-id": "4d1f0c8e-0000-4000-8000-000000000001" }];
      })
      .get(DELTA)
      .query(true)
      .reply(function () {
        seen.push({ path: this.req.path, prefer: this.req.headers.prefer });
        return [200, page2];
      });
    const c = connector({ pageSize: 50 });

    const first = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expectNoToken(first);
    const p1 = okPage(first);
    expect(p1).toMatchObject({ complete: false, removed: [], readUntil: WINDOW.end });
    expect(first.upstream).toMatchObject({
      call: "GET /v1.0/me/calendarView/delta",
      status: 200,
      request_id: "4d1f0c8e-0000-4000-8000-000000000001",
      api_version: "v1.0",
    });

    const second = await c.calendar.sync({ calendarId: "primary", cursor: p1.nextCursor!, window: WINDOW });
    const p2 = okPage(second);
    expect(p2.complete).toBe(true);
    expect(p2.nextCursor).toBeDefined();

    // The second request is the nextLink byte for byte; the Prefer header goes on every page.
    expect(seen[1]!.path).toBe(pathOf(page1["@odata.nextLink"]));
    for (const s of seen) expect(s.prefer).toBe('outlook.timezone="UTC", odata.maxpagesize=50');
  });

  it("maps the instances of a series with a moved and a cancelled occurrence, times in UTC", async () => {
    graph().get(DELTA).query(true).reply(200, page1).get(DELTA).query(true).reply(200, page2);
    const c = connector();
    const p1 = okPage(await c.calendar.sync({ calendarId: "primary", window: WINDOW }));
    const p2 = okPage(
      await c.calendar.sync({ calendarId: "primary", cursor: p1.nextCursor!, window: WINDOW }),
    );
    const events = [...p1.events, ...p2.events];

    // Exchange expanded the series: each instance is its own event, no RRULE, no RECURRENCE-ID.
    expect(byId(events, "AAMkAGI2TGuLAAABEgAQAseries01occ20261207")).toEqual({
      uid: "040000008200E00074C5B7101A82E008070007EA0C07series01occ20261207",
      eventId: "AAMkAGI2TGuLAAABEgAQAseries01occ20261207",
      start: { dateTime: "2026-12-07T08:00:00Z" },
      end: { dateTime: "2026-12-07T09:00:00Z" },
      status: "confirmed",
      transparency: "opaque",
      etag: 'W/"EZ9r3czxY0m2jz8c45czkwAAFXcvJA=="',
    });
    // The moved one is an exception at its new time.
    expect(byId(events, "AAMkAGI2TGuLAAABEgAQAseries01exc20261214")).toMatchObject({
      start: { dateTime: "2026-12-14T10:00:00Z" },
      end: { dateTime: "2026-12-14T11:00:00Z" },
      status: "confirmed",
    });
    for (const e of events) {
      expect(e.rrule).toBeUndefined();
      expect(e.recurrenceId).toBeUndefined();
    }
    // The deleted occurrence (21 December) is simply not in the view.
    expect(events.some((e) => e.eventId.endsWith("20261221"))).toBe(false);
    expect(events.filter((e) => e.eventId.includes("series01")).map((e) => e.start)).toEqual([
      { dateTime: "2026-12-07T08:00:00Z" },
      { dateTime: "2026-12-14T10:00:00Z" },
      { dateTime: "2026-12-28T08:00:00Z" },
    ]);
    // A meeting its organizer cancelled is cancelled; all-day is dates; free is transparent.
    expect(byId(events, "AAMkAGI2TGuLAAA=cancelled01")).toMatchObject({
      status: "cancelled",
      transparency: "transparent",
    });
    expect(byId(events, "AAMkAGI2TGuLAAA=allday01")).toMatchObject({
      start: { date: "2026-12-10" },
      end: { date: "2026-12-12" },
      transparency: "opaque",
    });
    expect(byId(events, "AAMkAGI2TGuLAAA=free01")).toMatchObject({ transparency: "transparent" });
  });
});

describe("Graph incremental sync", () => {
  async function deltaCursor(): Promise<string> {
    graph().get(DELTA).query(true).reply(200, page2);
    return okPage(await connector().calendar.sync({ calendarId: "primary", window: WINDOW })).nextCursor!;
  }

  it("replays the deltaLink verbatim; @removed entries are removals", async () => {
    const cursor = await deltaCursor();
    let path = "";
    graph()
      .get(DELTA)
      .query(true)
      .reply(function () {
        path = this.req.path;
        return [200, fixture("delta-incremental.json")];
      });
    const result = await connector().calendar.sync({ calendarId: "primary", cursor, window: WINDOW });
    expectNoToken(result);
    const page = okPage(result);
    expect(path).toBe(pathOf(page2["@odata.deltaLink"]));
    expect(page.removed).toEqual(["AAMkAGI2TGuLAAABEgAQAseries01occ20261221"]);
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({ eventId: "AAMkAGI2TGuLAAA=single01", status: "tentative" });
    expect(page.complete).toBe(true);
    expect(page.readUntil).toBe(WINDOW.end);
  });

  it("410 syncStateNotFound is cursor_expired", async () => {
    const cursor = await deltaCursor();
    graph().get(DELTA).query(true).reply(410, fixture("error-410-sync-state-not-found.json"));
    const result = await connector().calendar.sync({ calendarId: "primary", cursor, window: WINDOW });
    expectNoToken(result);
    expect(!result.ok && result.error.code).toBe("cursor_expired");
    expect(result.upstream).toMatchObject({ status: 410 });
  });

  it("resyncRequired under another status is cursor_expired too", async () => {
    const cursor = await deltaCursor();
    graph()
      .get(DELTA)
      .query(true)
      .reply(400, { error: { code: "resyncRequired", message: "Resync required." } });
    const result = await connector().calendar.sync({ calendarId: "primary", cursor, window: WINDOW });
    expect(!result.ok && result.error.code).toBe("cursor_expired");
  });

  it("a cursor that is not ours, or points elsewhere, is cursor_expired without a call", async () => {
    const elsewhere =
      "msgraph1." +
      Buffer.from(
        JSON.stringify({ k: "delta", link: "https://evil.example/v1.0/me/calendarView/delta", readUntil: 1 }),
      ).toString("base64url");
    for (const cursor of ["nonsense", elsewhere]) {
      const result = await connector().calendar.sync({ calendarId: "primary", cursor, window: WINDOW });
      expect(!result.ok && result.error.code).toBe("cursor_expired");
      expect(result.upstream).toBeUndefined();
    }
  });
});

describe("Graph sync failures and paths", () => {
  it("429 with Retry-After is rate_limited with retryAfterMs", async () => {
    graph().get(DELTA).query(true).reply(429, fixture("error-429-too-many-requests.json"), {
      "Retry-After": "10",
      "request-id": "r-429",
    });
    const result = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expectNoToken(result);
    expect(!result.ok && result.error).toMatchObject({ code: "rate_limited", retryAfterMs: 10_000 });
    expect(result.upstream).toMatchObject({
      status: 429,
      request_id: "r-429",
      ratelimit: { "retry-after": "10" },
    });
  });

  it("503 is unavailable with Retry-After; 401 is unauthorized", async () => {
    graph()
      .get(DELTA)
      .query(true)
      .reply(503, fixture("error-503-service-unavailable.json"), { "Retry-After": "2.5" })
      .get(DELTA)
      .query(true)
      .reply(401, fixture("error-401-invalid-authentication-token.json"));
    const c = connector();
    const down = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!down.ok && down.error).toMatchObject({ code: "unavailable", retryAfterMs: 2500 });
    const denied = await c.calendar.sync({ calendarId: "primary", window: WINDOW });
    expectNoToken(denied);
    expect(!denied.ok && denied.error.code).toBe("unauthorized");
  });

  it("a named user's named calendar; the principal name is redacted in the call line; Deprecation/Sunset kept", async () => {
    graph()
      .get("/v1.0/users/alice%40contoso.com/calendars/AAMkCAL%3D%3D/calendarView/delta")
      .query(true)
      .reply(200, page2, { Deprecation: "@1798761600", Sunset: "Fri, 01 Jan 2027 00:00:00 GMT" });
    const result = await connector({ user: "alice@contoso.com" }).calendar.sync({
      calendarId: "AAMkCAL==",
      window: WINDOW,
    });
    expect(result.upstream).toMatchObject({
      call: "GET /v1.0/users/[redacted:email]/calendars/AAMkCAL%3D%3D/calendarView/delta",
      deprecation: "@1798761600",
      sunset: "Fri, 01 Jan 2027 00:00:00 GMT",
    });
  });
});

describe("Graph with no answer", () => {
  it("a call that outlives timeoutMs is timeout, with status 0 and no token", async () => {
    graph().get(DELTA).query(true).delay(2_000).reply(200, page2);
    const result = await connector({ timeoutMs: 50 }).calendar.sync({
      calendarId: "primary",
      window: WINDOW,
    });
    expectNoToken(result);
    expect(!result.ok && result.error.code).toBe("timeout");
    expect(result.upstream).toEqual({ call: "GET /v1.0/me/calendarView/delta", status: 0 });
  });
});
