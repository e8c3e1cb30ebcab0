/**
 * OSBP Money (OSBP "Money"): { amount_minor?, currency, type?, display? }, amount_minor an
 * integer in the currency's ISO 4217 minor unit.
 *
 * Decisions, from the spec's words:
 *   - currency is required and must be a List One code with a minor unit ("a merchant currency
 *     whose exponent is unknown is not safe to onboard").
 *   - amount_minor is a non-negative safe integer (a JSON 9500.0 is 9500 once parsed).
 *   - "type defaults to fixed when an amount is present": the validated value always carries
 *     type. Without an amount and without a type it is "unknown", so a reader fails closed.
 *   - fixed requires amount_minor (missing_amount). The non-fixed types "mark a price with no
 *     fixed amount_minor known at read time", so one carrying amount_minor is contradictory and
 *     refused (unexpected_amount) instead of risking that figure in a mandate check.
 *   - display is an optional string, kept as given and never parsed.
 *   - Members outside these four are refused (unknown_member): OSBP payloads are validated
 *     exactly as specified.
 */
import { childPointer, err, fieldError, ok, type Result } from "../result.js";
import { formatDecimalAmount } from "./amount.js";
import { decimalFromNumber, PLAIN_DECIMAL, toSafeNumber, toUnits, type Decimal } from "./decimal.js";
import type { MoneyError } from "./errors.js";
import { currencyExponent, isKnownCurrency } from "./iso4217.js";
import { isPlainObject } from "./money.js";

export const OSBP_MONEY_TYPES = ["fixed", "insurance_dependent", "quote_required", "unknown"] as const;
type OsbpMoneyType = (typeof OSBP_MONEY_TYPES)[number];

export interface OsbpMoney {
  readonly amount_minor?: number;
  readonly currency: string;
  readonly type?: OsbpMoneyType;
  readonly display?: string;
}

const MEMBERS = new Set(["amount_minor", "currency", "type", "display"]);
const isMoneyType = (v: unknown): v is OsbpMoneyType => (OSBP_MONEY_TYPES as readonly unknown[]).includes(v);

export function validateOsbpMoney(value: unknown, field: string): Result<OsbpMoney, MoneyError> {
  if (!isPlainObject(value)) {
    return err(
      fieldError("invalid_type", field, "Money is an object { amount_minor?, currency, type?, display? }"),
    );
  }
  for (const key of Object.keys(value)) {
    if (!MEMBERS.has(key)) {
      return err(fieldError("unknown_member", childPointer(field, key), `Money has no member "${key}"`));
    }
  }
  const { amount_minor: amount, currency, type, display } = value;
  const at = (key: string) => childPointer(field, key);
  if (currency === undefined)
    return err(fieldError("missing_member", at("currency"), "currency is required"));
  if (typeof currency !== "string" || !isKnownCurrency(currency)) {
    return err(fieldError("unknown_currency", at("currency"), "currency must be an ISO 4217 code"));
  }
  if (amount !== undefined && (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount < 0)) {
    return err(
      fieldError("invalid_amount", at("amount_minor"), "amount_minor is a non-negative safe integer"),
    );
  }
  if (type !== undefined && !isMoneyType(type)) {
    return err(fieldError("invalid_money_type", at("type"), `type is one of ${OSBP_MONEY_TYPES.join(", ")}`));
  }
  if (display !== undefined && typeof display !== "string") {
    return err(fieldError("invalid_type", at("display"), "display is a string"));
  }
  const resolved: OsbpMoneyType = type ?? (amount === undefined ? "unknown" : "fixed");
  if (resolved === "fixed" && amount === undefined) {
    return err(fieldError("missing_amount", at("amount_minor"), "a fixed price needs amount_minor"));
  }
  if (resolved !== "fixed" && amount !== undefined) {
    return err(
      fieldError("unexpected_amount", at("amount_minor"), `a ${resolved} price has no amount_minor`),
    );
  }
  return ok({
    ...(amount === undefined ? {} : { amount_minor: amount + 0 }), // + 0 turns -0 into 0
    currency,
    type: resolved,
    ...(display === undefined ? {} : { display }),
  });
}

/**
 * Scales a platform's major-unit amount to minor units by the currency's exponent (OSBP
 * "Money": 80 USD -> 8000, never a fixed factor of 100). A number is read as the decimal it
 * is written as (19.99 -> 1999), a string as plain decimal text ("19.99"). More decimals than
 * the minor unit is an error (1.5 JPY) unless they are zeros ("80.000" USD is exactly 8000):
 * a platform payload is read tolerantly, but never rounded.
 */
export function fromMajorUnits(
  major: number | string,
  currency: string,
  field: string,
): Result<number, MoneyError> {
  const exponent = currencyExponent(currency);
  if (exponent === undefined) {
    return err(
      fieldError("unknown_currency", field, `${JSON.stringify(currency)} is not an ISO 4217 currency`),
    );
  }
  let d: Decimal | undefined;
  if (typeof major === "number") {
    d = decimalFromNumber(major);
  } else if (major.length <= 40) {
    const m = PLAIN_DECIMAL.exec(major);
    if (m !== null) d = { coefficient: BigInt((m[1] ?? "") + (m[2] ?? "")), scale: (m[2] ?? "").length };
  }
  if (d === undefined) {
    return err(fieldError("invalid_amount", field, `${String(major)} is not a non-negative decimal amount`));
  }
  const units = toUnits(d, exponent);
  if (units === undefined) {
    return err(
      fieldError(
        "too_many_decimals",
        field,
        `${currency} has ${exponent} decimals; ${String(major)} has more`,
      ),
    );
  }
  const minor = toSafeNumber(units);
  if (minor === undefined) {
    return err(fieldError("amount_out_of_range", field, "the amount is too large to handle exactly"));
  }
  return ok(minor);
}

/** Major-unit text with exactly the exponent's decimals (1999 USD -> "19.99"); throws as formatDecimalAmount. */
export function toMajorUnitsString(minor: number, currency: string): string {
  return formatDecimalAmount(minor, currency);
}
