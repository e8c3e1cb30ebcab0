// Failure mapping of the CalDAV connector, with answers a CalDAV server gives and xandikos
// cannot be made to give: xandikos has no authentication (so no 401/403), no rate limit and
// answers a bad sync token with a 500 rather than RFC 6578 §3.2's valid-sync-token. Status
// meanings from RFC 9110 §15 (401, 403, 412, 429 + Retry-After §10.2.3, 5xx), RFC 6578 §3.2
// (403 + DAV:valid-sync-token) and §3.6 (507 on the collection: a truncated answer).
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCaldavConnector } from "../../../src/connectors/caldav/index.js";
import { encodeCursor } from "../../../src/connectors/caldav/cursor.js";
import type { CalendarEventWrite } from "../../../src/connectors/port.js";

const ORIGIN = "https://dav.example.com";
const USER = "jane@example.com";
const PASSWORD = "s3cret-Pa55";
const CAL = `/calendars/${USER}/work/`;
const CALL_CAL = "/calendars/~/work/";
const NOW = Date.parse("2026-12-01T08:00:00Z");
const window = { start: NOW, end: NOW + 31 * 86_400_000 };
const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;

const make = (timeoutMs?: number) =>
  createCaldavConnector(
    { serverUrl: ORIGIN, calendarPath: CAL, username: USER, password: PASSWORD },
    { clock: { now: () => NOW }, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
  );

const event: CalendarEventWrite = {
  calendarId: CAL,
  eventId: "hold-1",
  start: NOW + 86_400_000,
  end: NOW + 90_000_000,
  zone: "America/Toronto",
  summary: "Consultation",
  status: "tentative",
  transparency: "opaque",
};

const multistatus = (inner: string) =>
  `<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">${inner}</D:multistatus>`;
const XML = { "content-type": "application/xml; charset=utf-8" };

/** Nothing of the credentials, nor the user's e-mail address, leaks into a result. */
function expectNoSecrets(result: unknown): void {
  const text = JSON.stringify(result);
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(basic.slice(6));
  expect(text).not.toContain(USER);
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("CalDAV connector: upstream failures in the port's vocabulary", () => {
  it("401 is unauthorized; Basic credentials are sent and appear nowhere in the result", async () => {
    const scope = nock(ORIGIN).matchHeader("authorization", basic).intercept(CAL, "PROPFIND").reply(401, "", {
      "www-authenticate": 'Basic realm="dav"',
      server: "SabreDAV/4.6",
    });
    const result = await make().calendar.sync({ calendarId: CAL, window });
    scope.done();
    expect(result).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(result.upstream).toEqual({ call: `PROPFIND ${CALL_CAL}`, status: 401, server: "SabreDAV/4.6" });
    expectNoSecrets(result);
  });

  it("403 on a write is unauthorized", async () => {
    const scope = nock(ORIGIN).put(`${CAL}hold-1.ics`).reply(403);
    const result = await make().events.create(event);
    scope.done();
    expect(result).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(result.upstream).toMatchObject({ call: `PUT ${CALL_CAL}hold-1.ics`, status: 403 });
    expectNoSecrets(result);
  });

  it("403 naming a CalDAV precondition refused the request, not the credentials: invalid_request", async () => {
    const scope = nock(ORIGIN)
      .put(`${CAL}hold-1.ics`)
      .reply(
        403,
        '<?xml version="1.0"?><D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><C:no-uid-conflict><D:href>/x.ics</D:href></C:no-uid-conflict></D:error>',
        XML,
      );
    const result = await make().events.create(event);
    scope.done();
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(!result.ok && result.error.message).toContain("no-uid-conflict");
  });

  it("429 is rate_limited with Retry-After, and the request id and rate-limit headers are kept", async () => {
    const scope = nock(ORIGIN)
      .matchHeader("if-none-match", "*")
      .put(`${CAL}hold-1.ics`)
      .reply(429, "", { "retry-after": "7", "x-request-id": "req-42", "x-ratelimit-remaining": "0" });
    const result = await make().events.create(event);
    scope.done();
    expect(result).toMatchObject({ ok: false, error: { code: "rate_limited", retryAfterMs: 7000 } });
    expect(result.upstream).toEqual({
      call: `PUT ${CALL_CAL}hold-1.ics`,
      status: 429,
      request_id: "req-42",
      ratelimit: { "retry-after": "7", "x-ratelimit-remaining": "0" },
    });
  });

  it("5xx is unavailable; a redirect is not followed (credentials stay with the configured server)", async () => {
    const scope = nock(ORIGIN)
      .intercept(CAL, "PROPFIND")
      .reply(503, "", { "retry-after": "30" })
      .delete(`${CAL}hold-1.ics`)
      .reply(301, "", { location: "https://elsewhere.example/x.ics" });
    const sync = await make().calendar.sync({ calendarId: CAL, window });
    expect(sync).toMatchObject({ ok: false, error: { code: "unavailable", retryAfterMs: 30_000 } });
    const del = await make().events.delete(CAL, "hold-1");
    scope.done();
    expect(del).toMatchObject({ ok: false, error: { code: "unavailable" }, upstream: { status: 301 } });
  });

  it("a server that does not answer in time is timeout (status 0)", async () => {
    const scope = nock(ORIGIN).put(`${CAL}hold-1.ics`).delay(2_000).reply(201, "", { etag: '"1"' });
    const result = await make(50).events.create(event);
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(result.upstream).toEqual({ call: `PUT ${CALL_CAL}hold-1.ics`, status: 0 });
    scope.done();
  });

  it("a server that cannot be reached is unavailable (status 0)", async () => {
    const connector = createCaldavConnector(
      { serverUrl: ORIGIN, username: USER, password: PASSWORD },
      { fetch: () => Promise.reject(new TypeError("fetch failed")) },
    );
    const result = await connector.events.delete(CAL, "hold-1", '"1"');
    expect(result).toMatchObject({ ok: false, error: { code: "unavailable" }, upstream: { status: 0 } });
    expectNoSecrets(result);
  });

  it("a PUT answered without an ETag reads it with a GET", async () => {
    const scope = nock(ORIGIN)
      .put(`${CAL}hold-1.ics`)
      .reply(201)
      .get(`${CAL}hold-1.ics`)
      .reply(200, "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", { etag: '"after-store"' });
    const result = await make().events.create(event);
    scope.done();
    expect(result).toMatchObject({ ok: true, value: { eventId: "hold-1", etag: '"after-store"' } });
  });

  it("a resource that is not iCalendar fails the sync as unavailable, naming it", async () => {
    const data = (href: string, body: string) =>
      `<D:response><D:href>${href}</D:href><D:propstat><D:prop><D:getetag>"e"</D:getetag><C:calendar-data>${body}</C:calendar-data></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`;
    const scope = nock(ORIGIN)
      .intercept(CAL, "PROPFIND")
      .reply(
        207,
        multistatus(
          `<D:response><D:href>${CAL}</D:href><D:propstat><D:prop><D:sync-token>http://x/ns/sync/1</D:sync-token></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`,
        ),
        XML,
      )
      .intercept(CAL, "REPORT")
      .reply(
        207,
        multistatus(data(`${CAL}broken.ics`, "BEGIN:VCALENDAR&#13;\nBEGIN:VEVENT&#13;\nUID:x")),
        XML,
      );
    const result = await make().calendar.sync({ calendarId: CAL, window });
    scope.done();
    expect(result).toMatchObject({ ok: false, error: { code: "unavailable" } });
    expect(!result.ok && result.error.message).toContain('"broken"');
  });
});

describe("CalDAV connector: sync-collection answers of other servers (RFC 6578)", () => {
  const cursor = encodeCursor({ token: "http://sabre.io/ns/sync/7", readUntil: window.end });

  it("403 with DAV:valid-sync-token is cursor_expired", async () => {
    const scope = nock(ORIGIN)
      .intercept(CAL, "REPORT", (body: string) =>
        body.includes("<D:sync-token>http://sabre.io/ns/sync/7</D:sync-token>"),
      )
      .reply(403, '<?xml version="1.0"?><D:error xmlns:D="DAV:"><D:valid-sync-token/></D:error>', XML);
    const result = await make().calendar.sync({ calendarId: CAL, cursor, window });
    scope.done();
    expect(result).toMatchObject({ ok: false, error: { code: "cursor_expired" } });
    expect(result.upstream).toMatchObject({ call: `REPORT ${CALL_CAL}`, status: 403 });
  });

  it("409 is cursor_expired; a 403 without the precondition is unauthorized", async () => {
    const scope = nock(ORIGIN).intercept(CAL, "REPORT").reply(409).intercept(CAL, "REPORT").reply(403);
    const conflict = await make().calendar.sync({ calendarId: CAL, cursor, window });
    const forbidden = await make().calendar.sync({ calendarId: CAL, cursor, window });
    scope.done();
    expect(conflict.ok ? "ok" : conflict.error.code).toBe("cursor_expired");
    expect(forbidden.ok ? "ok" : forbidden.error.code).toBe("unauthorized");
  });

  it("a 500 is checked with a PROPFIND: up means the token failed, down means unavailable", async () => {
    const up = nock(ORIGIN)
      .intercept(CAL, "REPORT")
      .reply(500)
      .intercept(CAL, "PROPFIND")
      .reply(
        207,
        multistatus(
          `<D:response><D:href>${CAL}</D:href><D:propstat><D:prop><D:sync-token>t</D:sync-token></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`,
        ),
        XML,
      );
    const expired = await make().calendar.sync({ calendarId: CAL, cursor, window });
    up.done();
    expect(expired.ok ? "ok" : expired.error.code).toBe("cursor_expired");

    const down = nock(ORIGIN).intercept(CAL, "REPORT").reply(500).intercept(CAL, "PROPFIND").reply(503);
    const unavailable = await make().calendar.sync({ calendarId: CAL, cursor, window });
    down.done();
    expect(unavailable.ok ? "ok" : unavailable.error.code).toBe("unavailable");
  });

  it("a 507 on the collection is a page: complete false, with the next cursor", async () => {
    const ics = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "PRODID:-//t//EN",
      "BEGIN:VEVENT",
      "UID:a@t",
      "DTSTAMP:20261201T000000Z",
      "DTSTART;VALUE=DATE:20261224",
      "DTEND;VALUE=DATE:20261227",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("&#13;\n");
    const scope = nock(ORIGIN)
      .intercept(CAL, "REPORT", (body: string) => body.includes("sync-collection"))
      .reply(
        207,
        multistatus(
          `<D:response><D:href>${CAL}a.ics</D:href><D:propstat><D:prop><D:getetag>"2"</D:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>` +
            `<D:response><D:href>${CAL}gone.ics</D:href><D:status>HTTP/1.1 404 Not Found</D:status></D:response>` +
            `<D:response><D:href>${CAL}</D:href><D:status>HTTP/1.1 507 Insufficient Storage</D:status></D:response>` +
            `<D:sync-token>http://sabre.io/ns/sync/9</D:sync-token>`,
        ),
        XML,
      )
      .intercept(
        CAL,
        "REPORT",
        (body: string) => body.includes("calendar-multiget") && body.includes(`${CAL}a.ics`),
      )
      .reply(
        207,
        multistatus(
          `<D:response><D:href>${CAL}a.ics</D:href><D:propstat><D:prop><D:getetag>"2"</D:getetag><C:calendar-data>${ics}</C:calendar-data></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`,
        ),
        XML,
      );
    const result = await make().calendar.sync({ calendarId: CAL, cursor, window });
    scope.done();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      complete: false,
      removed: ["gone"],
      readUntil: window.end,
      nextCursor: encodeCursor({ token: "http://sabre.io/ns/sync/9", readUntil: window.end }),
      events: [
        {
          uid: "a@t",
          eventId: "a",
          start: { date: "2026-12-24" },
          end: { date: "2026-12-27" },
          status: "confirmed",
          transparency: "opaque",
          etag: '"2"',
        },
      ],
    });
  });
});

describe("CalDAV connector: discovery failures", () => {
  it("a 401 on the way is unauthorized", async () => {
    const scope = nock(ORIGIN).persist().intercept(/.*/, "PROPFIND").reply(401).get(/.*/).reply(401);
    const result = await make().discoverCalendars();
    expect(result).toMatchObject({ ok: false, error: { code: "unauthorized" }, upstream: { status: 401 } });
    expectNoSecrets(result);
    scope.persist(false);
  });

  it("a redirect to another server is not followed with the credentials", async () => {
    const elsewhere = nock("https://elsewhere.example")
      .intercept(/.*/, "PROPFIND")
      .reply(207, multistatus(""), XML);
    const scope = nock(ORIGIN)
      .intercept("/.well-known/caldav", "PROPFIND")
      .reply(301, "", { location: "https://elsewhere.example/dav/" });
    const result = await make().discoverCalendars();
    scope.done();
    expect(elsewhere.isDone()).toBe(false);
    expect(result.ok).toBe(false);
  });
});
