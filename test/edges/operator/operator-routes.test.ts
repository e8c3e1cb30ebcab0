/** The operator API: bearer credential only, closed bodies, each action reaching its use case. */
import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { operatorCredentialMatches } from "../../../src/edges/operator/operator-auth.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { newKey, signedInit } from "../../gateway/support/agent.js";
import { NOW_MS, OPERATOR_TOKEN, ORIGIN, edgeFixture } from "../../gateway/support/fakes.js";

const BASE = "/operator/v0/maple-street-auto";
const auth = { authorization: `Bearer ${OPERATOR_TOKEN}` };

async function post(path: string, body?: unknown, headers: Record<string, string> = auth) {
  const f = edgeFixture();
  const res = await createHttpApp(f.deps).request(path, {
    method: "POST",
    headers,
    ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { f, res, json: await res.json() };
}

describe("operator API credential", () => {
  it.each([
    ["no Authorization", {}],
    ["a wrong token", { authorization: "Bearer nope" }],
    ["the token without Bearer", { authorization: OPERATOR_TOKEN }],
    ["Basic auth", { authorization: `Basic ${Buffer.from(`op:${OPERATOR_TOKEN}`).toString("base64")}` }],
    ["the token with a suffix", { authorization: `Bearer ${OPERATOR_TOKEN}x` }],
  ])("refuses %s with 401 and calls nothing", async (_what, headers) => {
    const { f, res, json } = await post(`${BASE}/bookings/b_1/approve`, undefined, headers);
    expect(res.status).toBe(401);
    expect(res.headers.get("schcp-version")).toBe("0.4");
    expect(json).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    expect(f.api.calls).toHaveLength(0);
  });

  it("never accepts an agent's request signature in place of the credential", async () => {
    const f = edgeFixture();
    const init = signedInit({
      method: "POST",
      path: `${BASE}/bookings/b_1/approve`,
      agent: newKey(),
      created: NOW_MS / 1000,
      signedOrigin: ORIGIN,
    });
    const res = await createHttpApp(f.deps).request(`${BASE}/bookings/b_1/approve`, init);
    expect(res.status).toBe(401);
    expect(f.api.calls).toHaveLength(0);
  });

  it("compares in constant time over digests, so length differences do not throw", () => {
    expect(operatorCredentialMatches(`Bearer ${OPERATOR_TOKEN}`, OPERATOR_TOKEN)).toBe(true);
    expect(operatorCredentialMatches("Bearer a", OPERATOR_TOKEN)).toBe(false);
    expect(operatorCredentialMatches("Bearer ", OPERATOR_TOKEN)).toBe(false);
    expect(operatorCredentialMatches(`Bearer ${OPERATOR_TOKEN}`, "")).toBe(false);
    expect(operatorCredentialMatches(null, OPERATOR_TOKEN)).toBe(false);
  });
});

/**
 * The neutral booking view as the operator API renders it (README, operator bullet): the
 * host's zone, exact decimal money, no protocol's offer or receipt.
 */
const OPERATOR_JSON = {
  booking_id: "b_1",
  host_id: "maple-street-auto",
  status: "confirmed",
  sequence: 0,
  edges: ["schcp"],
  service: { id: "oil-change", name: "Synthetic oil change" },
  start: "2026-10-15T13:00:00-04:00",
  end: "2026-10-15T13:45:00-04:00",
  resources: ["bay-1"],
  party_size: 1,
  price: { amount: "79.00", currency: "CAD" },
  total: { amount: "89.27", currency: "CAD" },
  lines: [
    { kind: "service", label: "Synthetic oil change", amount: { amount: "79.00", currency: "CAD" } },
    { kind: "tax", label: "HST 13%", amount: { amount: "10.27", currency: "CAD" } },
  ],
  retention: "P365D",
  principal: "urn:schcp:principal:jwk-thumbprint:abc",
  consent: { approved: "offer", mandate: "m-1" },
  answer: { by: "host", at: "2026-10-14T12:00:00Z" },
  created_at: "2026-10-14T17:00:00Z",
  updated_at: "2026-10-14T17:00:00Z",
};

describe("operator API actions", () => {
  it("lists a host's bookings", async () => {
    const f = edgeFixture();
    const res = await createHttpApp(f.deps).request(`${BASE}/bookings`, { headers: auth });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { bookings: unknown[] };
    expect(json.bookings).toEqual([{ booking: OPERATOR_JSON }]);
    // The last page: no next_cursor.
    expect(json).not.toHaveProperty("next_cursor");
    expect(f.api.calls).toEqual([{ method: "pageBookings", hostId: "maple-street-auto", args: [{}] }]);
  });

  it("pages the list: limit, cursor, status, from and to reach the core; next_cursor comes back", async () => {
    const f = edgeFixture();
    f.api.answers["pageBookings"] = { ok: true, value: { bookings: [], nextCursor: "1234" } };
    const query =
      "limit=2&cursor=98765&status=pending_host&from=2026-10-01T00:00:00Z&to=2026-10-08T00:00:00%2B02:00";
    const res = await createHttpApp(f.deps).request(`${BASE}/bookings?${query}`, { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bookings: [], next_cursor: "1234" });
    expect(f.api.calls[0]?.args).toEqual([
      {
        limit: 2,
        cursor: "98765",
        status: "pending_host",
        from: Date.parse("2026-10-01T00:00:00Z"),
        to: Date.parse("2026-10-07T22:00:00Z"),
      },
    ]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=501", "limit"],
    ["limit=2.5", "limit"],
    ["cursor=abc", "cursor"],
    ["status=lost", "status"],
    ["from=yesterday", "from"],
    ["to=2026-10-01T00:00:00", "to"],
    ["from=2026-10-02T00:00:00Z&to=2026-10-01T00:00:00Z", "to"],
  ])("a bad list parameter (%s) is 400 INVALID_REQUEST naming it", async (query, field) => {
    const f = edgeFixture();
    const res = await createHttpApp(f.deps).request(`${BASE}/bookings?${query}`, { headers: auth });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "INVALID_REQUEST", details: { field } } });
    expect(f.api.calls).toEqual([]);
  });

  it.each([
    ["approve", undefined, "approve", ["b_1"]],
    ["approve", {}, "approve", ["b_1"]],
    [
      "decline",
      { reason: "host_declined:fully_booked", message: "Sorry" },
      "decline",
      ["b_1", { reason: "host_declined:fully_booked", message: "Sorry" }],
    ],
    // §5.9: a decline with time_still_good offers the time to the waitlist.
    [
      "decline",
      { message: "Sorry", time_still_good: true },
      "decline",
      ["b_1", { message: "Sorry", timeStillGood: true }],
    ],
    ["decline", { time_still_good: false }, "decline", ["b_1", { timeStillGood: false }]],
    [
      "cancel",
      { message: "The lift is broken", time_still_good: false },
      "hostCancel",
      ["b_1", { message: "The lift is broken", timeStillGood: false }],
    ],
    ["attendance", { status: "no_show" }, "markAttendance", ["b_1", { status: "no_show" }]],
    [
      "attendance",
      { status: "completed", end: "2026-10-15T14:10:00-04:00" },
      "markAttendance",
      ["b_1", { status: "completed", end: "2026-10-15T14:10:00-04:00" }],
    ],
    [
      "propose",
      { start: "2026-10-16T09:00:00-04:00" },
      "propose",
      ["b_1", { start: "2026-10-16T09:00:00-04:00" }],
    ],
    [
      "counter",
      { start: "2026-10-16T09:00:00-04:00" },
      "counter",
      ["b_1", { start: "2026-10-16T09:00:00-04:00" }],
    ],
    [
      "counter",
      { place: { name: "Stanley Park", country: "CA" }, ttl: "PT30M" },
      "counter",
      ["b_1", { place: { name: "Stanley Park", country: "CA" }, ttlMs: 30 * 60_000 }],
    ],
  ])("POST .../%s reaches its use case", async (action, body, use, args) => {
    const { f, res, json } = await post(`${BASE}/bookings/b_1/${action}`, body);
    expect(res.status).toBe(200);
    expect(json).toEqual({ booking: OPERATOR_JSON });
    expect(f.api.calls).toEqual([{ method: use, hostId: "maple-street-auto", args }]);
  });

  it.each([
    ["an unknown member", "cancel", { timeStillGood: true }, "/timeStillGood"],
    ["a decline's non-boolean time_still_good", "decline", { time_still_good: "yes" }, "/time_still_good"],
    ["a missing status", "attendance", {}, "/status"],
    ["a bad status", "attendance", { status: "late" }, "/status"],
    ["a start without offset", "propose", { start: "2026-10-16T09:00:00" }, "/start"],
    ["a non-object", "decline", [], ""],
    ["a counter's place with an unknown member", "counter", { place: { city: "Vancouver" } }, "/place/city"],
    ["a counter's empty place", "counter", { place: {} }, "/place"],
    [
      "a counter's lower-case country",
      "counter",
      { place: { name: "Park", country: "ca" } },
      "/place/country",
    ],
    [
      "a counter's ttl that is not a duration",
      "counter",
      { start: "2026-10-16T09:00:00-04:00", ttl: "30m" },
      "/ttl",
    ],
  ])("refuses %s with 400 naming the field", async (_what, action, body, field) => {
    const { f, res, json } = await post(`${BASE}/bookings/b_1/${action}`, body);
    expect(res.status).toBe(400);
    expect(validateSchcp("Refusal", json).ok).toBe(true);
    expect(json).toMatchObject({ error: { code: "INVALID_REQUEST", details: { field } } });
    expect(f.api.calls).toHaveLength(0);
  });

  it("refuses duplicate members and payment data like the host endpoint", async () => {
    const dup = await post(`${BASE}/bookings/b_1/decline`, '{"message":"a","message":"b"}');
    expect(dup.res.status).toBe(400);
    const pay = await post(`${BASE}/bookings/b_1/decline`, { refund_to: "x" });
    expect(pay.json).toMatchObject({ error: { reason: "payment_not_accepted" } });
  });

  it("maps the core's refusals and unknown hosts", async () => {
    const f = edgeFixture();
    f.api.refuse("approve", { code: "invalid_state", reason: "invalid_state", message: "not pending" });
    const app = createHttpApp(f.deps);
    const refused = await app.request(`${BASE}/bookings/b_1/approve`, { method: "POST", headers: auth });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: "INVALID_STATE" } });
    const unknown = await app.request("/operator/v0/nobody/bookings", { headers: auth });
    expect(unknown.status).toBe(404);
  });
});
