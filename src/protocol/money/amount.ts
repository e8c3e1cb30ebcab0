/**
 * SchCP §2.1 decimal amount strings <-> integer minor units.
 *
 * Reading is strict: /^(0|[1-9][0-9]*)(\.[0-9]+)?$/, so no sign (SchCP amounts are prices and
 * never negative; "-5.00" is refused), no exponent, no leading zeros, no spaces. An amount may
 * have fewer decimals than the currency's minor unit ("79" CAD is 7900) but never more, not
 * even zeros ("79.001" CAD and "125.0" JPY are invalid). All arithmetic is on strings and
 * BigInt; a float never touches an amount.
 */
import { err, fieldError, ok, type Result } from "../result.js";
import { PLAIN_DECIMAL, toSafeNumber, unitsToText } from "./decimal.js";
import type { MoneyError } from "./errors.js";
import { currencyExponent } from "./iso4217.js";

// Past 16 integer digits no currency's minor units fit a safe integer; refusing those before
// BigInt keeps a hostile megabyte of digits cheap.
const MAX_INTEGER_DIGITS = 16;

export function parseDecimalAmount(
  amount: unknown,
  currency: string,
  field: string,
): Result<number, MoneyError> {
  const exponent = currencyExponent(currency);
  if (exponent === undefined) {
    return err(
      fieldError("unknown_currency", field, `${JSON.stringify(currency)} is not an ISO 4217 currency`),
    );
  }
  if (typeof amount !== "string") {
    return err(fieldError("invalid_type", field, "an amount is a decimal string, never a JSON number"));
  }
  if (amount.startsWith("-")) {
    return err(fieldError("invalid_amount", field, "an amount is never negative"));
  }
  const m = PLAIN_DECIMAL.exec(amount);
  if (m === null) {
    return err(fieldError("invalid_amount", field, `${JSON.stringify(amount)} is not a decimal amount`));
  }
  const [, int = "", frac = ""] = m;
  if (frac.length > exponent) {
    return err(
      fieldError(
        "too_many_decimals",
        field,
        `${currency} has ${exponent} decimal${exponent === 1 ? "" : "s"}; "${amount}" has ${frac.length}`,
      ),
    );
  }
  const minor =
    int.length > MAX_INTEGER_DIGITS ? undefined : toSafeNumber(BigInt(int + frac.padEnd(exponent, "0")));
  if (minor === undefined) {
    return err(fieldError("amount_out_of_range", field, "the amount is too large to handle exactly"));
  }
  return ok(minor);
}

/**
 * Canonical SchCP amount: exactly the minor unit's decimals (7900 CAD -> "79.00", 125 JPY ->
 * "125", 1234 KWD -> "1.234"). Throws TypeError for an unknown currency, or a minor-unit
 * count that is not a non-negative safe integer: those are programmer errors, since the
 * gateway only formats amounts it parsed or computed.
 */
export function formatDecimalAmount(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  if (exponent === undefined) throw new TypeError(`unknown currency ${JSON.stringify(currency)}`);
  if (!Number.isSafeInteger(minor) || minor < 0) {
    throw new TypeError(`minor units must be a non-negative safe integer, got ${minor}`);
  }
  return unitsToText(BigInt(minor), exponent);
}
