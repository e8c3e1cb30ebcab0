import { attemptHoldId } from "../../../src/booking/direct/index.js";
/**
 * The exportable conformance module (src/gateway/osbp-conformance): the host, its fixtures, and the
 * adapter a conformance kit drives, checked against the real generic adapter over the
 * synthetic platform, with an injected clock.
 */
import { describe, expect, it } from "vitest";
import { checkAgainstCatalog } from "../../../src/booking/hosts/index.js";
import {
  catalogOf,
  SYNTHETIC_SCENARIOS,
  type SyntheticMessage,
} from "../../../src/connectors/synthetic/index.js";
import {
  CONFORMANCE_HOST_ID,
  CONFORMANCE_SERVICE_ROLES,
  conformanceHostData,
  conformanceHost as fx,
  conformanceHostConfig,
  conformanceScenario,
  createAdapter,
  createConformanceAdapter,
  type ConformanceAdapter,
  type ConformanceMode,
} from "../../../src/gateway/osbp-conformance/index.js";
import { toMajorUnitsString, validateOsbpMoney, type OsbpMoney } from "../../../src/protocol/money/index.js";
import {
  extractApprovalToken,
  validateMandate,
  type AdapterResult,
  type BookingCreateInput,
  type Problem,
  type Slot,
} from "../../../src/protocol/osbp/index.js";

/** Sunday 18 October 2026, noon in Los Angeles (PDT, UTC−7). */
const NOON = Date.parse("2026-10-18T12:00:00-07:00");
const clockAt = (now: number) => ({ now: () => now });

function valueOf<T>(r: AdapterResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.problem)}`);
  return r.value;
}

function problemOf<T>(r: AdapterResult<T>): Problem {
  if (r.ok) throw new Error(`expected a problem, got ${JSON.stringify(r.value)}`);
  return r.problem;
}

/** The canonical members of a Money as a reader sees them (display is a hint; type defaults). */
function canonical(m: OsbpMoney | undefined): OsbpMoney | undefined {
  if (m === undefined) return undefined;
  const read = validateOsbpMoney(m, "");
  if (!read.ok) throw new Error(`unreadable money ${JSON.stringify(m)}`);
  const { display: _display, ...rest } = read.value;
  return rest;
}

async function firstSlot(adapter: ConformanceAdapter, serviceId: string): Promise<Slot> {
  const slots = valueOf(
    await adapter.findAvailability({ service_id: serviceId, date: fx.bookableDate(NOON) }),
  );
  const slot = slots[0];
  if (slot === undefined) throw new Error(`no slot for ${serviceId}`);
  return slot;
}

function createInput(slot: Slot, extra: Partial<BookingCreateInput> = {}): BookingCreateInput {
  return {
    mandate: fx.mandateFor({ max_price: { amount_minor: 50_000, currency: "USD" } }, NOON),
    idempotency_key: `idem_${slot.service_id}`,
    service_id: slot.service_id,
    schedule_id: slot.schedule_id,
    ...(slot.provider_id === undefined ? {} : { provider_id: slot.provider_id }),
    date: slot.starts_at_local.slice(0, 10),
    time: slot.starts_at_local.slice(11, 16),
    customer: fx.customer,
    ...extra,
  };
}

/** OSBP "booking.create": the preflight challenge's token, then the approved retry's input. */
async function approved(adapter: ConformanceAdapter, input: BookingCreateInput): Promise<BookingCreateInput> {
  const challenge = problemOf(await adapter.createBooking(input));
  expect(challenge).toMatchObject({ code: "requires_user_confirmation", retryable: true });
  const token = extractApprovalToken(challenge.message);
  expect(token).toBeDefined();
  return { ...input, approval: { confirmed: true, token: token! } };
}

describe("the conformance host", () => {
  it("is Bayview Reference Studio, parsed like a deployment's host config, matching its platform", () => {
    const host = conformanceHostConfig();
    expect(host).toMatchObject({
      id: CONFORMANCE_HOST_ID,
      name: "Bayview Reference Studio",
      timezone: "America/Los_Angeles",
      connector: { type: "synthetic", settings: { scenario: CONFORMANCE_HOST_ID } },
    });
    expect(host.policies.confirmation).toBe("instant");
    expect(SYNTHETIC_SCENARIOS[CONFORMANCE_HOST_ID]).toBe(conformanceScenario);
    expect(checkAgainstCatalog(host, catalogOf(conformanceScenario)).ok).toBe(true);
  });
});

describe("conformanceHost", () => {
  it("the data part round-trips JSON.stringify exactly; the functions stay outside it", () => {
    const json = JSON.stringify(fx);
    expect(JSON.parse(json)).toEqual(conformanceHostData);
    expect(json).not.toContain("bookableDate");
    expect(json).not.toContain("mandateFor");
    expect(typeof fx.bookableDate).toBe("function");
    expect(typeof fx.mandateFor).toBe("function");
    expect(Object.isFrozen(fx.services.fixed_usd.price)).toBe(true);
  });

  it("names the organization, schedule, providers, every service role, a sample customer and the method", () => {
    expect(fx.organization).toEqual({
      id: "bayview-reference-studio",
      name: "Bayview Reference Studio",
      timezone: "America/Los_Angeles",
      currency: "USD",
      country: "US",
    });
    expect(fx.schedule_id).toBe("bayview-reference-studio");
    expect(fx.providers).toEqual([
      { id: "stylist-jordan", name: "Jordan Lee" },
      { id: "stylist-riley", name: "Riley Chen" },
      { id: "drop-in-team", name: "Bayview drop-in team" },
    ]);
    expect(Object.keys(fx.services).sort()).toEqual(Object.keys(CONFORMANCE_SERVICE_ROLES).sort());
    expect(fx.customer.phone).toMatch(/^\+155555501\d\d$/);
    expect(fx.customer.email).toMatch(/@example\.com$/);
    expect(fx.customer.display_name).toBeTruthy();
    expect(fx.verification_method).toBe("sms");
  });

  it("keeps money exact in minor units: KWD 12500 is 12.500, JPY 12000 is ¥12000, USD 9500 is 95.00", () => {
    expect(fx.services.fixed_kwd.price).toEqual({ amount_minor: 12500, currency: "KWD", type: "fixed" });
    expect(toMajorUnitsString(12500, "KWD")).toBe("12.500");
    expect(fx.services.fixed_jpy.price).toEqual({ amount_minor: 12000, currency: "JPY", type: "fixed" });
    expect(toMajorUnitsString(12000, "JPY")).toBe("12000");
    expect(fx.services.fixed_usd.price).toEqual({ amount_minor: 9500, currency: "USD", type: "fixed" });
    expect(fx.services.fixed_eur.price.currency).toBe("EUR");
    expect(fx.services.fixed_gbp.price.currency).toBe("GBP");
    expect(fx.services.insurance_dependent.price).toEqual({ currency: "USD", type: "insurance_dependent" });
    expect(fx.services.quote_required.price).toEqual({ currency: "USD", type: "quote_required" });
    expect(fx.services.deposit).toMatchObject({
      price: { amount_minor: 25000, currency: "USD", type: "fixed" },
      payment_requirement: "deposit",
      deposit: { amount_minor: 5000, currency: "USD", type: "fixed" },
    });
    expect(fx.services.full_prepay).toMatchObject({
      price: { amount_minor: 40000, currency: "USD" },
      payment_requirement: "full_prepay",
    });
    expect(fx.services.unknown_payment.payment_requirement).toBe("unknown");
    expect(fx.services.consultation.requires_consultation).toBe(true);
    expect(fx.services.verification.requires_verification).toBe(true);
    const noUpfront = Object.entries(fx.services).filter(([, s]) => s.payment_requirement === "none");
    expect(noUpfront.map(([role]) => role).sort()).toEqual(
      Object.keys(CONFORMANCE_SERVICE_ROLES)
        .filter((r) => !["deposit", "full_prepay", "unknown_payment"].includes(r))
        .sort(),
    );
  });

  it("bookableDate is the merchant-local date one day after now's local date", () => {
    expect(fx.bookableDate(NOON)).toBe("2026-10-19");
    // 23:30 on 7 March in Los Angeles is already 8 March in UTC: the local date decides.
    expect(fx.bookableDate(Date.parse("2026-03-07T23:30:00-08:00"))).toBe("2026-03-08");
    expect(fx.bookableDate(Date.parse("2026-12-31T20:00:00-08:00"))).toBe("2027-01-01");
  });

  it("mandateFor builds a mandate expiring an hour ahead that authorizes the fixed USD booking", async () => {
    const m = fx.mandateFor({}, NOON);
    expect(m).toMatchObject({
      expires_at: "2026-10-18T20:00:00.000Z",
      allowed_actions: ["booking.create"],
      organization_id: fx.organization.id,
      schedule_ids: [fx.schedule_id],
      earliest_start: "2026-10-19T09:00:00",
      latest_end: "2026-10-25T18:00:00",
      allow_policy_fee: false,
    });
    expect(m.max_price.currency).toBe("USD");
    expect(m.max_price.amount_minor).toBeGreaterThanOrEqual(fx.services.fixed_usd.price.amount_minor!);
    expect(fx.mandateFor({ id: "mnd_x", allow_policy_fee: true }, NOON)).toMatchObject({
      id: "mnd_x",
      allow_policy_fee: true,
    });

    const adapter = createAdapter({ clock: clockAt(NOON) });
    const slot = await firstSlot(adapter, fx.services.fixed_usd.service_id);
    const service = valueOf(await adapter.describeService({ service_id: slot.service_id }));
    const policy = valueOf(await adapter.explainPolicy({ service_id: slot.service_id }));
    const ctx = { action: "booking.create" as const, slot, service, policy };
    expect(validateMandate(m, { ...ctx, now: NOON }).ok).toBe(true);
    const expired = validateMandate(m, { ...ctx, now: NOON + 3_600_000 });
    expect(!expired.ok && expired.error.code).toBe("mandate_expired");
  });
});

describe("createAdapter", () => {
  it("describes every fixture service with the exact Money, name and duration", async () => {
    const adapter = createAdapter({ clock: clockAt(NOON) });
    for (const [role, f] of Object.entries(fx.services)) {
      const s = valueOf(await adapter.describeService({ service_id: f.service_id }));
      expect({ role, id: s.id, name: s.name, duration: s.duration, price: canonical(s.price) }).toEqual({
        role,
        id: f.service_id,
        name: f.name,
        duration: f.duration,
        price: f.price,
      });
      expect(s.requires_consultation === true, role).toBe(f.requires_consultation);
    }
    // service.describe without an id falls back to the host's default: the fixed USD service.
    expect(valueOf(await adapter.describeService({})).id).toBe(fx.services.fixed_usd.service_id);
  });

  it("explains every fixture service's policy: payment, deposit, fees, method, organization", async () => {
    const adapter = createAdapter({ clock: clockAt(NOON) });
    for (const [role, f] of Object.entries(fx.services)) {
      const p = valueOf(await adapter.explainPolicy({ service_id: f.service_id }));
      expect(
        {
          role,
          payment_requirement: p.payment_requirement,
          deposit: canonical(p.deposit),
          cancellation_fee: canonical(p.cancellation_fee),
          no_show_fee: canonical(p.no_show_fee),
        },
        role,
      ).toEqual({
        role,
        payment_requirement: f.payment_requirement,
        deposit: f.deposit,
        cancellation_fee: f.cancellation_fee,
        no_show_fee: f.no_show_fee,
      });
      expect(p.organization).toEqual(fx.organization);
      expect(p.verification_method).toBe(fx.verification_method);
    }
  });

  it("policy: deposit 50.00 USD, full prepayment without a separate deposit, unknown requirement", async () => {
    const adapter = createAdapter({ clock: clockAt(NOON) });
    const policy = async (id: string) => valueOf(await adapter.explainPolicy({ service_id: id }));
    expect(await policy(fx.services.deposit.service_id)).toMatchObject({
      payment_requirement: "deposit",
      deposit: { amount_minor: 5000, currency: "USD" },
    });
    const prepay = await policy(fx.services.full_prepay.service_id);
    expect(prepay.payment_requirement).toBe("full_prepay");
    expect(prepay.deposit).toBeUndefined();
    expect((await policy(fx.services.unknown_payment.service_id)).payment_requirement).toBe("unknown");
    expect(await policy(fx.services.fixed_usd.service_id)).toMatchObject({
      payment_requirement: "none",
      cancellation_enabled: true,
      cancellation_window: "PT6H",
      cancellation_note: "Cancel at least 6 hours before the appointment.",
      late_grace: "PT15M",
    });
  });

  it("offers slots on the fixture schedule with the fixture providers, for the default service", async () => {
    const adapter = createAdapter({ clock: clockAt(NOON) });
    const slots = valueOf(await adapter.findAvailability({ date: fx.bookableDate(NOON) }));
    expect(slots.length).toBeGreaterThan(0);
    expect(new Set(slots.map((s) => s.schedule_id))).toEqual(new Set([fx.schedule_id]));
    expect(new Set(slots.map((s) => s.service_id))).toEqual(new Set([fx.services.fixed_usd.service_id]));
    expect(new Set(slots.map((s) => s.provider_id))).toEqual(new Set(fx.providers.map((p) => p.id)));
    expect(slots[0]).toMatchObject({
      starts_at_local: "2026-10-19T09:00:00",
      starts_at: "2026-10-19T16:00:00.000Z",
      schedule_timezone: "America/Los_Angeles",
    });
  });

  it("books the fixed USD service after approval, once; the status is a fresh platform read", async () => {
    const adapter = createAdapter({ clock: clockAt(NOON) });
    const slot = await firstSlot(adapter, fx.services.fixed_usd.service_id);
    const input = await approved(adapter, createInput(slot));
    const receipt = valueOf(await adapter.createBooking(input));
    expect(valueOf(await adapter.getBooking({ booking_id: receipt.booking_id }))).toMatchObject({
      id: receipt.booking_id,
      status: "booked",
      service_id: slot.service_id,
      starts_at_local: slot.starts_at_local,
    });
    // One appointment on the platform, under the key the core derived from this attempt.
    const key = `${CONFORMANCE_HOST_ID}:${attemptHoldId(CONFORMANCE_HOST_ID, `osbp:${CONFORMANCE_HOST_ID}:${input.idempotency_key}`, 0)}`;
    const upstream = await adapter.connector.bookings.findByIdempotencyKey(key);
    expect(upstream.ok && upstream.value?.status).toBe("confirmed");
  });

  it("verification: requires_verification, the code reaches the customer's sink and the hook, then it books", async () => {
    const inbox: SyntheticMessage[] = [];
    const adapter = createAdapter({ clock: clockAt(NOON), messages: (m) => void inbox.push(m) });
    const slot = await firstSlot(adapter, fx.services.verification.service_id);
    const input = await approved(adapter, createInput(slot));
    expect(problemOf(await adapter.createBooking(input))).toMatchObject({
      code: "requires_verification",
      retryable: true,
    });
    const purpose = `booking:${fx.organization.id}`;
    expect(valueOf(await adapter.sendVerification({ customer: fx.customer, purpose }))).toMatchObject({
      sent: true,
      method: "sms",
    });
    const code = await adapter.lastVerificationCode(fx.customer.phone!);
    expect(code).toMatch(/^\d{6}$/);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ to: fx.customer.phone, hostId: CONFORMANCE_HOST_ID, method: "sms" });
    expect(inbox[0]!.text).toContain(code);
    valueOf(await adapter.createBooking({ ...input, verification_code: code! }));
    // The platform consumed the code with the booking it verified.
    expect(await adapter.lastVerificationCode(fx.customer.phone!)).toBeUndefined();
  });

  it("the platform's send limit reaches the adapter as rate_limited", async () => {
    const adapter = createAdapter({
      clock: clockAt(NOON),
      verificationSendLimit: { maxSends: 1, windowMs: 60_000 },
    });
    const send = () =>
      adapter.sendVerification({ customer: fx.customer, purpose: `booking:${fx.organization.id}` });
    valueOf(await send());
    expect(problemOf(await send())).toMatchObject({ code: "rate_limited", retryable: true });
    expect(adapter.upstreamMeta).toMatchObject({ status: 429, ratelimit: { "retry-after": "60" } });
  });
});

describe("createConformanceAdapter", () => {
  it('"slot_taken": the approved create is refused with slot_taken (retryable) and nothing is booked', async () => {
    const adapter = createConformanceAdapter("slot_taken", { clock: clockAt(NOON) });
    const slot = await firstSlot(adapter, fx.services.fixed_usd.service_id);
    const input = await approved(adapter, createInput(slot));
    expect(problemOf(await adapter.createBooking(input))).toMatchObject({
      code: "slot_taken",
      retryable: true,
    });
    expect(adapter.upstreamMeta).toMatchObject({ call: "POST /v2/bookings", status: 409 });
    // The slot is still offered: the platform made no appointment.
    const again = await firstSlot(adapter, fx.services.fixed_usd.service_id);
    expect(again.id).toBe(slot.id);
    const day = { start: Date.parse(slot.starts_at!), end: Date.parse(slot.starts_at!) + 86_400_000 };
    const busy = await adapter.connector.readBusy(day, []);
    expect(busy.ok && busy.value.busy).toEqual([]);
  });

  it('"rate_limited": every upstream call answers 429, so availability is rate_limited with Retry-After', async () => {
    const adapter = createConformanceAdapter("rate_limited", { clock: clockAt(NOON) });
    const p = problemOf(await adapter.findAvailability({ date: fx.bookableDate(NOON) }));
    expect(p).toMatchObject({ code: "rate_limited", retryable: true });
    expect(adapter.upstreamMeta).toMatchObject({ status: 429, ratelimit: { "retry-after": "30" } });
    // service.describe answers from the host's catalog, read as the host started: no 429 there.
    expect(valueOf(await adapter.describeService({})).id).toBe(fx.services.fixed_usd.service_id);
  });

  it('"normal" behaves as createAdapter; an unknown mode is a programmer error', async () => {
    const adapter = createConformanceAdapter("normal", { clock: clockAt(NOON) });
    expect(valueOf(await adapter.describeService({})).id).toBe(fx.services.fixed_usd.service_id);
    expect(adapter.connector.faults.pending()).toEqual([]);
    expect(() => createConformanceAdapter("flaky" as ConformanceMode)).toThrow(TypeError);
  });
});
