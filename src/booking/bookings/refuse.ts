/**
 * BookingRefusal constructors shared by the booking use cases (SchCP §9.2). Each reason is
 * typed against the registry (src/protocol/schcp/refusals.ts), so an unregistered reason is a
 * compile error here rather than an unknown reason on the wire. The edge adds the contact
 * remedy and the HTTP status; a SchCP mandate check's refusal is mapped by the SchCP edge
 * (../schcp/mandate-refusal.ts).
 */
import type { BookingRefusal } from "../api.js";
import type { ConnectorError, PaymentHandoff } from "../../connectors/port.js";
import { hostNeedsReconnection } from "../hosts/refusals.js";
import { DEFAULT_ERROR_MESSAGES, type BookingErrorCode, type BookingErrorReason } from "../errors.js";
import { upstreamRejected } from "../rules/refusal.js";

type Extra = Omit<BookingRefusal, "code" | "reason" | "message">;

export function refuse<C extends BookingErrorCode>(
  code: C,
  reason: BookingErrorReason<C>,
  message: string,
  extra: Extra = {},
): BookingRefusal {
  return { code, reason, message, ...extra };
}

export const notFound = (what: string): BookingRefusal => refuse("not_found", "not_found", `no such ${what}`);

export const invalidState = (message: string, extra: Extra = {}): BookingRefusal =>
  refuse("invalid_state", "invalid_state", message, extra);

/** §3.3: a mandate is required for every booking route; its absence is MANDATE_INVALID. */
export const mandateRequired = (): BookingRefusal =>
  refuse("authority_required", "authority_required", "this operation requires a mandate (SchCP-Mandate)");

/** §5.6 / §5.7: sequence must be the booking's current one (iTIP: stale updates are ignored). */
export const staleSequence = (current: number): BookingRefusal =>
  refuse("stale_sequence", "stale_sequence", `the booking's current sequence is ${current}`, {
    details: { sequence: current },
  });

/** §5.3: a different hash is 409 CONTRACT_MISMATCH whose details give the right one. */
export const contractMismatch = (expected: string | undefined, message: string): BookingRefusal =>
  refuse(
    "contract_mismatch",
    "contract_mismatch",
    message,
    expected === undefined ? {} : { details: { offer_sha256: expected } },
  );

/**
 * The one mapping of an upstream failure to the core's vocabulary, as the agent sees it: 503 UPSTREAM_UNAVAILABLE, which it may retry, with
 * retry.after when the platform said; except a revoked credential (hosts/refusals.ts), a
 * request the platform refused as invalid (400, rules/refusal.ts) and a booking the platform
 * takes only against a payment up front (payment_required), which no retry fixes.
 */
export function upstreamRefusal(e: ConnectorError): BookingRefusal {
  // Every refusal keeps the upstream failure behind it, for edges whose protocol names it.
  if (e.code === "unauthorized") return { ...hostNeedsReconnection(), upstream: e };
  if (e.code === "invalid_request") return { ...upstreamRejected(), upstream: e };
  if (e.code === "payment_required") return { ...paymentRequired(e.payment), upstream: e };
  // What the platform cannot do at all (the connector says so without asking it): not a
  // refusal by the host's system, and no retry helps.
  if (e.code === "unsupported") return { ...refuse("unsupported", "unsupported", e.message), upstream: e };
  const limited = e.code === "rate_limited";
  const retryAfterMs = e.retryAfterMs ?? (limited ? 1_000 : 5_000);
  const refusal = refuse(
    "upstream_unavailable",
    limited ? "upstream_rate_limited" : "upstream_unavailable",
    `the host's booking system did not answer (${e.code}); try again shortly`,
    {
      retryAfterMs,
      remedies: [{ type: "retry", afterMs: retryAfterMs }],
    },
  );
  return { ...refusal, upstream: e };
}

/**
 * The platform books this only against a payment made up front. Nothing was booked and no
 * retry helps (no retryAfterMs, no retry remedy). The link the connector gave (the platform's,
 * or the business's own from the host's settings; never the agent's) becomes the contact remedy
 * SchCP §8 names: "through a link it gives in a refusal's contact remedy"; the edge adds the
 * host's published phone beside it (withContactRemedy keeps the link).
 */
function paymentRequired(payment: PaymentHandoff | undefined): BookingRefusal {
  const url = payment?.url !== undefined && isHttpsUrl(payment.url) ? payment.url : undefined;
  return refuse(
    "payment_required",
    "payment_required",
    url === undefined
      ? DEFAULT_ERROR_MESSAGES.payment_required
      : `${DEFAULT_ERROR_MESSAGES.payment_required}; the contact remedy's link is the business's own page for it`,
    {
      basis: { policy: "upstream_payment" },
      ...(url !== undefined && { remedies: [{ type: "contact" as const, url }] }),
    },
  );
}

function isHttpsUrl(v: string): boolean {
  try {
    return new URL(v).protocol === "https:";
  } catch {
    return false;
  }
}
