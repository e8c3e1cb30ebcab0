/**
 * The core's refusal in SchCP's terms (§9, §9.2): the SchCP edge's half of "one error
 * vocabulary inside, mapped once per edge". Each core code names one SchCP code; reasons pass
 * through (they are registered under that code, test/edges/schcp/refusal-map.test.ts),
 * except the core's own "no grant at all", which SchCP words as a missing mandate (§3.3).
 */
import { toSchcpMoney } from "../../protocol/money/index.js";
import type { HttpRefusalCode } from "../../protocol/schcp/refusals.js";
import type { Remedy, Slot } from "../../protocol/schcp/types.js";
import { formatInstant, formatSchcpDuration } from "../../protocol/time/index.js";
import type { BookingRefusal } from "../../booking/api.js";
import type { BookingErrorCode, BookingRemedy, HoldAlternative } from "../../booking/errors.js";

export const SCHCP_CODE: Readonly<Record<BookingErrorCode, HttpRefusalCode>> = {
  invalid_request: "INVALID_REQUEST",
  authority_required: "MANDATE_INVALID",
  authority_invalid: "MANDATE_INVALID",
  authority_scope: "MANDATE_SCOPE",
  authority_limit: "MANDATE_LIMIT",
  approval_required: "OFFER_APPROVAL_REQUIRED",
  not_permitted: "NOT_PERMITTED",
  not_eligible: "NOT_ELIGIBLE",
  not_found: "NOT_FOUND",
  slot_unavailable: "SLOT_UNAVAILABLE",
  contract_mismatch: "CONTRACT_MISMATCH",
  stale_sequence: "STALE_SEQUENCE",
  invalid_state: "INVALID_STATE",
  idempotency_conflict: "IDEMPOTENCY_CONFLICT",
  outside_booking_window: "OUTSIDE_BOOKING_WINDOW",
  out_of_service_area: "OUT_OF_SERVICE_AREA",
  data_not_accepted: "DATA_NOT_ACCEPTED",
  hold_limit: "HOLD_LIMIT",
  rate_limited: "RATE_LIMITED",
  unsupported: "UNSUPPORTED",
  // §8 "There are no payment errors": a host that wants prepayment takes it itself, "through a
  // link it gives in a refusal's contact remedy". What SchCP cannot do here is the booking, so
  // the class is UNSUPPORTED, with the gateway's reason payment_required (refusals.ts).
  payment_required: "UNSUPPORTED",
  upstream_unavailable: "UPSTREAM_UNAVAILABLE",
  internal_error: "INTERNAL_ERROR",
};

const SCHCP_REASON: Readonly<Record<string, string>> = { authority_required: "mandate_invalid" };

/**
 * A core refusal with SchCP's code, reason and remedies, and a refused hold's alternatives as
 * the §5.2 Slots in details.alternatives; everything else as the core said it.
 */
export interface SchcpRefusal extends Omit<BookingRefusal, "code" | "remedies" | "alternatives"> {
  readonly code: HttpRefusalCode;
  readonly remedies?: readonly Remedy[];
}

/** `timezone`: the host's, for the alternatives' local times (UTC when not known). */
export function schcpRefusal(r: BookingRefusal, timezone?: string): SchcpRefusal {
  const { alternatives, remedies, ...rest } = r;
  return {
    ...rest,
    code: SCHCP_CODE[r.code],
    reason: SCHCP_REASON[r.reason] ?? r.reason,
    ...(remedies !== undefined && { remedies: remedies.map(schcpRemedy) }),
    ...(alternatives !== undefined && {
      details: { ...r.details, alternatives: alternatives.map((a) => schcpSlot(a, timezone)) },
    }),
  };
}

function schcpRemedy(m: BookingRemedy): Remedy {
  switch (m.type) {
    case "contact":
      return m;
    case "retry":
      // Whole seconds, as Retry-After (§9.2 retry).
      return { type: "retry", after: formatSchcpDuration(Math.ceil(m.afterMs / 1000) * 1000) };
    case "attest":
      return { type: "attest", attesters: [...m.attesters] };
    case "approve":
      return { type: "approve_offer", offer_sha256: m.termsHash };
  }
}

/** §5.2: an alternative is a Slot, priced at that time, at the host's offset. */
function schcpSlot(a: HoldAlternative, timezone: string | undefined): Slot {
  const at = (ms: number) => (timezone === undefined ? formatInstant(ms) : formatInstant(ms, timezone));
  const slot: Slot =
    a.end === undefined ? { start: at(a.start), open_end: true } : { start: at(a.start), end: at(a.end) };
  if (a.price !== null && a.total !== null) {
    slot.price = toSchcpMoney(a.price);
    slot.total = toSchcpMoney(a.total);
  }
  return slot;
}
