/**
 * The Square settings' narrow overrides: `baseUrl` (tests against a loopback fake, an egress
 * proxy; never defaulted) and `webhookSignatureKey` (the booking webhook receiver's key).
 */
import { SquareEnvironment } from "square";
import { describe, expect, it } from "vitest";
import {
  BASE_URLS,
  createSquareConnector,
  validateSquareSettings,
} from "../../../src/connectors/square/index.js";

const good = {
  environment: "sandbox",
  locationId: "L7M2SEJXJ3TQE",
  version: "2026-08-20",
  accessToken: "EAAA-secret",
};

describe("Square settings: baseUrl and webhookSignatureKey", () => {
  it("each environment's origin is the SDK's (written out so that settings load without the SDK)", () => {
    expect(BASE_URLS).toEqual({
      sandbox: SquareEnvironment.Sandbox,
      production: SquareEnvironment.Production,
    });
  });

  it("has no baseUrl unless configured (requests go to the environment's origin)", () => {
    const r = validateSquareSettings(good, false);
    expect(r.ok && "baseUrl" in r.value).toBe(false);
  });

  it("accepts an http(s) origin and a signature key, dropping a trailing slash", () => {
    const r = validateSquareSettings(
      { ...good, baseUrl: "http://127.0.0.1:4100/", webhookSignatureKey: "whsec-1" },
      false,
    );
    expect(r).toMatchObject({
      ok: true,
      value: { baseUrl: "http://127.0.0.1:4100", webhookSignatureKey: "whsec-1" },
    });
  });

  const bad: Array<[string, unknown, string]> = [
    ["a non-URL baseUrl", { ...good, baseUrl: "not a url" }, "/c/baseUrl"],
    ["a non-http baseUrl", { ...good, baseUrl: "ftp://example.com" }, "/c/baseUrl"],
    ["a baseUrl with credentials", { ...good, baseUrl: "https://u:p@example.com" }, "/c/baseUrl"],
    ["a baseUrl with a query", { ...good, baseUrl: "https://example.com/?x=1" }, "/c/baseUrl"],
    ["an empty signature key", { ...good, webhookSignatureKey: " " }, "/c/webhookSignatureKey"],
    ["a non-string signature key", { ...good, webhookSignatureKey: 7 }, "/c/webhookSignatureKey"],
  ];
  for (const [what, value, field] of bad) {
    it(`refuses ${what}, naming ${field}`, () => {
      const r = validateSquareSettings(value, false, "/c");
      expect(r.ok ? undefined : r.error.field).toBe(field);
      expect(JSON.stringify(r)).not.toContain("EAAA-secret");
    });
  }

  it("sends every request to the configured baseUrl", async () => {
    const urls: string[] = [];
    const fetchSpy: typeof fetch = (input) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return Promise.resolve(
        new Response(JSON.stringify({ errors: [{ category: "API_ERROR", code: "NOT_FOUND" }] }), {
          status: 404,
          headers: { "content-type": "application/json" },
        }),
      );
    };
    const connector = createSquareConnector(
      { ...good, baseUrl: "http://127.0.0.1:4100" },
      { clock: { now: () => 0 }, fetch: fetchSpy, logger: { warn: () => undefined } },
    );
    await connector.bookings.get("BOOKING1");
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith("http://127.0.0.1:4100/v2/")).toBe(true);
  });
});
