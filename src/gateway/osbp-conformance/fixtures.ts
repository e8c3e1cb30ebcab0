/**
 * The conformance host described in OSBP wire terms, two ways:
 *
 * - `conformanceFixtures`: exactly the layout the public OSBP conformance kit
 *   (github.com/osbp-dev/osbp, packages/osbp-conformance) reads from a target module:
 *   organization_id, schedule_id, provider_id, date, time, customer, services.{fixed_usd, …,
 *   verification} and expected_prices (service id → fixed Money). Plain JSON.
 * - `conformanceHost`: the richer description this project's own tests and demo use (every
 *   service role with its name, duration, Money and policy, the providers, the verification
 *   method) plus bookableDate(now) and mandateFor(overrides).
 *
 * Both are derived from the scenario (src/connectors/synthetic/bayview.ts), so they cannot
 * drift from the platform. Money is OSBP "Money": amount_minor in the currency's ISO 4217
 * minor unit (JPY 12000 is ¥12,000, KWD 12500 is 12.500 KWD); `display` is a hint and left out.
 *
 * Conventions (those of the generic adapter, src/edges/osbp/adapter): a single-location platform's
 * schedule_id is its organization id, and providers are its staff resources.
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

/** The cases a conformance kit needs, each one service of the host; keys as the kit names them. */
export const CONFORMANCE_SERVICE_ROLES = {
  /** USD 95.00, no upfront payment, cancellation terms and both fees reported. */
  fixed_usd: "haircut",
  fixed_eur: "blow-dry-eur",
  fixed_gbp: "beard-trim-gbp",
  /** Exponent 0. */
  fixed_jpy: "head-spa-jpy",
  /** Exponent 3. */
  fixed_kwd: "scalp-treatment-kwd",
  insurance_dependent: "scalp-assessment",
  quote_required: "bridal-styling",
  /** requires_consultation: true (requires_consultation_handoff). */
  consultation: "colour-consultation",
  /** USD 250.00 with a USD 50.00 deposit. */
  deposit: "colour-treatment",
  /** USD 400.00 paid in full upfront. */
  full_prepay: "keratin-treatment",
  /** The platform cannot say what it requires (fails closed). */
  unknown_payment: "extensions-fitting",
  /** The platform verifies the customer by SMS before booking (requires_verification). */
  verification: "express-trim",
} as const;

export type ConformanceServiceRole = keyof typeof CONFORMANCE_SERVICE_ROLES;

/** The provider every kit booking names: the drop-in team, which takes many at once (bayview.ts). */
export const CONFORMANCE_PROVIDER_ID = "drop-in-team";
/**
 * The kit's fixture slot, merchant-local: its synthetic target's date and time. The kit reads
 * `date` from the fixtures but also writes "2030-05-02" into its mandate-window checks
 * (slot_too_early, slot_too_late), so any other date would turn those checks into a
 * comparison with the wrong day. The kit's own mandates expire 2030-05-01T13:00:00Z, so a
 * kit run works until then whatever the date.
 */
export const CONFORMANCE_DATE = "2030-05-02";
export const CONFORMANCE_TIME = "10:00";
/** The code the conformance platform sends in test mode (bayview.ts). */
export const CONFORMANCE_VERIFICATION_CODE = "123456";

/**
 * A sample customer: an E.164 phone from the 555-01xx fiction range and an example.com email.
 * Only the members the published tool-input schema's customer has (id, display_name, phone,
 * email): the spec text also allows given_name and family_name, the schema does not.
 */
const CUSTOMER: Customer = {
  id: "cust_bayview_jane",
  display_name: "Jane Customer",
  phone: "+15555550100",
  email: "jane@example.com",
};

// ---------------------------------------------------------------- the kit's layout

/** What the conformance kit reads from `conformanceFixtures` (its ConformanceFixtures). */
export interface ConformanceKitFixtures {
  readonly organization_id: string;
  readonly schedule_id: string;
  readonly provider_id: string;
  /** Merchant-local "YYYY-MM-DD". */
  readonly date: string;
  /** Merchant-local "HH:MM". */
  readonly time: string;
  readonly customer: Customer;
  readonly services: { readonly [R in ConformanceServiceRole]: string };
  /** Every fixed-price service's price; the kit also caps its mandates with these. */
  readonly expected_prices: { readonly [serviceId: string]: { amount_minor: number; currency: string } };
}

const org = conformanceScenario.organization;
const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
const dateText = (d: LocalDate): string => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;

function bookableLocalDate(now: number): LocalDate {
  const today = instantToWallClock(now, org.timezone);
  return addDays({ year: today.year, month: today.month, day: today.day }, 1);
}

/** A merchant-local "YYYY-MM-DD" one day after the host's local date at `now` (epoch ms); the host works every day. */
export const bookableDate = (now: number): string => dateText(bookableLocalDate(now));

const expectedPrices = Object.fromEntries(
  conformanceScenario.services.flatMap((s) =>
    s.price === undefined ? [] : [[s.id, { amount_minor: s.price.minor, currency: s.price.currency }]],
  ),
);

/** Frozen all the way down: one test mutating a fixture must not change what the next one reads. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** The kit's fixtures: plain JSON, frozen. */
export const conformanceFixtures: ConformanceKitFixtures = deepFreeze({
  organization_id: org.id,
  schedule_id: org.id,
  provider_id: CONFORMANCE_PROVIDER_ID,
  date: CONFORMANCE_DATE,
  time: CONFORMANCE_TIME,
  customer: { ...CUSTOMER },
  services: { ...CONFORMANCE_SERVICE_ROLES },
  expected_prices: expectedPrices,
});

// ---------------------------------------------------------------- the richer description

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

export interface ConformanceHostData {
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
  /** Every provider, catalog order: the two stylists, then the kit's drop-in team. */
  readonly providers: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly services: { readonly [R in ConformanceServiceRole]: ConformanceServiceFixture };
  readonly customer: Customer;
  readonly verification_method: "sms";
}

export interface ConformanceHost extends ConformanceHostData {
  bookableDate(now: number): string;
  /**
   * A BookingMandate valid at `now` (default: the current time) for this host: expires one hour
   * later, booking.create allowed, pinned to the organization and schedule, any service and
   * provider, the week from bookableDate(now) 09:00 to six days later 18:00, max_price
   * USD 100.00 (covers fixed_usd), no policy fee. `overrides` replace members as given.
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
  const currency = org.currency ?? "USD";
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

/** The JSON part on its own. */
export const conformanceHostData: ConformanceHostData = deepFreeze({
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
  services: Object.fromEntries(
    Object.entries(CONFORMANCE_SERVICE_ROLES).map(([role, id]) => [role, serviceFixture(id)]),
  ) as { [R in ConformanceServiceRole]: ConformanceServiceFixture },
  customer: { ...CUSTOMER },
  verification_method: "sms",
});

export const conformanceHost: ConformanceHost = Object.freeze({
  ...conformanceHostData,
  bookableDate,
  mandateFor(overrides: Partial<BookingMandate> = {}, now = Date.now()): BookingMandate {
    const first = bookableLocalDate(now);
    const currency = conformanceHostData.organization.currency;
    return {
      id: `mnd_conformance_${now.toString(36)}`,
      expires_at: new Date(now + HOUR).toISOString(),
      allowed_actions: ["booking.create"],
      organization_id: org.id,
      schedule_ids: [conformanceHostData.schedule_id],
      earliest_start: `${dateText(first)}T09:00:00`,
      latest_end: `${dateText(addDays(first, 6))}T18:00:00`,
      max_price: { amount_minor: 10_000, currency },
      allow_policy_fee: false,
      max_extra_fee: { amount_minor: 0, currency },
      ...overrides,
    };
  },
});
