/**
 * Tolerant reading of Square's answers: unknown members are ignored, but what the gateway relies
 * on is checked, and a missing or malformed value is an UnreadableAnswer (the call answers
 * "unavailable"), never a guess. The SDK hands int64 fields over as bigint or number depending
 * on the path they took; both are accepted and must be safe integers.
 */
import { currencyExponent, type Money } from "../../protocol/money/index.js";
import { UnreadableAnswer } from "./errors.js";

export function int(value: unknown, what: string): number {
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n))
    throw new UnreadableAnswer(`${what} is not a whole number`);
  return n;
}

export function optionalInt(value: unknown, what: string): number | undefined {
  return value === undefined || value === null ? undefined : int(value, what);
}

export function text(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") throw new UnreadableAnswer(`${what} is missing`);
  return value;
}

/** An RFC 3339 timestamp as epoch ms. */
export function instant(value: unknown, what: string): number {
  const s = text(value, what);
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i.test(s)
    ? Date.parse(s)
    : NaN;
  if (Number.isNaN(ms)) throw new UnreadableAnswer(`${what} is not an RFC 3339 time`);
  return ms;
}

/** Epoch ms as Square writes times: RFC 3339 in UTC. */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/**
 * Square Money `{ amount, currency }` is already in the currency's smallest unit (Square
 * "Working with Monetary Amounts"): 100 USD cents, 100 JPY (no minor unit), 1000 KWD fils are
 * all amount as is. Checked against the gateway's ISO 4217 snapshot so an unknown or
 * amount-less currency never becomes a price.
 */
export function moneyOf(value: unknown, what: string): Money | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object") throw new UnreadableAnswer(`${what} is not money`);
  const { amount, currency } = value as { amount?: unknown; currency?: unknown };
  if (amount === undefined || amount === null) return undefined;
  const minor = int(amount, `${what}.amount`);
  if (minor < 0) throw new UnreadableAnswer(`${what}.amount is negative`);
  if (typeof currency !== "string" || currencyExponent(currency) === undefined)
    throw new UnreadableAnswer(`${what}.currency is not an ISO 4217 currency with a minor unit`);
  return { minor, currency };
}
