/**
 * Exact non-negative decimals as (coefficient, scale) BigInt pairs: value = coefficient / 10^scale.
 *
 * Hand-written because money here needs only three things no decimal library makes simpler:
 * reading a JSON number as "the exact decimal it is written as" (SchCP §2.1), checking that a
 * decimal fits a currency's minor unit exactly, and one rounding mode. A JSON number arrives as
 * a binary double, so it is read through its shortest round-trip string (ECMA-262
 * Number::toString), the decimal a person wrote: 12.5 -> "12.5", 19.99 -> "19.99", 1e-7 -> "1e-7".
 */

export interface Decimal {
  readonly coefficient: bigint;
  readonly scale: number;
}

/** Plain decimal text, as SchCP writes amounts: no sign, no exponent, no leading zeros. */
export const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
/** JSON number grammar (RFC 8259 §6) without the minus sign. */
const JSON_NUMBER = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

// Bounds the BigInt work a hostile value can ask for; doubles never need more than this.
const MAX_TEXT_LENGTH = 400;
const MAX_EXPONENT = 400;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** Reads plain or exponent-form JSON number text; undefined when it is not one (or negative). */
export function decimalFromJsonText(text: string): Decimal | undefined {
  if (text.length > MAX_TEXT_LENGTH) return undefined;
  const m = JSON_NUMBER.exec(text);
  if (m === null) return undefined;
  const [, int = "", frac = "", exp = "0"] = m;
  const exponent = Number(exp);
  if (Math.abs(exponent) > MAX_EXPONENT) return undefined;
  const coefficient = BigInt(int + frac);
  const scale = frac.length - exponent;
  return scale >= 0 ? { coefficient, scale } : { coefficient: coefficient * pow10(-scale), scale: 0 };
}

/** A finite, non-negative JSON number as the decimal it was written as; undefined otherwise. */
export function decimalFromNumber(n: number): Decimal | undefined {
  if (!Number.isFinite(n) || n < 0) return undefined;
  // String(-0) is "0", so -0 reads as zero.
  return decimalFromJsonText(String(n));
}

/**
 * The decimal as an integer count of 10^-exponent units, or undefined when it has non-zero
 * digits beyond that exponent (1.5 at exponent 0). Trailing zeros beyond it are exact and fine.
 */
export function toUnits(d: Decimal, exponent: number): bigint | undefined {
  if (d.scale <= exponent) return d.coefficient * pow10(exponent - d.scale);
  const divisor = pow10(d.scale - exponent);
  return d.coefficient % divisor === 0n ? d.coefficient / divisor : undefined;
}

/** Canonical plain text of a decimal, without trailing fraction zeros ("12.5", "0.0000001"). */
export function decimalToText(d: Decimal): string {
  if (d.scale === 0) return d.coefficient.toString();
  const digits = d.coefficient.toString().padStart(d.scale + 1, "0");
  const int = digits.slice(0, digits.length - d.scale);
  const frac = digits.slice(digits.length - d.scale).replace(/0+$/, "");
  return frac === "" ? int : `${int}.${frac}`;
}

/** Formats an integer count of minor units with exactly `exponent` decimals ("7900", 2 -> "79.00"). */
export function unitsToText(units: bigint, exponent: number): string {
  if (exponent === 0) return units.toString();
  const digits = units.toString().padStart(exponent + 1, "0");
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** Converts a BigInt known to be small back to a number, or undefined past the safe range. */
export function toSafeNumber(n: bigint): number | undefined {
  return n >= 0n && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
}
