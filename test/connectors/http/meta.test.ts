import { describe, expect, it } from "vitest";
import {
  callLine,
  captureUpstreamMeta,
  isContactSegment,
  redactPath,
  retryAfterMs,
} from "../../../src/connectors/http/meta.js";
import { endpointOf } from "../../../src/connectors/http/notices.js";

describe("redactPath (OSBP UpstreamMeta: contact-bearing segments redacted, query omitted)", () => {
  it("drops the query string and fragment", () => {
    expect(redactPath("/v1/businesses/acme/openings?date=2026-12-03&email=a@b.co#x")).toBe(
      "/v1/businesses/acme/openings",
    );
  });

  it("redacts emails, encoded or not", () => {
    expect(redactPath("/v1/customers/ana%40example.com/history")).toBe("/v1/customers/{redacted}/history");
    expect(redactPath("/v1/customers/ana@example.com")).toBe("/v1/customers/{redacted}");
  });

  it("redacts phone numbers written with + or separators, keeps ids and dates", () => {
    expect(redactPath("/v1/customers/%2B56912345678")).toBe("/v1/customers/{redacted}");
    expect(redactPath("/v1/customers/(555)%20123-4567")).toBe("/v1/customers/{redacted}");
    expect(redactPath("/v1/appointments/12345678")).toBe("/v1/appointments/12345678");
    expect(redactPath("/v1/openings/2026-12-03")).toBe("/v1/openings/2026-12-03");
    expect(isContactSegment("550e8400-e29b-41d4-a716-446655440000")).toBe(false);
  });

  it("applies a connector's own redactor to decoded segments", () => {
    expect(callLine("get", "/v1/members/ana/slots", (s) => s === "ana")).toBe(
      "GET /v1/members/{redacted}/slots",
    );
  });
});

describe("captureUpstreamMeta", () => {
  it("keeps the operator headers and only those", () => {
    const headers = new Headers({
      server: "cloudflare",
      "x-amzn-request-id": "req-1",
      "x-api-version": "2026-05-21",
      deprecation: "@1767225600",
      sunset: "Wed, 30 Jun 2027 00:00:00 GMT",
      "Retry-After": "3",
      RateLimit: "limit=10, remaining=0, reset=3",
      "RateLimit-Policy": "10;w=1",
      "X-RateLimit-Remaining": "0",
      "set-cookie": "session=secret",
      "content-type": "application/json",
    });
    expect(captureUpstreamMeta("GET /v1/x", 200, headers)).toEqual({
      call: "GET /v1/x",
      status: 200,
      server: "cloudflare",
      request_id: "req-1",
      api_version: "2026-05-21",
      deprecation: "@1767225600",
      sunset: "Wed, 30 Jun 2027 00:00:00 GMT",
      ratelimit: {
        "retry-after": "3",
        ratelimit: "limit=10, remaining=0, reset=3",
        "ratelimit-policy": "10;w=1",
        "x-ratelimit-remaining": "0",
      },
    });
  });

  it("takes the platform's request id before the echo of the client's (Graph sends both)", () => {
    const both = new Headers({ "client-request-id": "c-1", "request-id": "graph-1" });
    expect(captureUpstreamMeta("GET /x", 200, both).request_id).toBe("graph-1");
    const echo = new Headers({ "client-request-id": "c-1" });
    expect(captureUpstreamMeta("GET /x", 200, echo).request_id).toBe("c-1");
  });

  it("prefers the platform's own echo header", () => {
    const headers = new Headers({ "square-version": "2026-05-21", "api-version": "other" });
    expect(captureUpstreamMeta("GET /x", 200, headers, ["Square-Version"]).api_version).toBe("2026-05-21");
  });
});

describe("retryAfterMs (RFC 9110 §10.2.3)", () => {
  it("reads delay-seconds and HTTP-dates", () => {
    const now = Date.parse("2026-12-03T10:00:00Z");
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs("Thu, 03 Dec 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Thu, 03 Dec 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

describe("endpointOf", () => {
  it("folds ids so one endpoint warns once", () => {
    expect(endpointOf("v", "GET /v1/appointments/123")).toBe(endpointOf("v", "GET /v1/appointments/456"));
    expect(endpointOf("v", "GET /v1/appointments/123")).not.toBe(
      endpointOf("v", "POST /v1/appointments/123"),
    );
  });
});
