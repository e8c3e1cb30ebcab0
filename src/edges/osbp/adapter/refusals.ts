/**
 * The core's refusals in OSBP terms: the OSBP edge's half of "one error vocabulary inside,
 * mapped once per edge". An upstream failure behind a refusal (the core's upstreamFailureOf)
 * maps as every upstream failure does (problems.ts); the core's own rules map to the nearest
 * OSBP code, with our own prose.
 */
import type { BookingRefusal } from "../../../booking/api.js";
import { upstreamFailureOf } from "../../../booking/errors.js";
import { problem, type Problem } from "../../../protocol/osbp/index.js";
import { adapterProblem, paymentHandoff, upstreamProblem, type UpstreamPurpose } from "./problems.js";

const seconds = (ms: number | undefined) =>
  ms === undefined ? "" : ` Retry after ${Math.max(1, Math.ceil(ms / 1000))} second(s).`;

/** A refusal the OSBP authority made carries the mandate Problem itself (authority.ts). */
export const OSBP_PROBLEM_DETAIL = "osbp_problem";

export function refusalProblem(r: BookingRefusal, purpose: UpstreamPurpose): Problem {
  // Also a host whose credentials were revoked earlier: its time is refused without asking
  // upstream, as the `unauthorized` the upstream would answer.
  const upstream = upstreamFailureOf(r);
  if (upstream !== undefined) return upstreamProblem(upstream, purpose);
  const own = r.details?.[OSBP_PROBLEM_DETAIL];
  if (own !== undefined) return own as Problem;
  switch (r.code) {
    case "slot_unavailable":
      return problem(
        "slot_taken",
        "That time is no longer available at this business; call availability.find and choose another slot.",
      );
    case "outside_booking_window":
      return problem(
        "slot_too_early",
        `This business does not take bookings at that time (${r.message}); choose a slot from availability.find.`,
      );
    case "not_found":
      if (purpose === "status") return problem("booking_not_found");
      return adapterProblem("service_not_found", "This business has no such service; call service.describe.");
    case "rate_limited":
    case "hold_limit":
      return problem(
        "rate_limited",
        `Too many booking attempts at this business right now.${seconds(r.retryAfterMs)}`,
      );
    case "upstream_unavailable":
      return adapterProblem(
        "upstream_unavailable",
        `The business's booking system is not available right now; retry shortly with the same input.${seconds(r.retryAfterMs)}`,
        { retryable: true },
      );
    case "invalid_state":
      return adapterProblem(
        "idempotency_in_progress",
        "This booking attempt is still being completed; retry shortly with the same input.",
        { retryable: true },
      );
    case "not_permitted":
    case "not_eligible":
    case "out_of_service_area":
    case "authority_required":
    case "authority_invalid":
    case "authority_limit":
    case "authority_scope":
      return problem("action_not_allowed", `This business does not accept this booking: ${r.message}.`);
    case "payment_required":
      // Without the connector's answer behind it there is no link or amount to pass on.
      return paymentHandoff(undefined);
    case "contract_mismatch":
    case "data_not_accepted":
    case "idempotency_conflict":
    case "internal_error":
    case "invalid_request":
    case "approval_required":
    case "stale_sequence":
    case "unsupported":
      return adapterProblem("upstream_rejected", `The booking was refused: ${r.message}.`);
  }
}
