// What connectors/http.ts gained for the calendar connectors: links replayed as written and
// refused outside the API, credential providers that fail, the capturing fetch's base check,
// Retry-After on a 503 (RFC 9110 §10.2.3, including Graph's fractional seconds), redaction
// markers per connector, unversioned protocols, and a connector's own endpoint folding.
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUpstreamClient, resetNoticeLog } from "../../../src/connectors/http.js";
import { callLine, retryAfterMs } from "../../../src/connectors/http/meta.js";
import { recordingLogger } from "./support.js";

const BASE = "https://api.example.test";
const SECRET = "tok_very_secret_42";

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
beforeEach(() => resetNoticeLog());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every expected request was made").toEqual([]);
});
afterAll(() => {
  nock.enableNetConnect();
});

const pathPinned = (extra: Partial<Parameters<typeof createUpstreamClient>[0]> = {}) =>
  createUpstreamClient({
    vendor: "v",
    apiVersion: "v1.0",
    baseUrl: BASE,
    pin: { pathPrefix: "/v1.0" },
    credentials: () => Promise.resolve({ authorization: `Bearer ${SECRET}` }),
    ...extra,
  });

describe("request with a link (a platform's next or delta link)", () => {
  it("sends the link byte for byte, query included, with the credentials", async () => {
    const link = `${BASE}/v1.0/me/calendarView/delta?$deltatoken=a%2Bb~c&$skip=2`;
    const seen: string[] = [];
    nock(BASE)
      .matchHeader("authorization", `Bearer ${SECRET}`)
      .get(/.*/)
      .reply(function (uri) {
        seen.push(uri);
        return [200, { value: [] }];
      });
    const result = await pathPinned().request({ method: "GET", link });
    expect(result).toMatchObject({ ok: true, upstream: { call: "GET /v1.0/me/calendarView/delta" } });
    expect(seen).toEqual([link.slice(BASE.length)]);
  });

  it("refuses, without a request, a link on another host or outside the pin", async () => {
    const client = pathPinned();
    for (const link of [
      "https://evil.example/v1.0/me/events",
      `${BASE}/beta/me/events`,
      `${BASE}/v1.0evil/me`,
      "not a url",
    ]) {
      const result = await client.request({ method: "GET", link });
      expect(result).toMatchObject({ ok: false, error: { code: "invalid_request" } });
      expect(result.upstream).toBeUndefined();
    }
  });
});

describe("a credential provider that fails", () => {
  const failing = (code?: string) => () =>
    Promise.reject(Object.assign(new Error(`refresh token ${SECRET} rejected`), code ? { code } : {}));

  it("request: unauthorized when it says the grant is revoked, else unavailable; nothing sent or quoted", async () => {
    const revoked = await pathPinned({ credentials: failing("unauthorized") }).request({
      method: "GET",
      path: "/me",
    });
    const broken = await pathPinned({ credentials: failing() }).request({ method: "GET", path: "/me" });
    expect(revoked).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(broken).toMatchObject({ ok: false, error: { code: "unavailable" } });
    expect(revoked.upstream).toBeUndefined();
    expect(JSON.stringify([revoked, broken])).not.toContain(SECRET);
  });

  it("capturing fetch: the failure is reported by the capture, and no call is recorded", async () => {
    const client = pathPinned({ credentials: failing("unauthorized") });
    const captured = await client.withCapture(() => client.fetch(`${BASE}/v1.0/me`));
    expect(captured).toMatchObject({ ok: false, calls: [], credentialError: { code: "unauthorized" } });
    expect(JSON.stringify(captured.credentialError)).not.toContain(SECRET);
  });
});

describe("capturing fetch", () => {
  it("refuses a URL outside the base and pin: nothing sent, the call recorded as refused", async () => {
    const client = pathPinned();
    const captured = await client.withCapture(() => client.fetch("https://evil.example/v1.0/me"));
    expect(captured.ok).toBe(false);
    expect(captured.calls).toEqual([{ meta: { call: "GET /v1.0/me", status: 0 }, failure: "refused" }]);
    expect(client.errorOf(captured.calls[0]!)).toMatchObject({ code: "invalid_request" });
  });

  it("an unversioned protocol sends no version header, and the User-Agent names it", async () => {
    let headers: Record<string, unknown> = {};
    nock(BASE)
      .intercept("/cal/", "PROPFIND")
      .reply(function () {
        headers = this.req.headers;
        return [207, "<multistatus/>"];
      });
    const client = createUpstreamClient({
      vendor: "caldav",
      apiVersion: "RFC4791",
      baseUrl: BASE,
      pin: { unversioned: true },
      gatewayVersion: "9.9.9",
    });
    const captured = await client.withCapture(async () =>
      (await client.fetch(`${BASE}/cal/`, { method: "PROPFIND" })).text(),
    );
    expect(captured.ok).toBe(true);
    expect(headers["user-agent"]).toMatch(/^booking-gateway\/9\.9\.9 caldav\/RFC4791 node\/\d+$/);
    expect(Object.keys(headers).filter((h) => h.includes("version"))).toEqual([]);
  });
});

describe("transport mapping", () => {
  it("a 503 with Retry-After is unavailable with retryAfterMs; fractional seconds round up", async () => {
    nock(BASE).get("/v1.0/a").reply(503, {}, { "retry-after": "2.5" }).get("/v1.0/a").reply(502, {});
    const client = pathPinned();
    const first = await client.request({ method: "GET", path: "/a" });
    const second = await client.request({ method: "GET", path: "/a" });
    expect(first).toMatchObject({ ok: false, error: { code: "unavailable", retryAfterMs: 2500 } });
    expect(!second.ok && second.error.retryAfterMs).toBeUndefined();
    expect(retryAfterMs("0.001", 0)).toBe(1);
    expect(retryAfterMs("1.", 0)).toBeUndefined();
  });
});

describe("call lines and endpoints per connector", () => {
  it("writes redacted segments with the connector's marker, by kind", () => {
    const marker = (kind: string) => `[redacted:${kind}]`;
    expect(
      callLine("GET", "/users/ana%40x.org/calendars/%2B56%20912345678/jane", (s) => s === "jane", marker),
    ).toBe("GET /users/[redacted:email]/calendars/[redacted:phone]/[redacted:other]");
  });

  it("folds the connector's resource names so one endpoint warns once", async () => {
    nock(BASE)
      .put(/\/cal\/.+\.ics$/)
      .times(2)
      .reply(201, {}, { deprecation: "true" });
    const logger = recordingLogger();
    const client = createUpstreamClient({
      vendor: "caldav",
      apiVersion: "RFC4791",
      baseUrl: BASE,
      pin: { unversioned: true },
      logger,
      endpointOf: (call) => call.replace(/\/[^/]+\.ics$/, "/*.ics"),
    });
    for (const name of ["a.ics", "b.ics"]) {
      await client.withCapture(() => client.fetch(`${BASE}/cal/${name}`, { method: "PUT", body: "x" }));
    }
    expect(logger.lines).toHaveLength(1);
  });
});
