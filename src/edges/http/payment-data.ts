/**
 * SchCP §8: "an endpoint MUST reject a request that carries payment data (a payment member,
 * for instance) with 400 INVALID_REQUEST, and MUST NOT accept, store or act on payment data
 * received any other way."
 *
 * Run before the closed-schema check, so a payment member is refused as payment
 * (payment_not_accepted) rather than as one more unknown member. Two signals, at any depth:
 * - a member whose name looks like payment data. No SchCP request member does, so this
 *   cannot refuse a valid request;
 * - a card number in free text (notes, reason, message: where an agent can write anything):
 *   13–19 digits, spaces or dashes between groups allowed, that pass the Luhn check. Only
 *   free text is scanned, because ids and idempotency keys may carry long digit runs (a
 *   timestamp) that pass Luhn by chance; phone numbers do not reach 13 digits.
 *
 * The gateway takes no payment on any endpoint, so the check sits in the kit: json-body.ts
 * runs it for every edge that reads a JSON body there (the SchCP host endpoint, the operator API).
 */
import { childPointer } from "../../protocol/result.js";

/** Substrings that mark a member name as payment data. */
const PAYMENT_SUBSTRINGS = [
  "payment",
  "card",
  "cvv",
  "cvc",
  "iban",
  "deposit",
  "prepay",
  "refund",
  "billing",
  "wallet",
  "routingnumber",
  "accountnumber",
  "sortcode",
];
/** Whole words (snake_case or camelCase parts) that mark it. */
const PAYMENT_WORDS = new Set(["pay", "pan", "bic", "swift", "charge", "capture", "tip", "gratuity", "cvn"]);

function looksLikePaymentName(name: string): boolean {
  const squashed = name.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (PAYMENT_SUBSTRINGS.some((s) => squashed.includes(s))) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => PAYMENT_WORDS.has(w));
}

const CARD_CANDIDATE = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function containsCardNumber(text: string): boolean {
  for (const match of text.matchAll(CARD_CANDIDATE)) {
    const digits = match[0].replace(/[ -]/g, "");
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits)) return true;
  }
  return false;
}

/** Members whose value is free text for people. */
const FREE_TEXT = new Set(["notes", "reason", "message"]);

/** The JSON pointer of the first payment-looking member or value, if any. */
export function findPaymentData(value: unknown, at = "", freeText = false): string | undefined {
  if (typeof value === "string") return freeText && containsCardNumber(value) ? at : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findPaymentData(value[i], childPointer(at, i), freeText);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [name, member] of Object.entries(value)) {
      const field = childPointer(at, name);
      if (looksLikePaymentName(name)) return field;
      const found = findPaymentData(member, field, FREE_TEXT.has(name));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
