/**
 * Percentages applied to minor units (SchCP §2.1): "a JSON number used as the exact decimal it
 * is written as (12.5 is 125/1000, never a binary float), applied to an amount in minor units
 * and rounded half up to a whole minor unit: 13 % of 79.00 CAD is 1027 minor units".
 *
 * A number is read through its shortest round-trip string (12.5 -> "12.5", 1e-7 -> "1e-7"),
 * a string as JSON number text (so an edge holding the raw text can pass it unchanged), and
 * the product is computed with BigInt. Percentages and amounts are never negative in SchCP:
 * a negative, non-finite or malformed percentage is a programmer error (the edge validates
 * with parsePercent first) and throws TypeError, as does a minor amount that is not a
 * non-negative safe integer. A result past the safe-integer range throws RangeError.
 */
import { err, fieldError, ok, type Result } from "../result.js";
import { decimalFromJsonText, decimalFromNumber, decimalToText, type Decimal } from "./decimal.js";
import type { MoneyError } from "./errors.js";

function toDecimal(percent: number | string): Decimal | undefined {
  return typeof percent === "number" ? decimalFromNumber(percent) : decimalFromJsonText(percent);
}

export function applyPercent(minor: number, percent: number | string): number {
  if (!Number.isSafeInteger(minor) || minor < 0) {
    throw new TypeError(`minor units must be a non-negative safe integer, got ${minor}`);
  }
  const p = toDecimal(percent);
  if (p === undefined) throw new TypeError(`not a non-negative decimal percentage: ${String(percent)}`);
  // minor * p / 100, with p = coefficient / 10^scale; half up: floor((2n + d) / 2d).
  const numerator = BigInt(minor) * p.coefficient;
  const denominator = 100n * 10n ** BigInt(p.scale);
  const rounded = (2n * numerator + denominator) / (2n * denominator);
  if (rounded > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError("the percentage of this amount is too large to handle exactly");
  }
  return Number(rounded);
}

/**
 * Checks a JSON value is a usable percentage (a finite non-negative number) and returns it as
 * canonical decimal text ("12.5", "0.0000001"), which applyPercent accepts unchanged.
 */
export function parsePercent(value: unknown, field: string): Result<string, MoneyError> {
  if (typeof value !== "number") {
    return err(fieldError("invalid_type", field, "a percentage is a JSON number"));
  }
  const d = decimalFromNumber(value);
  if (d === undefined) {
    return err(fieldError("invalid_amount", field, "a percentage is a finite, non-negative number"));
  }
  return ok(decimalToText(d));
}
