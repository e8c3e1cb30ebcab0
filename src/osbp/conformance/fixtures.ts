/**
 * conformanceFixtures: the conformance host described in OSBP wire terms, so a conformance kit
 * (or a test, or the demo) can drive any OSBP server bound to it without reading the
 * synthetic platform's code.
 *
 * The data part is plain JSON (JSON.stringify drops the two functions and keeps everything
 * else exactly): ids as booking.create takes them, names, durations as ISO 8601 strings, and
 * every price as the OSBP Money service.describe / policy.explain report, with amount_minor in
 * the currency's ISO 4217 minor unit (OSBP "Money": JPY 12000 is ¥12,000, KWD 12500 is
 * 12.500 KWD). `display` is a non-canonical hint and is left out. It is derived from the
 * scenario, so the two cannot drift.
 *
 * Conventions it states (those of the generic adapter, src/osbp/adapter): a single-location
 * platform's schedule_id is its organization id, and providers are its staff resources.
 */
import type { CatalogService } from "../../connectors/port.js";
import type { Money, OsbpMoney } from "../../protocol/money/index.js";
import type { BookingMandate, Customer, PaymentRequirement } from "../../protocol/osbp/index.js";
import {
  addDays,
  formatOsbpDuration,
  instantToWallClock,
  type LocalDate,
} from "../../protocol/time/index.js";
import { CONFORMANCE_HOST_ID, conformanceScenario } from "./host.js";

/** The cases a conformance kit needs, each one service of the host. */
export const CONFORMANCE_SERVICE_ROLES = {
  /** USD 95.00, no upfront payment, cancellation terms and both fees reported. */
  fixedUsd: "haircut",
  fixedEur: "blow-dry-eur",
  fixedGbp: "beard-trim-gbp",
  /** Exponent 0. */
  fixedJpy: "head-spa-jpy",
  /** Exponent 3. */
  fixedKwd: "scalp-treatment-kwd",
  insuranceDependent: "scalp-assessment",
  quoteRequired: "bridal-styling",
  /** requires_consultation: true (requires_consultation_handoff). */
  consultation: "colour-consultation",
  /** USD 250.00 with a USD 50.00 deposit. */
  deposit: "colour-treatment",
  /** USD 400.00 paid in full upfront. */
  fullPrepay: "keratin-treatment",
  /** The platform cannot say what it requires (fails closed). */
  unknownPayment: "extensions-fitting",
  /** The platform verifies the customer by SMS before booking (requires_verification). */
  verificationRequired: "express-trim",
} as const;

export type ConformanceServiceRole = keyof typeof CONFORMANCE_SERVICE_ROLES;

export interface ConformanceServiceFixture {
  readonly service_id: string;
  readonly name: string;
  /** ISO 8601, as service.describe reports it ("PT45M", "PT1H30M"). */
  readonly duration: string;
  /** Fixed: amount_minor, currency, type "fixed"; otherwise currency and the non-fixed type only. */
  readonly price: OsbpMoney;
  readonly payment_requirement: PaymentRequirement;
  /** Only when the platform reports a deposit amount. */
  readonly deposit?: OsbpMoney;
  readonly requires_consultation: boolean;
  /** The platform wants the customer verified before it books this service. */
  readonly requires_verification: boolean;
  /** Only when the platform reports them (OSBP "policy.explain"). */
  readonly cancellation_fee?: OsbpMoney;
  readonly no_show_fee?: OsbpMoney;
}

export interface ConformanceFixtureData {
  readonly host_id: string;
  /** As the policy.explain organization block reports it. */
  readonly organization: {
    readonly id: string;
    readonly name: string;
    readonly timezone: string;
    readonly currency: string;
    readonly country: string;
  };
  readonly schedule_id: string;
  readonly providers: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly services: { readonly [R in ConformanceServiceRole]: ConformanceServiceFixture };
  /** A sample customer: an E.164 phone from the 555-01xx fiction range and an example.com email. */
  readonly customer: Customer;
  readonly verification_method: "sms";
}

export interface ConformanceFixtures extends ConformanceFixtureData {
  /** A merchant-local "YYYY-MM-DD" one day after the host's local date at `now` (epoch ms); the host works every day. */
  bookableDate(now: number): string;
  /**
   * A BookingMandate valid at `now` (default: the current time) for this host: expires one hour
   * later, booking.create allowed, pinned to the organization and schedule, any service and
   * provider, the week from bookableDate(now) 09:00 to six days later 18:00, max_price
   * USD 100.00 (covers fixedUsd), no policy fee. `overrides` replace members as given.
   */
  mandateFor(overrides?: Partial<BookingMandate>, now?: number): BookingMandate;
}

const HOUR = 3_600_000;

function fixedMoney(m: Money): OsbpMoney {
  return { amount_minor: m.minor, currency: m.currency, type: "fixed" };
}

function priceOf(s: CatalogService, currency: string): OsbpMoney {
  if (s.price !== undefined) return fixedMoney(s.price);
  return { currency, type: s.priceType !== undefined && s.priceType !== "fixed" ? s.priceType : "unknown" };
}

function serviceFixture(id: string): ConformanceServiceFixture {
  const s = conformanceScenario.services.find((x) => x.id === id);
  if (s === undefined || s.duration === "open") throw new Error(`conformance host has no service "${id}"`);
  const currency = conformanceScenario.organization.currency ?? "USD";
  return {
    service_id: s.id,
    name: s.name,
    duration: formatOsbpDuration(s.duration),
    price: priceOf(s, currency),
    payment_requirement: s.payment?.requirement ?? "unknown",
    ...(s.payment?.deposit === undefined ? {} : { deposit: fixedMoney(s.payment.deposit) }),
    requires_consultation: s.requiresConsultation === true,
    requires_verification: s.requiresVerification === true,
    ...(s.cancellationFee === undefined ? {} : { cancellation_fee: fixedMoney(s.cancellationFee) }),
    ...(s.noShowFee === undefined ? {} : { no_show_fee: fixedMoney(s.noShowFee) }),
  };
}

const services = Object.fromEntries(
  Object.entries(CONFORMANCE_SERVICE_ROLES).map(([role, id]) => [role, serviceFixture(id)]),
) as { [R in ConformanceServiceRole]: ConformanceServiceFixture };

const org = conformanceScenario.organization;

/** Frozen all the way down: one test mutating a fixture must not change what the next one reads. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** The JSON part on its own. */
export const conformanceFixtureData: ConformanceFixtureData = deepFreeze({
  host_id: CONFORMANCE_HOST_ID,
  organization: {
    id: org.id,
    name: org.name,
    timezone: org.timezone,
    currency: org.currency ?? "USD",
    country: org.country ?? "US",
  },
  schedule_id: org.id,
  providers: conformanceScenario.resources
    .filter((r) => r.staff === true)
    .map((r) => ({ id: r.id, name: r.name })),
  services,
  customer: {
    display_name: "Jane Customer",
    given_name: "Jane",
    family_name: "Customer",
    phone: "+15555550100",
    email: "jane@example.com",
  },
  verification_method: "sms",
});

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
const dateText = (d: LocalDate): string => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;

function bookableLocalDate(now: number): LocalDate {
  const today = instantToWallClock(now, org.timezone);
  return addDays({ year: today.year, month: today.month, day: today.day }, 1);
}

const withFunctions: ConformanceFixtures = {
  ...conformanceFixtureData,
  bookableDate: (now) => dateText(bookableLocalDate(now)),
  mandateFor(overrides = {}, now = Date.now()) {
    const first = bookableLocalDate(now);
    const currency = conformanceFixtureData.organization.currency;
    return {
      id: `mnd_conformance_${now.toString(36)}`,
      expires_at: new Date(now + HOUR).toISOString(),
      allowed_actions: ["booking.create"],
      organization_id: org.id,
      schedule_ids: [conformanceFixtureData.schedule_id],
      earliest_start: `${dateText(first)}T09:00:00`,
      latest_end: `${dateText(addDays(first, 6))}T18:00:00`,
      max_price: { amount_minor: 10_000, currency },
      allow_policy_fee: false,
      max_extra_fee: { amount_minor: 0, currency },
      ...overrides,
    };
  },
};

export const conformanceFixtures: ConformanceFixtures = Object.freeze(withFunctions);
