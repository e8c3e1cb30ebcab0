/**
 * Bayview Reference Studio: the OSBP conformance host's synthetic platform. One service per
 * case a conforming OSBP server must handle (OSBP "Money", "policy.explain", "Mandate
 * Enforcement"): fixed prices in currencies of every minor-unit exponent (USD, EUR, GBP at
 * 2, JPY at 0, KWD at 3), prices with no fixed amount (insurance_dependent, quote_required),
 * a consultation workflow, a deposit, full prepayment, an unknown payment requirement, and a
 * service whose platform verifies the customer by SMS.
 *
 * Two stylists and a drop-in team work every day 09:00–18:00 Los Angeles time, so a test on
 * any date finds tomorrow bookable. Every service states its payment requirement explicitly: a
 * platform that says nothing is the unknown case, and only one service is meant to be that.
 * src/gateway/osbp-conformance/fixtures.ts describes this platform in OSBP terms.
 *
 * Two conventions of the public OSBP conformance kit's synthetic target, for this scenario only:
 * - the platform is in test mode: every verification code it sends is 123456;
 * - the kit books its one fixture slot once per check that needs a booking (eight times a run),
 *   so the fixture provider is the drop-in team, a pool that takes many appointments at once;
 *   the two stylists take one each, so slot_taken stays reachable.
 */
import type { CatalogResource, CatalogService, WeeklyPeriod } from "../port.js";
import type { SyntheticScenario } from "./scenario.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const usd = (minor: number) => ({ minor, currency: "USD" });

const EVERY_DAY: readonly WeeklyPeriod[] = ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({
  day,
  open: "09:00",
  close: "18:00",
}));

const stylist = (id: string, name: string, capacity = 1): CatalogResource => ({
  id,
  type: "stylist",
  name,
  capacity,
  hours: EVERY_DAY,
  staff: true,
});

/** A stylist's service with no upfront payment unless the overrides say otherwise. */
const service = (
  id: string,
  name: string,
  minutes: number,
  rest: Omit<CatalogService, "id" | "name" | "duration" | "bufferAfterMs" | "requires">,
): CatalogService => ({
  id,
  name,
  duration: minutes * MIN,
  bufferAfterMs: 0,
  requires: [{ resourceType: "stylist" }],
  payment: { requirement: "none" },
  ...rest,
});

export const bayviewReferenceStudio: SyntheticScenario = {
  organization: {
    id: "bayview-reference-studio",
    name: "Bayview Reference Studio",
    timezone: "America/Los_Angeles",
    currency: "USD",
    country: "US",
  },
  services: [
    // The spec's own example service (OSBP "service.describe", "policy.explain").
    service("haircut", "Haircut", 60, {
      price: usd(9500),
      priceType: "fixed",
      cancellationFee: usd(2500),
      noShowFee: usd(5000),
      cancellation: {
        enabled: true,
        windowMs: 6 * HOUR,
        note: "Cancel at least 6 hours before the appointment.",
        lateGraceMs: 15 * MIN,
      },
    }),
    service("blow-dry-eur", "Blow-dry (priced in EUR)", 45, {
      price: { minor: 4500, currency: "EUR" },
      priceType: "fixed",
    }),
    service("beard-trim-gbp", "Beard trim (priced in GBP)", 30, {
      price: { minor: 2500, currency: "GBP" },
      priceType: "fixed",
    }),
    // JPY has no minor unit: 12000 is ¥12,000, not ¥120.
    service("head-spa-jpy", "Head spa (priced in JPY)", 60, {
      price: { minor: 12000, currency: "JPY" },
      priceType: "fixed",
    }),
    // KWD has three decimals: 12500 is 12.500 KWD, not 125.00.
    service("scalp-treatment-kwd", "Scalp treatment (priced in KWD)", 60, {
      price: { minor: 12500, currency: "KWD" },
      priceType: "fixed",
    }),
    service("scalp-assessment", "Scalp health assessment", 30, { priceType: "insurance_dependent" }),
    service("bridal-styling", "Bridal styling", 90, { priceType: "quote_required" }),
    service("colour-consultation", "Colour consultation", 30, {
      price: usd(2000),
      priceType: "fixed",
      requiresConsultation: true,
    }),
    service("colour-treatment", "Full colour treatment", 90, {
      price: usd(25000),
      priceType: "fixed",
      payment: { requirement: "deposit", deposit: usd(5000) },
    }),
    service("keratin-treatment", "Keratin smoothing treatment", 90, {
      price: usd(40000),
      priceType: "fixed",
      payment: { requirement: "full_prepay" },
    }),
    service("extensions-fitting", "Hair extensions fitting", 60, {
      price: usd(8000),
      priceType: "fixed",
      payment: { requirement: "unknown" },
    }),
    service("express-trim", "Express trim (verified booking)", 30, {
      price: usd(4000),
      priceType: "fixed",
      requiresVerification: true,
    }),
  ],
  resources: [
    stylist("stylist-jordan", "Jordan Lee"),
    stylist("stylist-riley", "Riley Chen"),
    // Last, so an unnamed provider is one of the stylists; 20 covers two kit runs on one platform.
    stylist("drop-in-team", "Bayview drop-in team", 20),
  ],
  // The platform reports no tax: the prices above are what the customer pays.
  taxes: [],
  verificationMethod: "sms",
  testVerificationCode: "123456",
  stepMs: 30 * MIN,
};
