// Google Calendar through the shared upstream helper (connectors/http.ts, docs/ARCHITECTURE.md, Upstream requests: "every
// upstream request goes through connectors/http.ts"): the SDK sends with the helper's capturing
// fetch, so the pin (v3 in every path), the User-Agent, the token, the capture of Deprecation
// (RFC 9745) / Sunset (RFC 8594) and the 429 + Retry-After (RFC 9110 §10.2.3) mapping are the
// helper's. Answers are shaped after the Calendar API reference (fixtures/google/SOURCES.md).
import nock from "nock";
import { beforeEach, describe, expect, it } from "vitest";
import { createGoogleCalendarConnector, googleEventId } from "../../../src/connectors/google/index.js";
import { resetNoticeLog } from "../../../src/connectors/http.js";
import type { CalendarEventWrite } from "../../../src/connectors/port.js";
import { expectedUserAgent, noticeSink, recordingLogger } from "../http/support.js";
import { API, fixture, NOW, TOKEN, useNock, WINDOW } from "./support.js";

useNock();
beforeEach(() => resetNoticeLog());

const UA = expectedUserAgent("google-calendar", "v3");
const EVENTS = "/calendar/v3/calendars/primary/events";
const DEPRECATION = { Deprecation: "@1798761600", Sunset: "Fri, 01 Jan 2027 00:00:00 GMT" };
const empty = { kind: "calendar#events", items: [], nextSyncToken: "t1" };

function make(accessToken: () => Promise<string> = () => Promise.resolve(TOKEN), timeoutMs?: number) {
  const logger = recordingLogger();
  const sink = noticeSink();
  const connector = createGoogleCalendarConnector(timeoutMs === undefined ? {} : { timeoutMs }, {
    accessToken,
    clock: { now: () => NOW },
    logger,
    onNotice: sink.onNotice,
  });
  return { connector, logger, notices: sink.notices };
}

const write: CalendarEventWrite = {
  calendarId: "primary",
  eventId: "booking:bk_transport:event",
  start: Date.parse("2026-12-09T15:00:00Z"),
  end: Date.parse("2026-12-09T15:45:00Z"),
  zone: "America/New_York",
  summary: "Haircut",
  status: "tentative",
  transparency: "opaque",
};

describe("Google Calendar through connectors/http.ts", () => {
  it("every request carries the v3 path pin, the gateway's User-Agent and the token, whatever the operation", async () => {
    const seen: { path: string; ua: unknown; auth: unknown }[] = [];
    const id = googleEventId(write.eventId);
    const scope = nock(API).persist();
    for (const method of ["GET", "POST", "PATCH", "DELETE"]) {
      scope.intercept(/.*/, method).reply(function (uri) {
        seen.push({ path: uri, ua: this.req.headers["user-agent"], auth: this.req.headers["authorization"] });
        if (uri.includes("/channels/stop")) return [204, ""];
        if (uri.includes("/watch")) return [200, fixture("watch-channel.json")];
        if (method === "GET" && uri.startsWith(EVENTS + "?")) return [200, empty];
        return [200, { ...fixture("event-inserted.json"), id }];
      });
    }
    const { connector } = make();
    const results = [
      await connector.calendar.sync({ calendarId: "primary", window: WINDOW }),
      await connector.events.create(write),
      await connector.events.update(write, '"1"'),
      await connector.events.delete("primary", write.eventId),
      await connector.channels.watch({
        calendarId: "primary",
        channelId: "ch-1",
        address: "https://gateway.example/hooks/google",
        token: "channel-token",
      }),
      await connector.channels.stop({ channelId: "ch-1", resourceId: "r-1" }),
    ];
    nock.cleanAll();
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, true]);
    expect(seen).toHaveLength(6);
    for (const request of seen) {
      expect(request.path).toMatch(/^\/calendar\/v3\//);
      expect(request.ua).toBe(UA);
      expect(request.auth).toBe(`Bearer ${TOKEN}`);
    }
    for (const r of results) expect(r.upstream?.api_version).toBe("v3");
  });

  it("Deprecation and Sunset: in the metadata, logged once per endpoint, a notice on every answer", async () => {
    nock(API)
      .get(EVENTS)
      .query(true)
      .times(2)
      .reply(200, empty, DEPRECATION)
      .get("/calendar/v3/calendars/alice%40example.com/events")
      .query(true)
      .reply(200, empty, DEPRECATION);
    const { connector, logger, notices } = make();
    const first = await connector.calendar.sync({ calendarId: "primary", window: WINDOW });
    const again = await connector.calendar.sync({ calendarId: "primary", window: WINDOW });
    const other = await connector.calendar.sync({ calendarId: "alice@example.com", window: WINDOW });
    for (const r of [first, again, other]) {
      expect(r.ok).toBe(true);
      expect(r.upstream).toMatchObject({ deprecation: "@1798761600", sunset: DEPRECATION.Sunset });
    }
    // Two endpoints, two warnings; the second call to the first endpoint adds none.
    expect(logger.lines.map((l) => l.fields?.["call"])).toEqual([
      "GET /calendar/v3/calendars/primary/events",
      "GET /calendar/v3/calendars/[redacted:email]/events",
    ]);
    expect(notices).toHaveLength(3);
    expect(notices[0]).toEqual({
      vendor: "google-calendar",
      call: "GET /calendar/v3/calendars/primary/events",
      deprecation: "@1798761600",
      sunset: DEPRECATION.Sunset,
    });
  });

  it("429 with an HTTP-date Retry-After is rate_limited with the time left", async () => {
    nock(API)
      .get(EVENTS)
      .query(true)
      .reply(429, fixture("error-429-rate-limit-exceeded.json"), {
        "Retry-After": new Date(NOW + 45_000).toUTCString(),
      });
    const result = await make().connector.calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(!result.ok && result.error).toMatchObject({ code: "rate_limited", retryAfterMs: 45_000 });
    expect(result.upstream).toMatchObject({
      status: 429,
      ratelimit: { "retry-after": new Date(NOW + 45_000).toUTCString() },
    });
  });

  it("the token appears in no result, metadata, log line or notice, whatever the outcome", async () => {
    nock(API)
      .get(EVENTS)
      .query(true)
      .reply(401, fixture("error-401-invalid-credentials.json"), DEPRECATION)
      .get(EVENTS)
      .query(true)
      .reply(429, fixture("error-429-rate-limit-exceeded.json"), { "Retry-After": "3", ...DEPRECATION })
      .get(EVENTS)
      .query(true)
      .reply(503, { error: { code: 503, message: "Backend Error" } }, { "Retry-After": "1.5" })
      .get(EVENTS)
      .query(true)
      .replyWithError({ code: "ECONNRESET", message: `socket closed for Bearer ${TOKEN}` })
      .get(EVENTS)
      .query(true)
      .delay(1_000)
      .reply(200, empty);
    const { connector, logger, notices } = make();
    const sync = () => connector.calendar.sync({ calendarId: "primary", window: WINDOW });
    const results = [await sync(), await sync(), await sync(), await sync()];
    const slow = make(undefined, 30);
    results.push(await slow.connector.calendar.sync({ calendarId: "primary", window: WINDOW }));
    const revoked = make(() =>
      Promise.reject(Object.assign(new Error(`refresh of ${TOKEN} failed`), { code: "unauthorized" })),
    );
    results.push(await revoked.connector.calendar.sync({ calendarId: "primary", window: WINDOW }));

    expect(results.map((r) => !r.ok && r.error.code)).toEqual([
      "unauthorized",
      "rate_limited",
      "unavailable",
      "unavailable",
      "timeout",
      "unauthorized",
    ]);
    expect(!results[2]!.ok && results[2]!.error.retryAfterMs).toBe(1500);
    expect(results[5]!.upstream).toBeUndefined(); // nothing was sent
    expect(logger.lines.length).toBeGreaterThan(0);
    const everything = JSON.stringify({ results, lines: logger.lines, notices });
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain("SECRET-TEST-TOKEN");
  });
});
