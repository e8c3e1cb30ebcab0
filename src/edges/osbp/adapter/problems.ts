/**
 * The adapter's one error vocabulary at the OSBP edge: the adapter-specific Problem codes it
 * adds to the protocol set (OSBP "Result Envelope": "Adapters may emit additional
 * adapter-specific codes"), and the single mapping from an upstream failure (the core's
 * UpstreamFailure, src/booking/errors.ts) to a Problem that every method uses.
 *
 * Messages are our own fixed prose. The failure's message is platform text that may echo
 * request details (a contact, an id), so it never reaches the agent.
 */
import type { PaymentHandoff, UpstreamFailure } from "../../../booking/errors.js";
import { toMajorUnitsString } from "../../../protocol/money/index.js";
import { problem, type Problem } from "../../../protocol/osbp/index.js";

export type AdapterProblemCode =
  /** The connector is calendar-kind: this adapter drives booking platforms only. */
  | "unsupported_connector"
  /** No service_id, no configured default, and the catalog offers more than one service. */
  | "service_required"
  | "service_not_found"
  | "schedule_not_found"
  | "provider_not_found"
  /** A service this v0.1.0 slot topology cannot represent (open-ended, several providers). */
  | "unsupported_service"
  /** Input the tool schema or a date/time parser refuses (same code the MCP edge uses). */
  | "invalid_input"
  /** The merchant-local time falls in a DST gap of the organization's zone. */
  | "nonexistent_local_time"
  /** The platform's organization zone is not an IANA zone: no instant can be computed. */
  | "unknown_timezone"
  | "invalid_verification_purpose"
  | "verification_unsupported"
  /** Another call holds the booking.create lease of this idempotency key. */
  | "idempotency_in_progress"
  | "upstream_unavailable"
  | "upstream_unauthorized"
  | "upstream_rejected"
  | "unsupported";

/**
 * A Problem with an adapter-specific code; not retryable unless said. Like every Problem it has
 * only code, message and retryable: the message names the input member at fault.
 */
export function adapterProblem(
  code: AdapterProblemCode,
  message: string,
  extra: { retryable?: boolean } = {},
): Problem {
  return problem(code, message, extra);
}

/** Where the failing upstream call was made: decides the codes that depend on it. */
export type UpstreamPurpose = "read" | "create" | "status" | "verification";

/** The one UpstreamFailure → Problem mapping (docs/ARCHITECTURE.md, One error vocabulary;
 * OSBP "Adapter Contract"). */
export function upstreamProblem(e: UpstreamFailure, purpose: UpstreamPurpose): Problem {
  switch (e.code) {
    case "slot_taken":
      return problem("slot_taken");
    case "rate_limited": {
      const after =
        e.retryAfterMs === undefined
          ? ""
          : ` Retry after ${Math.max(1, Math.ceil(e.retryAfterMs / 1000))} second(s).`;
      return problem(
        "rate_limited",
        `The booking platform is rate limiting requests; back off and retry.${after}`,
      );
    }
    case "verification_required":
      if (purpose === "status") return problem("booking_status_requires_verification");
      return problem(
        "requires_verification",
        `The platform requires customer verification${methodWords(e.verificationMethod)} before booking; ` +
          "call verification.send, then retry booking.create with the same idempotency_key, the same approval and the code.",
      );
    case "verification_failed":
      return problem("verification_failed");
    case "unavailable":
    case "timeout":
      // Retryable: a retried create reaches the platform under the same upstream idempotency
      // key, so it returns the appointment already made instead of making a second one.
      return adapterProblem(
        "upstream_unavailable",
        e.code === "timeout"
          ? "The booking platform did not answer in time; retry shortly with the same input."
          : "The booking platform is unavailable; retry shortly with the same input.",
        { retryable: true },
      );
    case "unauthorized":
      return adapterProblem(
        "upstream_unauthorized",
        "The booking platform refused this integration's credentials; the business must reconnect it.",
      );
    case "invalid_request":
      return adapterProblem("upstream_rejected", "The booking platform rejected the request.");
    case "not_found":
      if (purpose === "status") return problem("booking_not_found");
      return adapterProblem("upstream_rejected", "The booking platform does not know an id in the request.");
    case "unsupported":
      if (purpose === "verification")
        return adapterProblem(
          "verification_unsupported",
          "This booking platform has no customer verification OSBP can drive.",
        );
      return adapterProblem("unsupported", "The booking platform does not support this operation.");
    case "payment_required":
      return paymentHandoff(e.payment);
  }
}

/**
 * The platform books this only against a payment up front. OSBP "authorizes the booking, not
 * the payment" and "when a booking requires payment, OSBP hands off instead of handling the
 * charge" (Design Principles); handoff.request's first use is "payment or deposit collection is
 * required before confirming". So: requires_payment_handoff, not retryable. A Problem has only
 * code, message and retryable, so the business's page (from the platform or the host's
 * settings, never the agent) and the amount, when known, are in the prose for the person.
 */
export function paymentHandoff(payment: PaymentHandoff | undefined): Problem {
  const amount =
    payment?.amount === undefined
      ? ""
      : ` It asks for ${toMajorUnitsString(payment.amount.minor, payment.amount.currency)} ${payment.amount.currency}.`;
  const page = payment?.url === undefined ? "" : ` The business's page for it: ${payment.url}`;
  return problem(
    "requires_payment_handoff",
    "The business takes this booking only with a payment up front, which OSBP does not make; nothing was booked. " +
      `Tell the user and hand off to the merchant (handoff.request, reason requires_payment_handoff).${amount}${page}`,
    { retryable: false },
  );
}

function methodWords(method: UpstreamFailure["verificationMethod"]): string {
  if (method === "sms") return " by SMS code";
  if (method === "email") return " by email code";
  return "";
}
