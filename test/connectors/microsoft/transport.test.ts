// Microsoft Graph through the shared upstream helper (connectors/http.ts, docs/ARCHITECTURE.md, Upstream requests: "every
// upstream request goes through connectors/http.ts"): the pin (/v1.0 in every path), the
// User-Agent, `Prefer: outlook.timezone="UTC"`, the token, the capture of Deprecation (RFC 9745)
// / Sunset (RFC 8594), and 429/503 with Retry-After ("Microsoft Graph throttling guidance";
// RFC 9110 §10.2.3) are the helper's. Answers follow fixtures/microsoft/SOURCES.md.
import nock from "nock";
import { beforeEach, describe, expect, it } from "vitest";
import { resetNoticeLog } from "../../../src/connectors/http.js";
import { createMicrosoftCalendarConnector } from "../../../src/connectors/microsoft/index.js";
import type { CalendarEventWrite } from "../../../src/connectors/port.js";
import { expectedUserAgent, noticeSink, recordingLogger } from "../http/support.js";
import { fixture, GRAPH, NOW, TOKEN, useNock, WINDOW } from "./support.js";

useNock();
beforeEach(() => resetNoticeLog());

const UA = expectedUserAgent("microsoft-graph", "v1.0");
const DELTA = "/v1.0/me/calendarView/delta";
const DEPRECATION = { Deprecation: "@1798761600", Sunset: "Fri, 01 Jan 2027 00:00:00 GMT" };
const page2 = fixture("delta-initial-page2.json");
const created = fixture<{ id: string }>("event-created.json");

function make(accessToken: () => Promise<string> = () => Promise.resolve(TOKEN), timeoutMs?: number) {
  const logger = recordingLogger();
  const sink = noticeSink();
  const connector = createMicrosoftCalendarConnector(timeoutMs === undefined ? {} : { timeoutMs }, {
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
  upstreamEventId: created.id,
  start: Date.parse("2026-12-09T09:00:00Z"),
  end: Date.parse("2026-12-09T09:45:00Z"),
  zone: "Europe/Madrid",
  summary: "Haircut",
  status: "tentative",
  transparency: "opaque",
};

describe("Microsoft Graph through connectors/http.ts", () => {
  it("every request carries the /v1.0 pin, the gateway's User-Agent, Prefer outlook.timezone and the token", async () => {
    const seen: { path: string; ua: unknown; prefer: unknown; auth: unknown }[] = [];
    const scope = nock(GRAPH).persist();
    for (const method of ["GET", "POST", "PATCH", "DELETE"]) {
      scope.intercept(/.*/, method).reply(function (uri) {
        const h = this.req.headers;
        seen.push({ path: uri, ua: h["user-agent"], prefer: h["prefer"], auth: h["authorization"] });
        if (method === "DELETE") return [204, ""];
        if (uri.startsWith(DELTA)) return [200, page2];
        if (uri.includes("subscriptions")) {
          return method === "POST"
            ? [201, fixture("subscription-created.json")]
            : [200, fixture("subscription-renewed.json")];
        }
        return [method === "POST" ? 201 : 200, created];
      });
    }
    const { connector } = make();
    const results = [
      await connector.calendar.sync({ calendarId: "primary", window: WINDOW }),
      await connector.events.create(write),
      await connector.events.update(write, 'W/"x"'),
      await connector.events.delete("primary", write.eventId, undefined, { upstreamEventId: created.id }),
      await connector.subscriptions.create({
        calendarId: "primary",
        notificationUrl: "https://gateway.example/hooks/graph",
        clientState: "state",
      }),
      await connector.subscriptions.renew("7f105c7d-2dc5-4530-97cd-4e7ae6534c07"),
      await connector.subscriptions.delete("7f105c7d-2dc5-4530-97cd-4e7ae6534c07"),
    ];
    nock.cleanAll();
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, true, true]);
    expect(seen).toHaveLength(7);
    for (const request of seen) {
      expect(request.path).toMatch(/^\/v1\.0\//);
      expect(request.ua).toBe(UA);
      expect(request.prefer).toContain('outlook.timezone="UTC"');
      expect(request.auth).toBe(`Bearer ${TOKEN}`);
    }
    for (const r of results) expect(r.upstream?.api_version).toBe("v1.0");
  });

  it("Deprecation and Sunset: in the metadata, logged once per endpoint, a notice on every answer", async () => {
    nock(GRAPH)
      .get(DELTA)
      .query(true)
      .times(2)
      .reply(200, page2, DEPRECATION)
      .post("/v1.0/me/events")
      .reply(201, created, DEPRECATION);
    const { connector, logger, notices } = make();
    const first = await connector.calendar.sync({ calendarId: "primary", window: WINDOW });
    const again = await connector.calendar.sync({ calendarId: "primary", window: WINDOW });
    const write1 = await connector.events.create(write);
    for (const r of [first, again, write1]) {
      expect(r.ok).toBe(true);
      expect(r.upstream).toMatchObject({ deprecation: "@1798761600", sunset: DEPRECATION.Sunset });
    }
    expect(logger.lines.map((l) => l.fields?.["call"])).toEqual([
      "GET /v1.0/me/calendarView/delta",
      "POST /v1.0/me/events",
    ]);
    expect(logger.lines[0]?.message).toContain("microsoft-graph");
    expect(notices.map((n) => n.call)).toEqual([
      "GET /v1.0/me/calendarView/delta",
      "GET /v1.0/me/calendarView/delta",
      "POST /v1.0/me/events",
    ]);
    expect(notices[2]).toEqual({
      vendor: "microsoft-graph",
      call: "POST /v1.0/me/events",
      deprecation: "@1798761600",
      sunset: DEPRECATION.Sunset,
    });
  });

  it("429 on a write and 503 on a renewal carry their Retry-After (seconds or HTTP-date)", async () => {
    nock(GRAPH)
      .post("/v1.0/me/events")
      .reply(429, fixture("error-429-too-many-requests.json"), {
        "Retry-After": new Date(NOW + 20_000).toUTCString(),
      })
      .patch("/v1.0/subscriptions/sub-1")
      .reply(503, fixture("error-503-service-unavailable.json"), { "Retry-After": "7" });
    const { connector } = make();
    const limited = await connector.events.create(write);
    expect(!limited.ok && limited.error).toMatchObject({ code: "rate_limited", retryAfterMs: 20_000 });
    expect(limited.upstream).toMatchObject({ call: "POST /v1.0/me/events", status: 429 });
    const down = await connector.subscriptions.renew("sub-1");
    expect(!down.ok && down.error).toMatchObject({ code: "unavailable", retryAfterMs: 7_000 });
  });

  it("the token appears in no result, metadata, log line or notice, whatever the outcome", async () => {
    nock(GRAPH)
      .get(DELTA)
      .query(true)
      .reply(401, fixture("error-401-invalid-authentication-token.json"), DEPRECATION)
      .get(DELTA)
      .query(true)
      .reply(429, fixture("error-429-too-many-requests.json"), { "Retry-After": "3", ...DEPRECATION })
      .get(DELTA)
      .query(true)
      .replyWithError({ code: "ECONNRESET", message: `socket closed for Bearer ${TOKEN}` })
      .get(DELTA)
      .query(true)
      .delay(1_000)
      .reply(200, page2);
    const { connector, logger, notices } = make();
    const sync = () => connector.calendar.sync({ calendarId: "primary", window: WINDOW });
    const results = [await sync(), await sync(), await sync()];
    results.push(
      await make(undefined, 30).connector.calendar.sync({ calendarId: "primary", window: WINDOW }),
    );
    const revoked = make(() =>
      Promise.reject(Object.assign(new Error(`refresh of ${TOKEN} failed`), { code: "unauthorized" })),
    );
    results.push(await revoked.connector.calendar.sync({ calendarId: "primary", window: WINDOW }));

    expect(results.map((r) => !r.ok && r.error.code)).toEqual([
      "unauthorized",
      "rate_limited",
      "unavailable",
      "timeout",
      "unauthorized",
    ]);
    expect(results[4]!.upstream).toBeUndefined(); // nothing was sent
    expect(logger.lines.length).toBeGreaterThan(0);
    const everything = JSON.stringify({ results, lines: logger.lines, notices });
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain("SECRET-GRAPH-TEST-TOKEN");
  });
});
