/**
 * A booking as the core answers it to a caller that is no protocol's agent (the operator API):
 * the state's neutral part, without any edge's record, naming the edges that keep one. The
 * HTTP edge renders it as JSON (src/edges/operator/operator-view.ts, shape in the README).
 */
import type { BookingState, StoredProposal } from "./bookings/state.js";
import { edgesOf } from "./contract.js";
import { guestOnRecord } from "./bookings/guest.js";

type ProposalView = Omit<StoredProposal, "attachments" | "holdId">;

export type BookingView = Omit<
  BookingState,
  "v" | "attachments" | "proposal" | "agentKey" | "callbackUrl" | "upstreamId" | "holdId"
> & {
  readonly proposal?: ProposalView;
  /** The edges the booking was made or changed through that keep a record of it ("schcp"). */
  readonly edges: readonly string[];
};

/** The view at `now`: the guest only while the contract's retention keeps it (bookings/guest.ts). */
export function bookingView(state: BookingState, now: number): BookingView {
  const {
    v: _v,
    attachments,
    proposal,
    agentKey: _a,
    callbackUrl: _c,
    upstreamId: _u,
    holdId: _h,
    guest: _g,
    ...rest
  } = state;
  const guest = guestOnRecord(state, now);
  let p: ProposalView | undefined;
  if (proposal !== undefined) {
    const { attachments: _pa, holdId: _ph, ...shown } = proposal;
    p = shown;
  }
  return {
    ...rest,
    ...(guest !== undefined && { guest }),
    ...(p !== undefined && { proposal: p }),
    edges: edgesOf(attachments),
  };
}
