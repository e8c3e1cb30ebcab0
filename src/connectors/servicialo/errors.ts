/**
 * Servicialo's refusals in the port's vocabulary ("3. book_session" and "5. reschedule_session",
 * Error Responses; "Error Recovery"; "HTTP Status Codes"). 429, timeouts and a 5xx after its
 * one retry are mapped by connectors/http.ts.
 */
import type { ConnectorError } from "../ports/result.js";

/**
 * book_session errors ("3. book_session", Error Responses). `paymentUrl` is the business's own
 * page from the host's settings: the 402 body names none.
 */
export function bookError(
  status: number,
  e: { error?: string; code?: string },
  paymentUrl?: string,
): ConnectorError {
  switch (e.code ?? "") {
    case "SLOT_CONFLICT":
    case "OUTSIDE_PROVIDER_HOURS":
      return { code: "slot_taken", message: `Servicialo: ${e.code}` };
    case "PAST_DATE":
    case "VALIDATION_ERROR":
      return { code: "invalid_request", message: `Servicialo: ${e.code}` };
  }
  if (status === 402 || /^PAYMENT_/.test(e.code ?? "")) return paymentRequired(e.code, paymentUrl);
  if (status === 409) return { code: "slot_taken", message: "Servicialo: conflict" };
  if (status === 404)
    return {
      code: "not_found",
      message: `Servicialo: ${e.error === "Provider not found" ? "provider" : "service"} not found`,
    };
  return { code: "invalid_request", message: `Servicialo refused the booking (HTTP ${status})` };
}

/**
 * 402: PAYMENT_REQUIRED ("Service requires pre-payment"), and PAYMENT_NOT_APPROVED /
 * _INSUFFICIENT / _ALREADY_USED, which concern a `paymentIntentId` this gateway never sends
 * (it collects no payment), read the same way. "Error Recovery": "Inform user that prepayment
 * is needed, do NOT collect payment"; "HTTP Status Codes": 402 is not retryable. The spec's body
 * is `{ error, code, ... }` with no link or amount documented, so neither is read from it; the
 * message names the platform's code only (its `error` text is not echoed).
 */
function paymentRequired(code: string | undefined, paymentUrl: string | undefined): ConnectorError {
  const named = code !== undefined && /^PAYMENT_[A-Z_]+$/.test(code) ? code : "HTTP 402";
  return {
    code: "payment_required",
    message: `Servicialo ${named}: the service must be paid for up front, with the business`,
    ...(paymentUrl !== undefined ? { payment: { url: paymentUrl } } : {}),
  };
}

/** reschedule_session errors: every refusal is 400 SLOT_INVALID, told apart by its text. */
export function rescheduleError(
  status: number,
  e: { error?: string; code?: string; currentStatus?: string },
): ConnectorError {
  if (status === 404) return { code: "not_found", message: "Servicialo: session not found" };
  if (status === 409) return { code: "slot_taken", message: "Servicialo: conflict" };
  if (
    status === 400 &&
    e.code === "SLOT_INVALID" &&
    e.currentStatus === undefined &&
    !/past/i.test(e.error ?? "")
  ) {
    return { code: "slot_taken", message: "Servicialo: the new time is not free" };
  }
  return {
    code: "invalid_request",
    message: `Servicialo refused the reschedule (HTTP ${status}${e.currentStatus ? `, session is ${e.currentStatus}` : ""})`,
  };
}
