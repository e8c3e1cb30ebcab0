// Every CalDAV request goes through the shared upstream helper (connectors/http.ts,
// docs/ARCHITECTURE.md, Upstream requests):
// checked against a real CalDAV server (xandikos, test/support/xandikos.ts) by recording what
// leaves the helper, for each kind of request the connector makes (PROPFIND, REPORT
// calendar-query, REPORT sync-collection + multiget, PUT, GET, DELETE, and tsdav's discovery
// walk). CalDAV has no API version to pin (the RFCs are the contract): the User-Agent names them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaldavConnector, type CaldavConnector } from "../../../src/connectors/caldav/index.js";
import type { CalendarEventWrite } from "../../../src/connectors/port.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../support/xandikos.js";
import { expectedUserAgent } from "../http/support.js";

// xandikos has no authentication and ignores the header; what matters is that it is sent.
const USER = "jane@example.com";
const PASSWORD = "xandikos-Pa55-must-not-leak";
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
const NOW = Date.parse("2026-12-01T08:00:00Z");
const window = { start: NOW, end: NOW + 31 * 86_400_000 };

let server: Xandikos;
let connector: CaldavConnector;
const sent: { method: string; path: string; ua: string | null; auth: string | null }[] = [];

/** The fetch under the helper: it sees each request exactly as the helper sends it. */
const recording: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  sent.push({
    method: init?.method ?? "GET",
    path: url.pathname,
    ua: headers.get("user-agent"),
    auth: headers.get("authorization"),
  });
  return fetch(input, init);
};

beforeAll(async () => {
  server = await startXandikos();
  connector = createCaldavConnector(
    { serverUrl: server.serverUrl, username: USER, password: PASSWORD },
    { clock: { now: () => NOW }, fetch: recording },
  );
}, XANDIKOS_START_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
});

const booking = (calendarId: string): CalendarEventWrite => ({
  calendarId,
  eventId: "hold-ua",
  start: NOW + 86_400_000,
  end: NOW + 90_000_000,
  zone: "Europe/Berlin",
  summary: "Haircut",
  status: "tentative",
  transparency: "opaque",
});

describe("CalDAV through connectors/http.ts, against xandikos", () => {
  it("sends the gateway's User-Agent and the Basic credentials on every request, and keeps them out of results", async () => {
    const cal = await server.makeCalendar("transport");
    const results = [];
    results.push(await connector.discoverCalendars());
    const full = await connector.calendar.sync({ calendarId: cal, window });
    results.push(full);
    const created = await connector.events.create(booking(cal));
    results.push(created);
    results.push(await connector.events.create(booking(cal))); // 412, read back with GET
    if (!full.ok || !created.ok) throw new Error("sync or create failed");
    results.push(await connector.calendar.sync({ calendarId: cal, cursor: full.value.nextCursor!, window }));
    results.push(await connector.events.delete(cal, "hold-ua", created.value.etag));

    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, true]);
    const methods = new Set(sent.map((s) => s.method));
    for (const m of ["PROPFIND", "REPORT", "PUT", "GET", "DELETE"]) expect(methods).toContain(m);
    const ua = expectedUserAgent("caldav", "RFC4791+RFC6578");
    for (const request of sent) {
      expect(request.ua).toBe(ua);
      expect(request.auth).toBe(BASIC);
    }
    const text = JSON.stringify(results);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(BASIC.slice(6));
  });
});
