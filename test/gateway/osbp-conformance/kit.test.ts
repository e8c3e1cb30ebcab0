/**
 * What the public OSBP conformance kit (github.com/osbp-dev/osbp, packages/osbp-conformance)
 * checks against dist/gateway/osbp-conformance/index.js, restated as this project's own tests against
 * the source: the fixture layout it reads, Problems with exactly the published members, the
 * fail-closed matrix of OSBP "Mandate Enforcement", the fixture slot booked once per check,
 * and the test-mode verification code. The kit itself is not a dependency of the project.
 */
import { describe, expect, it } from "vitest";
import { createSyntheticConnector, fadesOnQueen } from "../../../src/connectors/synthetic/index.js";
import { createCoreAdapter } from "../../../src/edges/osbp/adapter/index.js";
import { inProcessCore } from "../../../src/gateway/in-process-core.js";
import { hostConfigFor } from "../../edges/osbp/adapter/support.js";
import {
  CONFORMANCE_SERVICE_ROLES,
  CONFORMANCE_VERIFICATION_CODE,
  conformanceFixtures as kit,
  createAdapter,
  createConformanceAdapter,
  type ConformanceServiceRole,
} from "../../../src/gateway/osbp-conformance/index.js";
import { MemoryIdempotencyStore } from "../../../src/edges/osbp/idempotency/memory.js";
import {
  extractApprovalToken,
  type AdapterResult,
  type BookingAdapter,
  type BookingCreateInput,
  type BookingMandate,
  type Problem,
  type Receipt,
} from "../../../src/protocol/osbp/index.js";

const KIT_KEYS = [
  "customer",
  "date",
  "expected_prices",
  "organization_id",
  "provider_id",
  "schedule_id",
  "services",
  "time",
];
const SERVICE_KEYS: ConformanceServiceRole[] = [
  "fixed_usd",
  "fixed_eur",
  "fixed_gbp",
  "fixed_jpy",
  "fixed_kwd",
  "insurance_dependent",
  "quote_required",
  "consultation",
  "deposit",
  "full_prepay",
  "unknown_payment",
  "verification",
];
/** The customer members of the published tool-input schema (schemas/v0.1.0/tool-inputs.schema.json). */
const PUBLISHED_CUSTOMER = ["display_name", "email", "id", "phone"];

/** Asserts the published problem.schema.json (closed: code, message, retryable) and returns it. */
function problemOf<T>(r: AdapterResult<T>): Problem {
  if (r.ok) throw new Error(`expected a Problem, got ${JSON.stringify(r.value)}`);
  expect(Object.keys(r).sort(), JSON.stringify(r)).toEqual(["ok", "problem"]);
  expect(Object.keys(r.problem).sort(), JSON.stringify(r.problem)).toEqual(["code", "message", "retryable"]);
  expect(typeof r.problem.code).toBe("string");
  expect(typeof r.problem.message).toBe("string");
  expect(typeof r.problem.retryable).toBe("boolean");
  return r.problem;
}

function valueOf<T>(r: AdapterResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.problem)}`);
  return r.value;
}

/** A mandate for the fixture slot in the kit's manner: the 09:00–12:00 window, capped at the service's price. */
function mandate(serviceId: string, overrides: Partial<BookingMandate> = {}): BookingMandate {
  const price = kit.expected_prices[serviceId] ?? { amount_minor: 20_000, currency: "USD" };
  return {
    id: "mnd_kit_restated",
    expires_at: "2030-05-01T13:00:00Z",
    allowed_actions: ["booking.create"],
    organization_id: kit.organization_id,
    service_ids: [serviceId],
    provider_ids: [kit.provider_id],
    schedule_ids: [kit.schedule_id],
    earliest_start: `${kit.date}T09:00:00`,
    latest_end: `${kit.date}T12:00:00`,
    max_price: { amount_minor: price.amount_minor, currency: price.currency },
    allow_policy_fee: false,
    max_extra_fee: { amount_minor: 0, currency: price.currency },
    ...overrides,
  };
}

function input(
  key: string,
  role: ConformanceServiceRole = "fixed_usd",
  o: { mandate?: Partial<BookingMandate>; input?: Partial<BookingCreateInput> } = {},
): BookingCreateInput {
  const serviceId = kit.services[role];
  return {
    mandate: mandate(serviceId, o.mandate),
    idempotency_key: key,
    service_id: serviceId,
    schedule_id: kit.schedule_id,
    provider_id: kit.provider_id,
    date: kit.date,
    time: kit.time,
    customer: kit.customer,
    ...o.input,
  };
}

/** booking.create through the final-confirmation gate (OSBP "booking.create"). */
async function approvedInput(adapter: BookingAdapter, i: BookingCreateInput): Promise<BookingCreateInput> {
  const challenge = problemOf(await adapter.createBooking(i));
  expect(challenge).toMatchObject({ code: "requires_user_confirmation", retryable: true });
  const token = extractApprovalToken(challenge.message);
  expect(token).toBeDefined();
  return { ...i, approval: { confirmed: true, token: token! } };
}

async function book(adapter: BookingAdapter, i: BookingCreateInput): Promise<Receipt> {
  return valueOf(await adapter.createBooking(await approvedInput(adapter, i)));
}

describe("conformanceFixtures: the kit's layout", () => {
  it("has exactly the members the kit reads, every service role, and plain JSON", () => {
    expect(Object.keys(kit).sort()).toEqual(KIT_KEYS);
    expect(Object.keys(kit.services).sort()).toEqual([...SERVICE_KEYS].sort());
    expect(kit.services).toEqual(CONFORMANCE_SERVICE_ROLES);
    expect(JSON.parse(JSON.stringify(kit))).toEqual(kit);
    expect(kit.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(kit.time).toMatch(/^\d{2}:\d{2}$/);
  });

  it("the customer carries only members of the published tool-input schema", () => {
    expect(Object.keys(kit.customer).sort()).toEqual(PUBLISHED_CUSTOMER);
    expect(kit.customer).not.toHaveProperty("given_name");
    expect(kit.customer).not.toHaveProperty("family_name");
  });

  it("expected_prices is every fixed price exactly as service.describe reports it", async () => {
    const adapter = createAdapter();
    for (const role of ["fixed_usd", "fixed_eur", "fixed_gbp", "fixed_jpy", "fixed_kwd"] as const) {
      expect(kit.expected_prices[kit.services[role]], role).toBeDefined();
    }
    expect(kit.expected_prices[kit.services.fixed_jpy]).toEqual({ amount_minor: 12000, currency: "JPY" });
    expect(kit.expected_prices[kit.services.fixed_kwd]).toEqual({ amount_minor: 12500, currency: "KWD" });
    for (const [id, price] of Object.entries(kit.expected_prices)) {
      const s = valueOf(await adapter.describeService({ service_id: id }));
      expect({ amount_minor: s.price?.amount_minor, currency: s.price?.currency }, id).toEqual(price);
    }
  });

  it("the fixture ids are the host's: organization, schedule, and a provider of every service", async () => {
    const adapter = createAdapter();
    const slots = valueOf(
      await adapter.findAvailability({
        service_id: kit.services.fixed_usd,
        schedule_id: kit.schedule_id,
        date: kit.date,
        provider_id: kit.provider_id,
      }),
    );
    const fixture = slots.find((s) => s.starts_at_local === `${kit.date}T${kit.time}:00`);
    expect(fixture).toMatchObject({
      organization_id: kit.organization_id,
      schedule_id: kit.schedule_id,
      provider_id: kit.provider_id,
    });
    // The kit's shape.slot.denormalized_context: names and the location, for presentation.
    expect(fixture?.organization_name).toBe("Bayview Reference Studio");
    expect(fixture?.schedule_name).toBeTruthy();
    expect(fixture?.provider_name).toBeTruthy();
    expect(Number.isFinite(fixture?.schedule_latitude)).toBe(true);
    expect(Number.isFinite(fixture?.schedule_longitude)).toBe(true);
  });
});

describe("the kit's fail-closed matrix (OSBP Mandate Enforcement), each Problem exactly {code, message, retryable}", () => {
  const CASES: [string, string, Parameters<typeof input>[1], Parameters<typeof input>[2]][] = [
    ["mandate_expired", "mandate_expired", "fixed_usd", { mandate: { expires_at: "2000-01-01T00:00:00Z" } }],
    ["naked expires_at", "invalid_mandate", "fixed_usd", { mandate: { expires_at: "2030-05-01T13:00:00" } }],
    [
      "wall-clock with an offset",
      "invalid_mandate",
      "fixed_usd",
      { mandate: { earliest_start: `${kit.date}T09:00:00Z` } },
    ],
    ["action", "action_not_allowed", "fixed_usd", { mandate: { allowed_actions: ["service.describe"] } }],
    ["organization", "organization_not_allowed", "fixed_usd", { mandate: { organization_id: "org_other" } }],
    ["service", "service_not_allowed", "fixed_usd", { mandate: { service_ids: ["svc_other"] } }],
    ["schedule", "schedule_not_allowed", "fixed_usd", { mandate: { schedule_ids: ["sched_other"] } }],
    // An empty provider_id (the published schema allows any string) names no provider.
    ["no provider", "provider_unknown", "fixed_usd", { input: { provider_id: "" } }],
    ["too early", "slot_too_early", "fixed_usd", { mandate: { earliest_start: `${kit.date}T11:00:00` } }],
    ["too late", "slot_too_late", "fixed_usd", { mandate: { latest_end: `${kit.date}T10:30:00` } }],
    [
      "price",
      "price_exceeds_mandate",
      "fixed_usd",
      { mandate: { max_price: { amount_minor: 1, currency: "USD" } } },
    ],
    [
      "EUR vs USD",
      "currency_mismatch",
      "fixed_eur",
      { mandate: { max_price: { amount_minor: 20000, currency: "USD" } } },
    ],
    [
      "GBP vs USD",
      "currency_mismatch",
      "fixed_gbp",
      { mandate: { max_price: { amount_minor: 20000, currency: "USD" } } },
    ],
    ["unknown payment", "requires_user_confirmation", "unknown_payment", {}],
    ["insurance price", "requires_user_confirmation", "insurance_dependent", {}],
    ["quote price", "requires_user_confirmation", "quote_required", {}],
    ["deposit", "requires_payment_handoff", "deposit", {}],
    ["full prepay", "requires_payment_handoff", "full_prepay", {}],
    ["consultation", "requires_consultation_handoff", "consultation", {}],
  ];

  it.each(CASES)("%s -> %s", async (name, code, role, o) => {
    const adapter = createAdapter();
    const p = problemOf(await adapter.createBooking(input(`neg_${name}`, role, o)));
    expect(p.code, p.message).toBe(code);
    expect(p.retryable).toBe(false);
  });

  it("every other tool's Problems carry exactly the published members too", async () => {
    const adapter = createAdapter();
    const purpose = `booking:${kit.organization_id}`;
    problemOf(await adapter.describeService({ service_id: "svc_missing" }));
    problemOf(await adapter.findAvailability({ service_id: kit.services.fixed_usd, date: "2030-02-30" }));
    problemOf(await adapter.findAvailability({ date: kit.date, provider_id: "prov_missing" }));
    problemOf(await adapter.explainPolicy({ service_id: "svc_missing" }));
    problemOf(await adapter.sendVerification({ customer: kit.customer, purpose: "booking:elsewhere" }));
    problemOf(await adapter.verifyCode({ customer: kit.customer, purpose, code: "000000" }));
    problemOf(await adapter.getBooking({ booking_id: "appointment_missing" }));
    // Schema refusals at the adapter boundary (a kit drives the adapter without an MCP edge).
    problemOf(await adapter.describeService({ colour: "red" } as never));
    // The controlled runtime branches.
    const taken = createConformanceAdapter("slot_taken");
    const p = problemOf(await taken.createBooking(await approvedInput(taken, input("runtime_slot_taken"))));
    expect(p).toMatchObject({ code: "slot_taken", retryable: true });
    const limited = createConformanceAdapter("rate_limited");
    expect(problemOf(await limited.createBooking(input("runtime_rate_limited")))).toMatchObject({
      code: "rate_limited",
      retryable: true,
    });
  });
});

describe("the fixture slot: booked once per kit check", () => {
  it("eight bookings of the fixture slot, each under its own key, all succeed and read back booked", async () => {
    const adapter = createAdapter();
    const receipts: Receipt[] = [];
    for (let i = 0; i < 7; i++) receipts.push(await book(adapter, input(`fixture_slot_${i}`)));
    // The verification case books the same slot with the verified service.
    const verified = await approvedInput(adapter, input("fixture_slot_verified", "verification"));
    expect(problemOf(await adapter.createBooking(verified)).code).toBe("requires_verification");
    valueOf(
      await adapter.sendVerification({ customer: kit.customer, purpose: `booking:${kit.organization_id}` }),
    );
    receipts.push(
      valueOf(await adapter.createBooking({ ...verified, verification_code: CONFORMANCE_VERIFICATION_CODE })),
    );
    expect(new Set(receipts.map((r) => r.booking_id)).size).toBe(8);
    for (const r of receipts) {
      const b = valueOf(await adapter.getBooking({ booking_id: r.booking_id, customer: kit.customer }));
      expect(b).toMatchObject({ status: "booked", starts_at_local: `${kit.date}T${kit.time}:00` });
    }
  });

  it("replays the same receipt for the same key and payload; a different payload is idempotency_conflict", async () => {
    const adapter = createAdapter();
    const first = await book(adapter, input("idempotency"));
    expect(valueOf(await adapter.createBooking(input("idempotency")))).toEqual(first);
    const other = input("idempotency", "fixed_usd", { input: { time: "11:00" } });
    expect(problemOf(await adapter.createBooking(other)).code).toBe("idempotency_conflict");
  });

  it("a stylist still takes one booking at a time: slot_taken stays reachable", async () => {
    const adapter = createAdapter();
    const jordan = {
      input: { provider_id: "stylist-jordan" },
      mandate: { provider_ids: ["stylist-jordan"] },
    };
    await book(adapter, input("jordan_1", "fixed_usd", jordan));
    // Refused before the approval gate: the platform no longer offers that time.
    expect(problemOf(await adapter.createBooking(input("jordan_2", "fixed_usd", jordan)))).toMatchObject({
      code: "slot_taken",
      retryable: true,
    });
  });
});

describe("the test verification code 123456", () => {
  it("verifies in the conformance scenario", async () => {
    const adapter = createAdapter();
    const purpose = `booking:${kit.organization_id}`;
    valueOf(await adapter.sendVerification({ customer: kit.customer, purpose }));
    expect(await adapter.lastVerificationCode(kit.customer.phone!)).toBe(CONFORMANCE_VERIFICATION_CODE);
    expect(
      valueOf(await adapter.verifyCode({ customer: kit.customer, purpose, code: "123456" })),
    ).toMatchObject({
      verified: true,
      method: "sms",
    });
  });

  it("does not verify on another scenario's platform", async () => {
    const now = Date.parse("2026-10-18T12:00:00-04:00");
    const connector = createSyntheticConnector({ scenario: fadesOnQueen, clock: { now: () => now } });
    const config = hostConfigFor(fadesOnQueen);
    const adapter = createCoreAdapter({
      core: inProcessCore(config, connector, { now: () => now }),
      hostId: config.id,
      platform: connector.platform,
      idempotency: new MemoryIdempotencyStore(),
      clock: { now: () => now },
    });
    const customer = { phone: "+14165550123" };
    const purpose = `booking:${fadesOnQueen.organization.id}`;
    valueOf(await adapter.sendVerification({ customer, purpose }));
    const sent = await connector.lastCodeFor(customer.phone);
    expect(sent).toMatch(/^\d{6}$/);
    expect(sent).not.toBe("123456");
    expect(problemOf(await adapter.verifyCode({ customer, purpose, code: "123456" })).code).toBe(
      "verification_failed",
    );
    expect(valueOf(await adapter.verifyCode({ customer, purpose, code: sent! }))).toMatchObject({
      verified: true,
    });
  });
});
