import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MandateContext, Policy, Service, Slot } from "../../../src/protocol/osbp/index.js";
import { validateMandate, validateRequestScope } from "../../../src/protocol/osbp/index.js";
import { mandate, NOW, policy, service, slot } from "./samples.js";

interface Case {
  name: string;
  mandate?: Record<string, unknown>;
  now?: number;
  slot?: Partial<Slot>;
  service?: Partial<Service>;
  policy?: Partial<Policy>;
  code: string;
  field?: string;
}

/** The message names the member: by its pointer, or in prose (BookingMandate.x, "slot price"). */
function mentions(message: string, field: string): boolean {
  const [, object, member] = field.split("/");
  return (
    message.includes(field) ||
    (object === "mandate" && message.includes(`BookingMandate.${member}`)) ||
    (object === "slot" && message.includes(`slot ${member}`))
  );
}

function run(c: Omit<Case, "name" | "code" | "field">) {
  const ctx: MandateContext = {
    now: c.now ?? NOW,
    action: "booking.create",
    slot: slot(c.slot),
    service: service(c.service),
    policy: policy(c.policy),
  };
  return validateMandate(mandate(c.mandate), ctx);
}

const EXPIRY = Date.parse("2026-05-01T23:59:59-07:00");
const deposit = (amount_minor: number, currency = "USD") => ({
  amount_minor,
  currency,
  type: "fixed" as const,
});

// One row per code of OSBP "Mandate Enforcement", in the spec's order.
const CASES: Case[] = [
  // 1. id and a well-formed expires_at with an explicit timezone
  { name: "missing id", mandate: { id: undefined }, code: "invalid_mandate", field: "/mandate/id" },
  { name: "empty id", mandate: { id: "" }, code: "invalid_mandate", field: "/mandate/id" },
  {
    name: "expires_at without offset",
    mandate: { expires_at: "2026-05-01T23:59:59" },
    code: "invalid_mandate",
    field: "/mandate/expires_at",
  },
  { name: "expires_at not a date", mandate: { expires_at: "tomorrow" }, code: "invalid_mandate" },
  { name: "expires_at a number", mandate: { expires_at: 1_777_000_000_000 }, code: "invalid_mandate" },
  {
    name: "malformed list type",
    mandate: { service_ids: "service_123" },
    code: "invalid_mandate",
    field: "/mandate/service_ids",
  },
  { name: "null list is not omission", mandate: { provider_ids: null }, code: "invalid_mandate" },
  {
    name: "non-string id in a list",
    mandate: { schedule_ids: ["schedule_123", 7] },
    code: "invalid_mandate",
    field: "/mandate/schedule_ids/1",
  },
  { name: "allow_policy_fee not boolean", mandate: { allow_policy_fee: "yes" }, code: "invalid_mandate" },
  { name: "missing max_price", mandate: { max_price: undefined }, code: "invalid_mandate" },
  {
    name: "non-fixed max_price",
    mandate: { max_price: { currency: "USD", type: "unknown" } },
    code: "invalid_mandate",
    field: "/mandate/max_price/amount_minor",
  },
  {
    name: "max_price in an unknown currency",
    mandate: { max_price: { amount_minor: 1, currency: "usd" } },
    code: "invalid_mandate",
    field: "/mandate/max_price/currency",
  },
  {
    name: "unknown member",
    mandate: { max_bookings: 1 },
    code: "invalid_mandate",
    field: "/mandate/max_bookings",
  },
  { name: "missing window", mandate: { latest_end: undefined }, code: "invalid_mandate" },
  // 2. not expired (now >= expires_at is expired)
  { name: "expired", now: EXPIRY + 1, code: "mandate_expired" },
  { name: "expires exactly now", now: EXPIRY, code: "mandate_expired" },
  // 3. booking.create in allowed_actions
  { name: "other action only", mandate: { allowed_actions: ["booking.status"] }, code: "action_not_allowed" },
  { name: "no actions", mandate: { allowed_actions: [] }, code: "action_not_allowed" },
  // 4. organization, service, schedule, provider inside scope
  { name: "other organization", mandate: { organization_id: "org_other" }, code: "organization_not_allowed" },
  {
    name: "policy organization differs from the slot's",
    policy: { organization: { id: "org_other", name: "X", timezone: "UTC", currency: "USD" } },
    code: "organization_not_allowed",
  },
  { name: "service outside list", mandate: { service_ids: ["service_999"] }, code: "service_not_allowed" },
  { name: "service empty list", mandate: { service_ids: [] }, code: "service_not_allowed" },
  {
    name: "schedule outside list",
    mandate: { schedule_ids: ["schedule_999"] },
    code: "schedule_not_allowed",
  },
  { name: "schedule empty list", mandate: { schedule_ids: [] }, code: "schedule_not_allowed" },
  { name: "slot names no provider", slot: { provider_id: undefined }, code: "provider_unknown" },
  {
    name: "provider outside list",
    mandate: { provider_ids: ["provider_999"] },
    code: "provider_not_allowed",
  },
  { name: "provider empty list", mandate: { provider_ids: [] }, code: "provider_not_allowed" },
  // 5. wall-clock discipline, then the window
  {
    name: "earliest_start with Z",
    mandate: { earliest_start: "2026-05-01T09:00:00Z" },
    code: "invalid_mandate",
    field: "/mandate/earliest_start",
  },
  {
    name: "latest_end with offset",
    mandate: { latest_end: "2026-05-14T18:00:00-07:00" },
    code: "invalid_mandate",
    field: "/mandate/latest_end",
  },
  {
    name: "slot starts_at_local with offset",
    slot: { starts_at_local: "2026-05-05T13:00:00-07:00" },
    code: "invalid_mandate",
    field: "/slot/starts_at_local",
  },
  {
    name: "slot starts_at without offset",
    slot: { starts_at: "2026-05-05T20:00:00" },
    code: "invalid_mandate",
    field: "/slot/starts_at",
  },
  {
    name: "earliest_start not a calendar date",
    mandate: { earliest_start: "2026-02-30T09:00:00" },
    code: "invalid_mandate",
  },
  {
    name: "slot starts too early",
    mandate: { earliest_start: "2026-05-05T13:00:01" },
    code: "slot_too_early",
  },
  { name: "slot ends too late", mandate: { latest_end: "2026-05-05T13:59:59" }, code: "slot_too_late" },
  // 6. price: currency, fixed amount, cap
  {
    name: "slot price in another currency",
    slot: { price: { amount_minor: 9500, currency: "EUR" } },
    code: "currency_mismatch",
    field: "/slot/price/currency",
  },
  {
    name: "service price in another currency",
    service: { price: { amount_minor: 9500, currency: "CAD" } },
    code: "currency_mismatch",
  },
  {
    name: "price above cap",
    slot: { price: { amount_minor: 10001, currency: "USD" } },
    code: "price_exceeds_mandate",
  },
  {
    name: "quote_required price",
    slot: { price: { currency: "USD", type: "quote_required" } },
    code: "requires_user_confirmation",
  },
  {
    name: "no price anywhere",
    slot: { price: undefined },
    service: { price: undefined },
    code: "requires_user_confirmation",
  },
  // 7. consultation
  {
    name: "consultation service",
    service: { requires_consultation: true },
    code: "requires_consultation_handoff",
  },
  // 8. payment requirement
  {
    name: "deposit without allow_policy_fee",
    policy: { payment_requirement: "deposit", deposit: deposit(2000) },
    code: "requires_payment_handoff",
  },
  {
    name: "full_prepay without allow_policy_fee",
    policy: { payment_requirement: "full_prepay" },
    code: "requires_payment_handoff",
  },
  {
    name: "deposit allowed but max_extra_fee too low",
    mandate: { allow_policy_fee: true, max_extra_fee: deposit(1999) },
    policy: { payment_requirement: "deposit", deposit: deposit(2000) },
    code: "policy_fee_exceeds_mandate",
    field: "/mandate/max_extra_fee",
  },
  {
    name: "deposit in another currency than max_extra_fee",
    mandate: { allow_policy_fee: true, max_extra_fee: deposit(5000, "EUR") },
    policy: { payment_requirement: "deposit", deposit: deposit(2000) },
    code: "currency_mismatch",
  },
  {
    name: "deposit in another currency than max_price when no max_extra_fee",
    mandate: { allow_policy_fee: true, max_extra_fee: undefined },
    policy: { payment_requirement: "deposit", deposit: deposit(2000, "EUR") },
    code: "currency_mismatch",
  },
  {
    name: "deposit allowed but amount not fixed",
    mandate: { allow_policy_fee: true },
    policy: { payment_requirement: "deposit", deposit: { currency: "USD", type: "unknown" } },
    code: "requires_payment_handoff",
  },
  {
    name: "deposit allowed but no amount reported",
    mandate: { allow_policy_fee: true },
    policy: { payment_requirement: "deposit", deposit: undefined },
    code: "requires_payment_handoff",
  },
  {
    name: "unknown payment requirement",
    policy: { payment_requirement: "unknown" },
    code: "requires_user_confirmation",
  },
];

describe("validateMandate: OSBP Mandate Enforcement, one row per rule", () => {
  it.each(CASES)("$name -> $code", (c) => {
    const r = run(c);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe(c.code);
    expect(r.error.message.length).toBeGreaterThan(0);
    // The published problem schema allows code, message and retryable only: the member at
    // fault is named in the message.
    expect(Object.keys(r.error).sort()).toEqual(["code", "message", "retryable"]);
    if (c.field !== undefined) expect(mentions(r.error.message, c.field), r.error.message).toBe(true);
  });

  it("accepts the spec's example mandate, slot, service and policy", () => {
    const r = run({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.mandate.id).toBe("mnd_2026_05_01_001");
    expect(r.value.price).toMatchObject({ amount_minor: 9500, currency: "USD" });
    expect(r.value.policyFee).toBeUndefined();
  });

  it("OSBP BookingMandate: an omitted list is unconstrained", () => {
    const r = run({
      mandate: { service_ids: undefined, schedule_ids: undefined, provider_ids: undefined },
      slot: { provider_id: undefined, service_id: "service_9", schedule_id: "schedule_9" },
      service: { id: "service_9" },
    });
    expect(r.ok).toBe(true);
  });

  it("the window bounds are inclusive", () => {
    const r = run({ mandate: { earliest_start: "2026-05-05T13:00:00", latest_end: "2026-05-05T14:00:00" } });
    expect(r.ok).toBe(true);
  });
});

describe("validateMandate: the order of OSBP Mandate Enforcement", () => {
  it("an expired mandate that is also out of scope reports mandate_expired", () => {
    const r = run({ now: EXPIRY + 1, mandate: { service_ids: ["x"], organization_id: "org_other" } });
    expect(!r.ok && r.error.code).toBe("mandate_expired");
  });

  it("wrong organization and wrong service reports organization_not_allowed", () => {
    const r = run({ mandate: { organization_id: "org_other", service_ids: ["x"] } });
    expect(!r.ok && r.error.code).toBe("organization_not_allowed");
  });

  // Each violation breaks exactly one step; any combination reports the earliest step's code.
  const VIOLATIONS: [string, Omit<Case, "name" | "code">][] = [
    ["invalid_mandate", { mandate: { expires_at: "2026-05-01T23:59:59" } }],
    ["mandate_expired", { now: EXPIRY + 60_000 }],
    ["action_not_allowed", { mandate: { allowed_actions: ["booking.status"] } }],
    ["organization_not_allowed", { mandate: { organization_id: "org_other" } }],
    ["service_not_allowed", { mandate: { service_ids: ["service_999"] } }],
    ["schedule_not_allowed", { mandate: { schedule_ids: ["schedule_999"] } }],
    ["provider_not_allowed", { mandate: { provider_ids: ["provider_999"] } }],
    ["slot_too_early", { mandate: { earliest_start: "2026-05-05T13:30:00" } }],
    ["slot_too_late", { mandate: { latest_end: "2026-05-05T13:45:00" } }],
    ["price_exceeds_mandate", { mandate: { max_price: { amount_minor: 9000, currency: "USD" } } }],
    ["requires_consultation_handoff", { service: { requires_consultation: true } }],
    ["requires_payment_handoff", { policy: { payment_requirement: "deposit", deposit: deposit(100) } }],
  ];

  it("reports the first failing step for any combination (property)", () => {
    fc.assert(
      fc.property(
        fc.subarray(
          VIOLATIONS.map((_, i) => i),
          { minLength: 1 },
        ),
        (picked) => {
          const merged: Omit<Case, "name" | "code"> = { mandate: {} };
          for (const i of picked) {
            const v = VIOLATIONS[i]![1];
            merged.mandate = { ...merged.mandate, ...v.mandate };
            merged.now = v.now ?? merged.now;
            merged.service = { ...merged.service, ...v.service };
            merged.policy = { ...merged.policy, ...v.policy };
          }
          const r = run(merged);
          expect(!r.ok && r.error.code).toBe(VIOLATIONS[Math.min(...picked)]![0]);
        },
      ),
    );
  });
});

describe("validateMandate: price caps in minor units (OSBP Money)", () => {
  it("a price equal to the cap passes, one minor unit more fails", () => {
    expect(run({ slot: { price: { amount_minor: 10000, currency: "USD" } } }).ok).toBe(true);
    const r = run({ slot: { price: { amount_minor: 10001, currency: "USD" } } });
    expect(!r.ok && r.error).toMatchObject({ code: "price_exceeds_mandate" });
    expect(!r.ok && r.error.message).toContain("USD 100.01");
  });

  it.each([
    ["JPY", 12000, "JPY 12001"],
    ["KWD", 25500, "KWD 25.501"],
  ])("%s cap %i: equal passes, +1 fails", (currency, cap, words) => {
    const base = {
      mandate: { max_price: { amount_minor: cap, currency }, max_extra_fee: undefined },
      service: { price: { amount_minor: cap, currency } },
      policy: { cancellation_fee: undefined, no_show_fee: undefined, deposit: undefined },
    };
    expect(run({ ...base, slot: { price: { amount_minor: cap, currency } } }).ok).toBe(true);
    const r = run({ ...base, slot: { price: { amount_minor: cap + 1, currency } } });
    expect(!r.ok && r.error.code).toBe("price_exceeds_mandate");
    expect(!r.ok && r.error.message).toContain(words);
  });

  it("passes exactly when price <= cap (property)", () => {
    fc.assert(
      fc.property(fc.nat(1_000_000_000), fc.nat(1_000_000_000), (price, cap) => {
        const r = run({
          mandate: { max_price: { amount_minor: cap, currency: "USD" } },
          slot: { price: { amount_minor: price, currency: "USD" } },
          service: { price: undefined },
        });
        expect(r.ok ? "ok" : r.error.code).toBe(price <= cap ? "ok" : "price_exceeds_mandate");
      }),
    );
  });

  it("the slot price is the selected one; the service price only needs the same currency", () => {
    const r = run({ service: { price: { currency: "USD", type: "quote_required" } } });
    expect(r.ok).toBe(true);
  });

  it.each(["insurance_dependent", "quote_required", "unknown"] as const)(
    "a %s price fails closed: requires_user_confirmation, not retryable, no token",
    (type) => {
      const r = run({ slot: { price: { currency: "USD", type } } });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toMatchObject({ code: "requires_user_confirmation", retryable: false });
      expect(r.error.message).not.toMatch(/approval\.token/);
    },
  );

  it("a malformed adapter price fails closed rather than being compared", () => {
    const r = run({ slot: { price: { amount_minor: 12.5, currency: "USD" } } });
    expect(!r.ok && r.error).toMatchObject({ code: "requires_user_confirmation", retryable: false });
  });
});

describe("validateMandate: payment requirement (OSBP policy.explain)", () => {
  it("a deposit allowed by allow_policy_fee and covered by max_extra_fee passes", () => {
    const r = run({
      mandate: { allow_policy_fee: true, max_extra_fee: deposit(2000) },
      policy: { payment_requirement: "deposit", deposit: deposit(2000) },
    });
    expect(r.ok && r.value.policyFee).toMatchObject({ amount_minor: 2000, currency: "USD" });
  });

  it("without max_extra_fee an allowed same-currency deposit passes", () => {
    const r = run({
      mandate: { allow_policy_fee: true, max_extra_fee: undefined },
      policy: { payment_requirement: "deposit", deposit: deposit(2000) },
    });
    expect(r.ok).toBe(true);
  });

  it("full_prepay without a deposit amount requires the selected price within max_extra_fee", () => {
    const ctx = { policy: { payment_requirement: "full_prepay" as const, deposit: undefined } };
    expect(run({ ...ctx, mandate: { allow_policy_fee: true, max_extra_fee: deposit(9500) } }).ok).toBe(true);
    const r = run({ ...ctx, mandate: { allow_policy_fee: true, max_extra_fee: deposit(9499) } });
    expect(!r.ok && r.error.code).toBe("policy_fee_exceeds_mandate");
  });

  it("payment_requirement none ignores a zero deposit even when fees are not allowed", () => {
    expect(run({ policy: { payment_requirement: "none", deposit: deposit(0) } }).ok).toBe(true);
  });

  it("an unrecognised payment requirement fails closed like unknown", () => {
    const r = run({ policy: { payment_requirement: "card_on_file" as never } });
    expect(!r.ok && r.error).toMatchObject({ code: "requires_user_confirmation", retryable: false });
  });
});

describe("validateMandate never throws on hostile mandates", () => {
  it("returns invalid_mandate for any non-object or arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const r = validateMandate(value, {
          now: NOW,
          action: "booking.create",
          slot: slot(),
          service: service(),
          policy: policy(),
        });
        expect(!r.ok && r.error.code).toBe("invalid_mandate");
      }),
    );
  });
});

describe("validateRequestScope: bullets 1 to 4 on the ids a request names, before any lookup", () => {
  const ids = {
    organizationIds: ["org_01jw3z8x9k2m4n6p8r0s1t3v5w"],
    serviceIds: ["service_123"],
    scheduleId: "schedule_123",
    providerId: "provider_123",
  };
  const check = (m: Record<string, unknown>, o: Partial<typeof ids> = {}, now = NOW) =>
    validateRequestScope(m, { now, action: "booking.create", ids: { ...ids, ...o } });

  it("a provider the merchant may not even have is refused in the mandate's terms", () => {
    const r = check(mandate(), { providerId: "prov_other" });
    expect(!r.ok && r.error.code).toBe("provider_not_allowed");
    expect(!r.ok && Object.keys(r.error).sort()).toEqual(["code", "message", "retryable"]);
  });

  it("keeps the spec's order: an expired mandate is mandate_expired before any scope failure", () => {
    const r = check(mandate(), { providerId: "prov_other" }, Date.parse("2030-01-01T00:00:00Z"));
    expect(!r.ok && r.error.code).toBe("mandate_expired");
  });

  it("an empty or missing provider under provider_ids is provider_unknown; ids in scope pass", () => {
    for (const providerId of ["", undefined]) {
      const r = check(mandate(), { providerId });
      expect(!r.ok && r.error.code).toBe("provider_unknown");
    }
    expect(check(mandate()).ok).toBe(true);
    expect(!check(mandate(), { scheduleId: "s_other" }).ok).toBe(true);
  });
});
