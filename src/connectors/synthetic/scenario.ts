/**
 * A synthetic platform's scenario: plain data describing the business as a real booking
 * platform would know it (its organization, services, staff and rooms with weekly hours,
 * taxes, how it verifies customers), plus the granularity of its availability grid.
 *
 * A scenario is the Catalog the platform serves (SchCP §4.1 resources and hours, §4.2
 * open-ended services, §5.2 prices and taxes; OSBP payment, price kinds, consultation and
 * cancellation terms) with platform settings of its own: `stepMs`, the spacing of the starts
 * it offers, counted from local midnight, and its verification send limit.
 */
import type { Catalog, CatalogService } from "../port.js";
import { isValidTimeZone } from "../../protocol/time/index.js";
import { isKnownCurrency, type Money } from "../../protocol/money/index.js";
import { childPointer, err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { isSendLimit, type VerificationSendLimit } from "./send-limit.js";

export interface SyntheticScenario extends Catalog {
  /** Spacing of offered starts in ms: a whole number of minutes that divides a day. */
  readonly stepMs: number;
  /** Verification sends per contact; default 3 per 10 minutes (send-limit.ts). */
  readonly verificationSendLimit?: VerificationSendLimit;
  /**
   * A sandbox's fixed test code: every send delivers this six-digit code instead of a fresh
   * one, as platform test modes do. Only a conformance scenario sets it (the public OSBP
   * conformance kit books its verification case with "123456").
   */
  readonly testVerificationCode?: string;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const PERCENT = /^(?:0|[1-9]\d{0,2})(?:\.\d{1,4})?$/;

const OPEN = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const CLOSE = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;

/** The platform's own check of weekly hours: ISO weekday, "HH:MM" open, "HH:MM" or "24:00" close. */
function checkHours(value: unknown, field: string): FieldError | undefined {
  if (!Array.isArray(value)) return fieldError("invalid_scenario", field, "hours are a list of periods");
  for (const [i, p] of (value as unknown[]).entries()) {
    const at = childPointer(field, i);
    const { day, open, close } = (typeof p === "object" && p !== null ? p : {}) as Record<string, unknown>;
    if (typeof day !== "number" || !Number.isInteger(day) || day < 1 || day > 7)
      return fieldError("invalid_scenario", childPointer(at, "day"), "day is an ISO weekday, 1 to 7");
    if (typeof open !== "string" || !OPEN.test(open))
      return fieldError("invalid_scenario", childPointer(at, "open"), 'open is "HH:MM", 00:00 to 23:59');
    if (typeof close !== "string" || !CLOSE.test(close))
      return fieldError("invalid_scenario", childPointer(at, "close"), 'close is "HH:MM", 00:00 to 24:00');
  }
  return undefined;
}

const isMs = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * Checks what the synthetic platform relies on, naming the first bad field. Scenarios in
 * code are checked by createSyntheticConnector (a bad one is a programmer error there);
 * callers taking scenarios from configuration call this first.
 */
export function validateScenario(s: SyntheticScenario): Result<SyntheticScenario, FieldError> {
  const bad = (field: string, message: string): Result<SyntheticScenario, FieldError> =>
    err(fieldError("invalid_scenario", field, message));
  if (typeof s.organization?.id !== "string" || s.organization.id === "")
    return bad("/organization/id", "organization id is required");
  if (!isValidTimeZone(s.organization.timezone))
    return bad("/organization/timezone", "timezone must be an IANA time zone");
  if (!isMs(s.stepMs) || s.stepMs === 0 || s.stepMs % MINUTE !== 0 || DAY % s.stepMs !== 0)
    return bad("/stepMs", "stepMs is a whole number of minutes that divides a day");
  if (s.testVerificationCode !== undefined && !/^\d{6}$/.test(s.testVerificationCode))
    return bad("/testVerificationCode", "the test verification code is six digits");
  if (s.verificationSendLimit !== undefined && !isSendLimit(s.verificationSendLimit))
    return bad(
      "/verificationSendLimit",
      "the send limit is { maxSends ≥ 1, windowMs ≥ 1000 }, whole numbers",
    );

  const types = new Map<string, number>();
  const ids = new Set<string>();
  for (const [i, r] of s.resources.entries()) {
    const at = childPointer("/resources", i);
    if (typeof r.id !== "string" || r.id === "" || ids.has(r.id))
      return bad(childPointer(at, "id"), "resource ids are unique, non-empty strings");
    ids.add(r.id);
    if (!Number.isSafeInteger(r.capacity) || r.capacity < 1)
      return bad(childPointer(at, "capacity"), "capacity is an integer ≥ 1 (§4.1)");
    const hours = checkHours(r.hours, childPointer(at, "hours"));
    if (hours !== undefined) return err(hours);
    types.set(r.type, (types.get(r.type) ?? 0) + 1);
  }

  for (const [i, t] of s.taxes.entries()) {
    if (!PERCENT.test(t.percent))
      return bad(childPointer(childPointer("/taxes", i), "percent"), "percent is an exact decimal string");
  }

  const serviceIds = new Set<string>();
  for (const [i, svc] of s.services.entries()) {
    const at = childPointer("/services", i);
    if (typeof svc.id !== "string" || svc.id === "" || serviceIds.has(svc.id))
      return bad(childPointer(at, "id"), "service ids are unique, non-empty strings");
    serviceIds.add(svc.id);
    if (svc.duration !== "open" && (!isMs(svc.duration) || svc.duration === 0))
      return bad(childPointer(at, "duration"), 'duration is ms > 0 or "open" (§4.2)');
    if (!isMs(svc.bufferAfterMs)) return bad(childPointer(at, "bufferAfterMs"), "bufferAfterMs is ms ≥ 0");
    if (svc.setAside !== undefined) {
      // §4.2: "set_aside on a service with a fixed duration is a configuration error".
      if (svc.duration !== "open")
        return bad(childPointer(at, "setAside"), "setAside is only for open-ended services (§4.2)");
      if (svc.setAside !== "until_close" && (!isMs(svc.setAside) || svc.setAside === 0))
        return bad(childPointer(at, "setAside"), 'setAside is ms > 0 or "until_close"');
    }
    if (
      svc.price !== undefined &&
      (!isKnownCurrency(svc.price.currency) || !Number.isSafeInteger(svc.price.minor))
    )
      return bad(childPointer(at, "price"), "price is integer minor units in an ISO 4217 currency");
    const terms = checkOsbpTerms(svc, at);
    if (terms !== undefined) return err(terms);
    if (svc.requires.length === 0)
      return bad(childPointer(at, "requires"), "a service requires at least one resource type (§4.1)");
    const needed = new Map<string, number>();
    for (const [j, req] of svc.requires.entries()) {
      needed.set(req.resourceType, (needed.get(req.resourceType) ?? 0) + 1);
      if ((types.get(req.resourceType) ?? 0) < (needed.get(req.resourceType) ?? 0))
        return bad(
          childPointer(childPointer(childPointer(at, "requires"), j), "resourceType"),
          `not enough resources of type "${req.resourceType}"`,
        );
    }
    if (
      svc.requiresVerification === true &&
      s.verificationMethod !== "sms" &&
      s.verificationMethod !== "email"
    )
      return bad("/verificationMethod", "a service requires verification, so the method is sms or email");
  }
  return ok(s);
}

const PRICE_TYPES = new Set(["fixed", "insurance_dependent", "quote_required", "unknown"]);
const REQUIREMENTS = new Set(["none", "deposit", "full_prepay", "unknown"]);
/** Fees and deposits: exact, non-negative minor units in a currency whose exponent is known (OSBP "Money"). */
const isFee = (m: Money | undefined): boolean =>
  m !== undefined && isKnownCurrency(m.currency) && Number.isSafeInteger(m.minor) && m.minor >= 0;

/**
 * The terms OSBP policy.explain and service.describe report (port.ts), checked so the
 * platform never serves a contradiction an adapter would have to guess about.
 */
function checkOsbpTerms(svc: CatalogService, at: string): FieldError | undefined {
  const bad = (path: string, message: string) =>
    fieldError("invalid_scenario", path.split("/").reduce<string>(childPointer, at), message);
  if (svc.priceType !== undefined) {
    if (!PRICE_TYPES.has(svc.priceType))
      return bad("priceType", "priceType is fixed, insurance_dependent, quote_required or unknown");
    // OSBP "Money": the non-fixed types "mark a price with no fixed amount_minor known at read time".
    if (svc.priceType !== "fixed" && svc.price !== undefined)
      return bad("price", `a ${svc.priceType} service has no price amount`);
    if (svc.priceType === "fixed" && svc.price === undefined)
      return bad("price", "a fixed-price service states its price");
  }
  if (svc.payment !== undefined) {
    const { requirement, deposit } = svc.payment;
    if (!REQUIREMENTS.has(requirement))
      return bad("payment/requirement", "payment.requirement is none, deposit, full_prepay or unknown");
    if (deposit !== undefined) {
      if (!isFee(deposit))
        return bad("payment/deposit", "payment.deposit is non-negative minor units in an ISO 4217 currency");
      if (requirement !== "deposit" && requirement !== "full_prepay")
        return bad("payment/deposit", `a deposit amount contradicts payment requirement "${requirement}"`);
    }
  }
  if (svc.requiresConsultation !== undefined && typeof svc.requiresConsultation !== "boolean")
    return bad("requiresConsultation", "requiresConsultation is a boolean");
  if (svc.cancellationFee !== undefined && !isFee(svc.cancellationFee))
    return bad("cancellationFee", "the fee is non-negative minor units in an ISO 4217 currency");
  if (svc.noShowFee !== undefined && !isFee(svc.noShowFee))
    return bad("noShowFee", "the fee is non-negative minor units in an ISO 4217 currency");
  const c = svc.cancellation;
  if (c !== undefined) {
    if (typeof c.enabled !== "boolean")
      return bad("cancellation/enabled", "cancellation.enabled is a boolean");
    if (c.windowMs !== undefined && !isMs(c.windowMs))
      return bad("cancellation/windowMs", "cancellation.windowMs is ms ≥ 0");
    if (c.lateGraceMs !== undefined && !isMs(c.lateGraceMs))
      return bad("cancellation/lateGraceMs", "cancellation.lateGraceMs is ms ≥ 0");
    if (c.note !== undefined && (typeof c.note !== "string" || c.note.trim() === "" || c.note.length > 500))
      return bad("cancellation/note", "cancellation.note is non-empty text of at most 500 characters");
  }
  return undefined;
}

/** The scenario's catalog as the platform serves it (without the platform's own settings). */
export function catalogOf(s: SyntheticScenario): Catalog {
  const { organization, services, resources, taxes, verificationMethod } = s;
  return verificationMethod === undefined
    ? { organization, services, resources, taxes }
    : { organization, services, resources, taxes, verificationMethod };
}
