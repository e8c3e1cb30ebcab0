/**
 * Who may act on a booking (SchCP §3.3, §5.5): the mandate of the principal that owns it,
 * whose every link covers the action; a read also by a required participant (§5.10). Constraints bind reads too, so a GET is checked with
 * the booking's service, time, total and contract like any other action.
 */
import type { SchcpCaller } from "./caller.js";
import type { BookingRefusal } from "../../booking/api.js";
import { mandateRequired, notFound } from "../../booking/bookings/refuse.js";
import { fromMandateRefusal } from "./mandate-refusal.js";
import type { BookingState } from "../../booking/bookings/state.js";
import { schcpOffer } from "./attachment.js";
import type { HoldStore } from "../../holds/port.js";
import { readsAsParticipant } from "../../booking/participants/respond.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { checkMandateAction } from "../../protocol/schcp/mandate/index.js";
import type {
  MandateAction,
  MandateActionKind,
  MandateBookingCounter,
  MandateChain,
} from "../../protocol/schcp/mandate/index.js";

/** max_bookings usage at this host, keyed by (root iss, jti) (§3.3 "Ids are per link"). */
export function mandateCounter(store: HoldStore, hostId: string): MandateBookingCounter {
  return { active: (rootIss, jti, exclude) => store.countForMandate(hostId, rootIss, jti, exclude) };
}

/** The action on a booking as §3.3 checks 5 and 6 see it. */
export function bookingAction(kind: MandateActionKind, state: BookingState): MandateAction {
  const signed = schcpOffer(state.attachments);
  return {
    kind,
    serviceId: state.serviceId,
    start: state.start,
    ...(state.end !== undefined && { end: state.end }),
    ...(state.openEnd === true && { openEnded: true }),
    // The contract's total is the signed offer's (§3.3 check 6), one value in either shape.
    total: state.contract.total,
    bookingId: state.bookingId,
    ...(signed !== undefined && { offerSha256: signed.offerSha256 }),
  };
}

/**
 * The caller's verified chain when it may take `action` on `state`. A booking of another
 * principal answers not_found, so nothing about other guests leaks (§9.2).
 */
export async function authorizeOnBooking(
  store: HoldStore,
  caller: SchcpCaller,
  state: BookingState,
  action: MandateAction,
): Promise<Result<MandateChain, BookingRefusal>> {
  const chain = caller.mandate;
  if (chain === undefined) return err(mandateRequired());
  // §5.5: "A required participant (§5.10) may read the booking too", until they decline.
  const reader =
    chain.principal === state.principal ||
    (action.kind === "read" && readsAsParticipant(state, chain.principal));
  if (!reader) return err(notFound("booking"));
  const checked = await checkMandateAction(chain, action, { counter: mandateCounter(store, state.hostId) });
  return checked.ok ? ok(chain) : err(fromMandateRefusal(checked.error));
}
