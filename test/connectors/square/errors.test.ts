/** Square's error answers (fixtures/square/errors.json) in the core's vocabulary. */
import { describe, expect, it } from "vitest";
import { readFixtureJson } from "../../support/fixtures.js";
import { HAIRCUT } from "./fake-square.js";
import { makeRig, MONDAY_9, useNock } from "./setup.js";

useNock();

const errors = readFixtureJson<Record<string, unknown>>("square/errors.json");

describe("Square errors", () => {
  const cases: Array<[string, number, string, Record<string, string>?]> = [
    ["rate_limited", 429, "rate_limited", { "retry-after": "12" }],
    ["unauthorized", 401, "unauthorized"],
    ["token_revoked", 401, "unauthorized"],
    ["insufficient_scopes", 403, "unauthorized"],
    ["not_found", 404, "not_found"],
    ["invalid_time_range", 400, "invalid_request"],
    ["conflict", 409, "slot_taken"],
    ["idempotency_key_reused", 400, "invalid_request"],
    ["internal", 500, "unavailable"],
  ];
  for (const [name, status, code, headers] of cases) {
    it(`${name} (HTTP ${status}) is ${code}`, async () => {
      const { fake, connector } = makeRig();
      fake.inject("get", { kind: "status", status, body: errors[name], ...(headers ? { headers } : {}) });
      const r = await connector.bookings.get("zkras0xv0xwswx");
      if (r.ok) throw new Error("expected a failure");
      expect(r.error.code).toBe(code);
      expect(r.upstream).toMatchObject({ call: "GET /v2/bookings/zkras0xv0xwswx", status });
      if (code === "rate_limited") {
        expect(r.error.retryAfterMs).toBe(12_000);
        expect(r.upstream?.ratelimit?.["retry-after"]).toBe("12");
      }
      if (code !== "unauthorized")
        expect(r.error.retryAfterMs === undefined || code === "rate_limited").toBe(true);
    });
  }

  it("a Square detail saying the time is not available is slot_taken; other 400s stay invalid_request", async () => {
    const { fake, connector } = makeRig();
    fake.inject("create", {
      kind: "status",
      status: 400,
      body: {
        errors: [
          {
            category: "INVALID_REQUEST_ERROR",
            code: "BAD_REQUEST",
            detail: "The team member is not available at that time.",
            field: "booking.start_at",
          },
        ],
      },
    });
    const req = {
      idempotencyKey: "e1",
      serviceId: HAIRCUT,
      start: MONDAY_9,
      resourceIds: [],
      tentative: false,
    };
    const r = await connector.bookings.create(req);
    expect(r.ok ? undefined : r.error.code).toBe("slot_taken");
    fake.inject("create", {
      kind: "status",
      status: 400,
      body: {
        errors: [
          {
            category: "INVALID_REQUEST_ERROR",
            code: "INVALID_VALUE",
            detail: "Invalid customer id.",
            field: "booking.customer_id",
          },
        ],
      },
    });
    const r2 = await connector.bookings.create({ ...req, idempotencyKey: "e2" });
    expect(r2.ok ? undefined : r2.error).toMatchObject({
      code: "invalid_request",
      message: "Square INVALID_VALUE (booking.customer_id): Invalid customer id.",
    });
  });
});
