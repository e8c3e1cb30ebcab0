/**
 * The held time of a change (SchCP §5.7 change offer, §5.8 host proposal): the open proposal
 * (at most one) is released, then the new time is held with the hold engine as a change of
 * the booking (it may overlap that booking and nothing else), repeating the booking's own
 * retention. The edges that keep a record of the booking attach theirs to the change hold
 * (SchCP: a signed change offer whose prev is the current contract's hash).
 */
import type { BookingDeps, HostRuntime } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { BookingState, StoredProposal } from "../bookings/state.js";
import { saveBooking } from "../bookings/store.js";
import { tooSoonForParticipants, withoutProposal } from "./apply-move.js";
import type { ChangeHoldParams, CreateHold } from "./hold-engine.js";

/** Shared by a guest's change offer (schcp/change-offer.ts) and a host proposal (operator/propose.ts). */
export async function placeChangeHold(
  deps: BookingDeps,
  createHold: CreateHold,
  host: HostRuntime,
  state: BookingState,
  opts: Pick<ChangeHoldParams, "caller" | "start" | "proposalId" | "by" | "place" | "principal"> & {
    readonly ttlMs?: number;
  },
) {
  const now = deps.clock.now();
  // §5.10: asking for a start that has passed is refused when participants must answer again.
  const tooSoon = tooSoonForParticipants(state, opts.start, now);
  if (tooSoon !== undefined) return err(tooSoon);
  if (state.proposal !== undefined) {
    const previous = state.proposal;
    await deps.store.releaseHold(host.config.id, previous.holdId, now);
    await saveBooking(deps, host, state.bookingId, (s) => ok(withoutProposal(s, previous.proposalId)), now);
  }
  const place = opts.place ?? state.place;
  const created = await createHold(deps, host, {
    caller: opts.caller,
    serviceId: state.serviceId,
    start: opts.start,
    ttlMs: opts.ttlMs ?? host.config.policies.holds.maxTtlMs,
    ...(state.callbackUrl !== undefined && { callbackUrl: state.callbackUrl }),
    partySize: state.partySize ?? 1,
    ...(place !== undefined && { place }),
    kind: "change",
    bookingId: state.bookingId,
    proposalId: opts.proposalId,
    by: opts.by,
    overlapBookingId: state.bookingId,
    // A resource the guest chose is part of what it agreed to: a new time keeps it (§4.1, §5.7
    // "30 minutes later with the same barber"), else the change would quietly drop it.
    ...(state.contract.resource !== undefined && { pinnedResourceId: state.contract.resource.id }),
    booking: state,
    retentionOverride: state.contract.retention,
    ...(opts.principal !== undefined && { principal: opts.principal }),
  });
  if (!created.ok) return created;
  const { record, payload } = created.value;
  const proposal: StoredProposal = {
    proposalId: opts.proposalId,
    by: opts.by,
    holdId: record.holdId,
    contract: payload.contract,
    start: payload.contract.start,
    ...(payload.contract.end !== undefined && { end: payload.contract.end }),
    ...(payload.contract.place !== undefined && { place: payload.contract.place }),
    expiresAt: record.expiresAt,
    resourceIds: record.allocations.map((a) => a.resourceId),
    ...(payload.attachments !== undefined && { attachments: payload.attachments }),
  };
  return ok(proposal);
}
