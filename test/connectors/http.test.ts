import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUpstreamClient, resetNoticeLog, type UpstreamNotice } from "../../src/connectors/http.js";

const BASE = "https://api.example.test";
const SECRET = "sk_live_very_secret";

function recordingLogger() {
  const lines: { message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  return {
    lines,
    warn: (message: string, fields?: Readonly<Record<string, unknown>>) => lines.push({ message, fields }),
  };
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});
beforeEach(() => {
  resetNoticeLog();
});

describe("createUpstreamClient.request", () => {
  it("pins the version header on every request and sends the User-Agent and credentials", async () => {
    const seen: Record<string, string | undefined>[] = [];
    nock(BASE)
      .get(/.*/)
      .times(2)
      .reply(function () {
        seen.push({
          pin: this.req.headers["example-version"],
          ua: this.req.headers["user-agent"],
          key: this.req.headers["x-api-key"],
        });
        return [200, { ok: true }];
      });
    const client = createUpstreamClient({
      vendor: "example",
      apiVersion: "2026-05-21",
      baseUrl: BASE,
      pin: { header: "Example-Version", value: "2026-05-21" },
      credentials: () => Promise.resolve({ "x-api-key": SECRET }),
      gatewayVersion: "9.9.9",
    });
    await client.request({ method: "GET", path: "/a", headers: { "example-version": "1999-01-01" } });
    await client.request({ method: "GET", path: "/b" });
    const major = process.versions.node.split(".")[0];
    expect(seen).toEqual([
      { pin: "2026-05-21", ua: `booking-gateway/9.9.9 example/2026-05-21 node/${major}`, key: SECRET },
      { pin: "2026-05-21", ua: `booking-gateway/9.9.9 example/2026-05-21 node/${major}`, key: SECRET },
    ]);
  });

  it("reads the gateway version from package.json by default", () => {
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
    });
    expect(client.userAgent).toMatch(/^booking-gateway\/\d+\.\d+\.\d+ v\/v1 node\/\d+$/);
  });

  it("prefixes a path pin, sends the query, and keeps the query out of the call line", async () => {
    nock(BASE)
      .get("/v1/customers/ana%40example.com/history")
      .query({ date: "2026-12-03" })
      .reply(200, { ok: true });
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: `${BASE}/`,
      pin: { pathPrefix: "/v1" },
    });
    const result = await client.request({
      method: "get",
      path: `/customers/${encodeURIComponent("ana@example.com")}/history`,
      query: { date: "2026-12-03", skip: undefined },
    });
    expect(result.ok).toBe(true);
    expect(result.upstream?.call).toBe("GET /v1/customers/{redacted}/history");
  });

  it("sends a JSON body and returns other statuses for the connector to map", async () => {
    nock(BASE)
      .post("/v1/appointments", { serviceId: "s1" })
      .matchHeader("content-type", "application/json")
      .reply(428, { ok: false, error: "verification required" }, { "x-request-id": "r-1" });
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
    });
    const result = await client.request({ method: "POST", path: "/appointments", body: { serviceId: "s1" } });
    expect(result).toMatchObject({
      ok: true,
      value: { status: 428, body: { ok: false, error: "verification required" } },
      upstream: { call: "POST /v1/appointments", status: 428, request_id: "r-1" },
    });
  });

  it("captures Deprecation and Sunset, warns once per endpoint, tells onNotice each time, and changes nothing", async () => {
    const headers = { deprecation: "@1767225600", sunset: "Wed, 30 Jun 2027 00:00:00 GMT" };
    nock(BASE)
      .get(/\/v1\/appointments\/\d+/)
      .times(3)
      .reply(200, { ok: true, data: 1 }, headers);
    const logger = recordingLogger();
    const notices: UpstreamNotice[] = [];
    const client = createUpstreamClient({
      vendor: "openings",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
      logger,
      onNotice: (n) => notices.push(n),
    });
    const results = [
      await client.request({ method: "GET", path: "/appointments/1" }),
      await client.request({ method: "GET", path: "/appointments/2" }),
      await client.request({ method: "GET", path: "/appointments/3" }),
    ];
    for (const r of results) {
      expect(r).toMatchObject({ ok: true, value: { status: 200, body: { ok: true, data: 1 } } });
      expect(r.upstream).toMatchObject(headers);
    }
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]?.message).toContain("openings");
    expect(logger.lines[0]?.message).toContain("GET /v1/appointments/1");
    expect(logger.lines[0]?.fields).toMatchObject({ vendor: "openings", ...headers });
    expect(notices).toHaveLength(3);
    expect(notices[1]).toEqual({ vendor: "openings", call: "GET /v1/appointments/2", ...headers });
  });

  it("maps 429 with Retry-After seconds or date to rate_limited", async () => {
    const now = Date.parse("2026-12-03T10:00:00Z");
    nock(BASE)
      .get("/v1/a")
      .reply(429, {}, { "retry-after": "12" })
      .get("/v1/a")
      .reply(429, {}, { "retry-after": "Thu, 03 Dec 2026 10:01:00 GMT" });
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
      clock: { now: () => now },
    });
    const first = await client.request({ method: "GET", path: "/a" });
    const second = await client.request({ method: "GET", path: "/a" });
    expect(first).toMatchObject({ ok: false, error: { code: "rate_limited", retryAfterMs: 12_000 } });
    expect(first.upstream?.ratelimit).toEqual({ "retry-after": "12" });
    expect(second).toMatchObject({ ok: false, error: { code: "rate_limited", retryAfterMs: 60_000 } });
  });

  it("maps 401/403 to unauthorized unless the connector narrows it, and 5xx to unavailable", async () => {
    nock(BASE)
      .get("/v1/a")
      .reply(401)
      .get("/v1/a")
      .reply(403, { error: "forbidden" })
      .get("/v1/a")
      .reply(502, "<html>");
    const wide = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
    });
    expect(await wide.request({ method: "GET", path: "/a" })).toMatchObject({
      ok: false,
      error: { code: "unauthorized" },
      upstream: { status: 401 },
    });
    const narrow = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
      unauthorizedStatuses: [401],
    });
    expect(await narrow.request({ method: "GET", path: "/a" })).toMatchObject({
      ok: true,
      value: { status: 403, body: { error: "forbidden" } },
    });
    expect(await narrow.request({ method: "GET", path: "/a" })).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
      upstream: { status: 502 },
    });
  });

  it("maps an unreadable 2xx body to unavailable", async () => {
    nock(BASE).get("/v1/a").reply(200, "{not json", { "content-type": "application/json" });
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
    });
    expect(await client.request({ method: "GET", path: "/a" })).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
      upstream: { call: "GET /v1/a", status: 200 },
    });
  });

  it("maps a network error to unavailable and an expired timeout to timeout, status 0", async () => {
    nock(BASE).get("/v1/a").replyWithError({ code: "ECONNRESET", message: "socket hang up" });
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
    });
    expect(await client.request({ method: "GET", path: "/a" })).toMatchObject({
      ok: false,
      error: { code: "unavailable" },
      upstream: { call: "GET /v1/a", status: 0 },
    });

    // A fetch that answers only when aborted: the timeout is the only way out.
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    const slow = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
      fetch: hanging,
      timeoutMs: 5,
    });
    expect(await slow.request({ method: "GET", path: "/a" })).toMatchObject({
      ok: false,
      error: { code: "timeout" },
      upstream: { call: "GET /v1/a", status: 0 },
    });
  });

  it("never puts the credential into meta, errors or log lines", async () => {
    nock(BASE)
      .get("/v1/a")
      .reply(401, { error: "bad key" }, { deprecation: "true" })
      .get("/v1/b")
      .replyWithError("boom")
      .get("/v1/c")
      .reply(500, { echo: "x" }, { sunset: "Wed, 30 Jun 2027 00:00:00 GMT" });
    const logger = recordingLogger();
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
      credentials: () => Promise.resolve({ "X-Org-Api-Key": SECRET, authorization: `Bearer ${SECRET}` }),
      logger,
    });
    const results = await Promise.all(
      ["/a", "/b", "/c"].map((path) => client.request({ method: "GET", path })),
    );
    const text = JSON.stringify({ results, lines: logger.lines });
    expect(results.every((r) => !r.ok)).toBe(true);
    expect(logger.lines.length).toBeGreaterThan(0);
    expect(text).not.toContain(SECRET);
  });

  it("spaces calls to the published rate", async () => {
    nock(BASE).get("/v1/a").times(3).reply(200, {});
    const slept: number[] = [];
    const client = createUpstreamClient({
      vendor: "v",
      apiVersion: "v1",
      baseUrl: BASE,
      pin: { pathPrefix: "/v1" },
      maxPerSecond: 4,
      clock: { now: () => 0 },
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    await Promise.all([1, 2, 3].map(() => client.request({ method: "GET", path: "/a" })));
    expect(slept).toEqual([250, 500]);
  });
});

describe("createUpstreamClient.fetch (for SDKs)", () => {
  it("sets the pin last, adds UA and credentials, and gives each capture its own calls", async () => {
    const pins: string[] = [];
    nock(BASE)
      .get(/\/v2\/items\/\d/)
      .times(2)
      .delay(5)
      .reply(function (uri) {
        pins.push(
          `${this.req.headers["square-version"] as string} ${this.req.headers["authorization"] as string}`,
        );
        return [200, { id: uri }, { "square-version": "2026-05-21", "x-request-id": uri }];
      });
    const client = createUpstreamClient({
      vendor: "square",
      apiVersion: "2026-05-21",
      baseUrl: BASE,
      pin: { header: "Square-Version", value: "2026-05-21" },
      credentials: () => Promise.resolve({ authorization: `Bearer ${SECRET}` }),
    });
    const sdkCall = (id: number) =>
      client.fetch(`${BASE}/v2/items/${id}?cursor=abc`, { headers: { "Square-Version": "2020-01-01" } });
    const [one, two] = await Promise.all([
      client.withCapture(async () => (await sdkCall(1)).json()),
      client.withCapture(async () => (await sdkCall(2)).json()),
    ]);
    expect(pins).toEqual([`2026-05-21 Bearer ${SECRET}`, `2026-05-21 Bearer ${SECRET}`]);
    expect(one).toMatchObject({ ok: true, value: { id: "/v2/items/1?cursor=abc" } });
    expect(one.meta).toEqual({
      call: "GET /v2/items/1",
      status: 200,
      request_id: "/v2/items/1?cursor=abc",
      api_version: "2026-05-21",
    });
    expect(two.meta?.call).toBe("GET /v2/items/2");
    expect(one.calls).toHaveLength(1);
    expect(JSON.stringify([one.meta, two.meta])).not.toContain(SECRET);
  });

  it("records a failed call and maps it with errorOf", async () => {
    nock(BASE).get("/v2/a").reply(429, {}, { "retry-after": "2" }).get("/v2/b").replyWithError("down");
    const client = createUpstreamClient({
      vendor: "square",
      apiVersion: "2026-05-21",
      baseUrl: BASE,
      pin: { header: "Square-Version", value: "2026-05-21" },
    });
    const limited = await client.withCapture(async () => {
      const r = await client.fetch(`${BASE}/v2/a`);
      if (!r.ok) throw new Error("sdk error");
      return r;
    });
    expect(limited.ok).toBe(false);
    expect(limited.calls[0] && client.errorOf(limited.calls[0])).toMatchObject({
      code: "rate_limited",
      retryAfterMs: 2000,
    });
    const down = await client.withCapture(() => client.fetch(`${BASE}/v2/b`));
    expect(down).toMatchObject({ ok: false, meta: { call: "GET /v2/b", status: 0 } });
    expect(down.calls[0] && client.errorOf(down.calls[0])).toMatchObject({ code: "unavailable" });
  });
});
