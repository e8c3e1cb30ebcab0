/**
 * The operator API's refusals, byte for byte: status, the headers a client reads and the exact
 * body. It answers in SchCP's refusal shape (SchCP §9.2), whether it decides the refusal itself
 * (a bad query or body, an unknown host, an oversized body) or maps the core's (through the SchCP
 * edge's table, with the host's contact remedy and Retry-After).
 */
import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { OPERATOR_TOKEN, edgeFixture, hostConfig } from "../../gateway/support/fakes.js";

const BASE = "/operator/v0/maple-street-auto";
const auth = { authorization: `Bearer ${OPERATOR_TOKEN}` };

function fixture() {
  return edgeFixture({
    hosts: [hostConfig("maple-street-auto", { contact: { phone: "+14165550100" } })],
    maxBodyBytes: 64,
  });
}

async function expectAnswer(res: Response, status: number, body: string, retryAfter: string | null = null) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("retry-after")).toBe(retryAfter);
  expect(res.headers.get("schcp-version")).toBe("0.4");
  expect(await res.text()).toBe(body);
}

describe("operator API refusals, byte for byte", () => {
  it.each([
    [
      "an unknown host",
      "GET",
      "/operator/v0/nobody/bookings",
      undefined,
      404,
      '{"error":{"code":"NOT_FOUND","reason":"not_found","message":"no host \\"nobody\\" is served here"}}',
    ],
    [
      "a bad list query",
      "GET",
      `${BASE}/bookings?limit=0`,
      undefined,
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"invalid_request","message":"limit must be a whole number from 1 to 500","details":{"field":"limit"}}}',
    ],
    [
      "a bad hosts page",
      "GET",
      "/operator/v0/hosts?limit=0",
      undefined,
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"invalid_request","message":"limit must be a whole number from 1 to 1000"}}',
    ],
    [
      "a host that is not a calendar host",
      "POST",
      `${BASE}/calendar/sync`,
      undefined,
      404,
      '{"error":{"code":"NOT_FOUND","reason":"not_found","message":"host maple-street-auto is not a calendar host"}}',
    ],
    [
      "an oversized body",
      "POST",
      `${BASE}/bookings/b_1/decline`,
      JSON.stringify({ message: "x".repeat(80) }),
      413,
      '{"error":{"code":"INVALID_REQUEST","reason":"invalid_request","message":"the request body is larger than 64 bytes"}}',
    ],
    [
      "invalid JSON",
      "POST",
      `${BASE}/bookings/b_1/decline`,
      "{",
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"invalid_request","message":"invalid JSON: expected a member name (at offset 1)","details":{"field":""}}}',
    ],
    [
      "a duplicate member",
      "POST",
      `${BASE}/bookings/b_1/decline`,
      '{"message":"a","message":"b"}',
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"invalid_request","message":"duplicate member: duplicate member \\"message\\" (at offset 24) at /message","details":{"field":"/message"}}}',
    ],
    [
      "invalid UTF-8",
      "POST",
      `${BASE}/bookings/b_1/decline`,
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"invalid_request","message":"invalid UTF-8: JSON text is not valid UTF-8","details":{"field":""}}}',
    ],
    [
      "payment data",
      "POST",
      `${BASE}/bookings/b_1/decline`,
      '{"refund_to":"x"}',
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"payment_not_accepted","message":"/refund_to carries payment data; SchCP never takes payment (§8)","details":{"field":"/refund_to"}}}',
    ],
    [
      "a card number in free text",
      "POST",
      `${BASE}/bookings/b_1/decline`,
      '{"message":"4111 1111 1111 1111"}',
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"payment_not_accepted","message":"/message carries payment data; SchCP never takes payment (§8)","details":{"field":"/message"}}}',
    ],
    [
      "an unknown member",
      "POST",
      `${BASE}/bookings/b_1/cancel`,
      '{"timeStillGood":true}',
      400,
      '{"error":{"code":"INVALID_REQUEST","reason":"invalid_request","message":"/timeStillGood is not a member this request defines","details":{"field":"/timeStillGood"}}}',
    ],
  ] as const)("%s", async (_what, method, path, body, status, expected) => {
    const f = fixture();
    const app = createHttpApp({
      ...f.deps,
      upstreams: {
        notices: () => Promise.resolve([]),
        calendar: () => Promise.resolve(undefined),
        syncNow: () => Promise.resolve(false),
      },
    });
    const res = await app.request(path, { method, headers: auth, ...(body !== undefined && { body }) });
    await expectAnswer(res, status, expected);
  });

  it("the core's refusal, with the host's contact remedy and Retry-After", async () => {
    const f = fixture();
    f.api.refuse("approve", {
      code: "upstream_unavailable",
      reason: "upstream_unavailable",
      message: "the platform is down",
      retryAfterMs: 2500,
    });
    const res = await createHttpApp(f.deps).request(`${BASE}/bookings/b_1/approve`, {
      method: "POST",
      headers: auth,
    });
    await expectAnswer(
      res,
      503,
      '{"error":{"code":"UPSTREAM_UNAVAILABLE","reason":"upstream_unavailable","message":"the platform is down","retry":{"after":"PT3S"},"remedies":[{"type":"contact","phone":"+14165550100"}]}}',
      "3",
    );
  });

  it("the core's refusal of a list", async () => {
    const f = fixture();
    f.api.refuse("pageBookings", { code: "invalid_state", reason: "invalid_state", message: "not now" });
    const res = await createHttpApp(f.deps).request(`${BASE}/bookings`, { headers: auth });
    await expectAnswer(
      res,
      409,
      '{"error":{"code":"INVALID_STATE","reason":"invalid_state","message":"not now","remedies":[{"type":"contact","phone":"+14165550100"}]}}',
    );
  });
});
