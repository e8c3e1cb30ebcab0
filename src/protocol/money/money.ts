/**
 * SchCP Money: { "amount": "79.00", "currency": "CAD" } (SchCP §2.1), held inside as integer
 * minor units. Amounts in different currencies are never added or compared (SchCP §2.1): the
 * operations below return currency_mismatch instead of guessing.
 */
import { childPointer, err, fieldError, ok, type Result } from "../result.js";
import { formatDecimalAmount, parseDecimalAmount } from "./amount.js";
import type { MoneyError } from "./errors.js";
import { isKnownCurrency } from "./iso4217.js";

export interface Money {
  readonly minor: number;
  readonly currency: string;
}

/** SchCP Money on the wire: a decimal string and an ISO 4217 code, never a float (SchCP §2.1). */
export interface SchcpMoney {
  amount: string;
  currency: string;
}

const MEMBERS = new Set(["amount", "currency"]);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Reads a closed SchCP Money object: exactly amount and currency, both strings. */
export function parseSchcpMoney(value: unknown, field: string): Result<Money, MoneyError> {
  if (!isPlainObject(value)) {
    return err(fieldError("invalid_type", field, "money is an object { amount, currency }"));
  }
  for (const key of Object.keys(value)) {
    if (!MEMBERS.has(key)) {
      return err(fieldError("unknown_member", childPointer(field, key), `money has no member "${key}"`));
    }
  }
  const { amount, currency } = value;
  if (currency === undefined) {
    return err(fieldError("missing_member", childPointer(field, "currency"), "currency is required"));
  }
  if (typeof currency !== "string" || !isKnownCurrency(currency)) {
    return err(
      fieldError("unknown_currency", childPointer(field, "currency"), "currency must be an ISO 4217 code"),
    );
  }
  if (amount === undefined) {
    return err(fieldError("missing_member", childPointer(field, "amount"), "amount is required"));
  }
  const minor = parseDecimalAmount(amount, currency, childPointer(field, "amount"));
  return minor.ok ? ok({ minor: minor.value, currency }) : minor;
}

/** Canonical wire form (exactly the minor unit's decimals). Throws TypeError as formatDecimalAmount. */
export function toSchcpMoney(m: Money): SchcpMoney {
  return { amount: formatDecimalAmount(m.minor, m.currency), currency: m.currency };
}

export function sameCurrency(a: Money, b: Money): boolean {
  return a.currency === b.currency;
}

/** The same amount in the same currency. */
export function sameMoney(a: Money, b: Money): boolean {
  return a.currency === b.currency && a.minor === b.minor;
}

function mismatch(a: Money, b: Money, field: string): Result<never, MoneyError> {
  return err(
    fieldError("currency_mismatch", field, `amounts in ${a.currency} and ${b.currency} are never combined`),
  );
}

/** a + b in the same currency; the sum must stay a safe integer. */
export function addMoney(a: Money, b: Money, field = ""): Result<Money, MoneyError> {
  if (!sameCurrency(a, b)) return mismatch(a, b, field);
  const minor = a.minor + b.minor;
  if (!Number.isSafeInteger(minor)) {
    return err(fieldError("amount_out_of_range", field, "the sum is too large to handle exactly"));
  }
  return ok({ minor, currency: a.currency });
}

/** Orders two amounts of the same currency: -1 when a < b, 0 when equal, 1 when a > b. */
export function compareMoney(a: Money, b: Money, field = ""): Result<-1 | 0 | 1, MoneyError> {
  if (!sameCurrency(a, b)) return mismatch(a, b, field);
  return ok(a.minor < b.minor ? -1 : a.minor > b.minor ? 1 : 0);
}
