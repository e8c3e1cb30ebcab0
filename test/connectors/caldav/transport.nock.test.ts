// CalDAV answers xandikos cannot give, through the shared upstream helper (connectors/http.ts):
// Deprecation (RFC 9745) and Sunset (RFC 8594) on a response, 429 with an HTTP-date Retry-After
// (RFC 9110 §10.2.3), and the Basic credentials (RFC 7617) kept out of everything the connector
// hands back, logs and notices included.
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCaldavConnector } from "../../../src/connectors/caldav/index.js";
import { resetNoticeLog } from "../../../src/connectors/http.js";
import type { CalendarEventWrite } from "../../../src/connectors/port.js";
import { noticeSink, recordingLogger } from "../http/support.js";

const ORIGIN = "https://dav.example.com";
const USER = "jane@example.com";
const PASSWORD = "s3cret-Pa55";
const CAL = `/calendars/${USER}/work/`;
const NOW = Date.parse("2026-12-01T08:00:00Z");
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
const DEPRECATION = { deprecation: "@1798761600", sunset: "Fri, 01 Jan 2027 00:00:00 GMT" };

function make(timeoutMs?: number) {
  const logger = recordingLogger();
  const sink = noticeSink();
  const connector = createCaldavConnector(
    { serverUrl: ORIGIN, username: USER, password: PASSWORD },
    {
      clock: { now: () => NOW },
      logger,
      onNotice: sink.onNotice,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
  );
  return { connector, logger, notices: sink.notices };
}

const event = (eventId: string): CalendarEventWrite => ({
  calendarId: CAL,
  eventId,
  start: NOW + 86_400_000,
  end: NOW + 90_000_000,
  zone: "America/Toronto",
  summary: "Consultation",
  status: "tentative",
  transparency: "opaque",
});

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
beforeEach(() => resetNoticeLog());
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

describe("CalDAV through connectors/http.ts", () => {
  it("Deprecation and Sunset: in the metadata, logged once per endpoint, a notice on every answer", async () => {
    const scope = nock(ORIGIN)
      .matchHeader("authorization", BASIC)
      .put(/\/hold-\d\.ics$/)
      .times(2)
      .reply(201, "", { etag: '"1"', ...DEPRECATION })
      .delete(`${CAL}hold-1.ics`)
      .reply(204, "", DEPRECATION);
    const { connector, logger, notices } = make();
    const results = [
      await connector.events.create(event("hold-1")),
      await connector.events.create(event("hold-2")),
      await connector.events.delete(CAL, "hold-1"),
    ];
    scope.done();
    for (const r of results) {
      expect(r.ok).toBe(true);
      expect(r.upstream).toMatchObject(DEPRECATION);
    }
    // PUT of two resources is one endpoint (resource names folded); the DELETE is another.
    expect(logger.lines.map((l) => l.fields?.["call"])).toEqual([
      "PUT /calendars/~/work/hold-1.ics",
      "DELETE /calendars/~/work/hold-1.ics",
    ]);
    expect(notices).toHaveLength(3);
    expect(notices[1]).toEqual({
      vendor: "caldav",
      call: "PUT /calendars/~/work/hold-2.ics",
      ...DEPRECATION,
    });
  });

  it("429 with an HTTP-date Retry-After is rate_limited with the time left", async () => {
    const scope = nock(ORIGIN)
      .intercept(CAL, "PROPFIND")
      .reply(429, "", { "retry-after": new Date(NOW + 90_000).toUTCString() });
    const result = await make().connector.calendar.sync({
      calendarId: CAL,
      window: { start: NOW, end: NOW + 86_400_000 },
    });
    scope.done();
    expect(result).toMatchObject({ ok: false, error: { code: "rate_limited", retryAfterMs: 90_000 } });
    expect(result.upstream).toMatchObject({ call: "PROPFIND /calendars/~/work/", status: 429 });
  });

  it("the credentials appear in no result, metadata, log line or notice, whatever the outcome", async () => {
    const scope = nock(ORIGIN)
      .put(`${CAL}a.ics`)
      .reply(401, "", { "www-authenticate": 'Basic realm="dav"', ...DEPRECATION })
      .put(`${CAL}b.ics`)
      .reply(429, "", { "retry-after": "5", ...DEPRECATION })
      .put(`${CAL}c.ics`)
      .replyWithError({ code: "ECONNRESET", message: `reset while sending ${BASIC}` })
      .put(`${CAL}d.ics`)
      .reply(500, `<error>${BASIC}</error>`, DEPRECATION);
    const { connector, logger, notices } = make();
    const results = [
      await connector.events.create(event("a")),
      await connector.events.create(event("b")),
      await connector.events.create(event("c")),
      await connector.events.create(event("d")),
    ];
    scope.done();
    expect(results.map((r) => !r.ok && r.error.code)).toEqual([
      "unauthorized",
      "rate_limited",
      "unavailable",
      "unavailable",
    ]);
    expect(logger.lines.length).toBeGreaterThan(0);
    const everything = JSON.stringify({ results, lines: logger.lines, notices });
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(BASIC.slice(6));
    expect(everything).not.toContain(USER);
  });
});
