/**
 * The second answer to a displaced booking (SchCP §5.8): "Otherwise the host offers the nearest
 * other time as a host change offer, lasting at most until the booking would have started."
 *
 * The offer is the operator's own proposal (operator/propose.ts), so it is held, signed and
 * sent exactly as one: the new time held for the guest (it may overlap the booking itself),
 * the proposal attached with by "host", and the guest told by booking.change_proposed with a
 * receipt of the unchanged booking. The booking keeps its time until the guest accepts.
 */
import type { HostRuntime, OperatorApi } from "../api.js";
import type { BookingState } from "../bookings/state.js";
import type { Clock } from "../../protocol/clock.js";
import type { Result } from "../../protocol/result.js";

export interface OfferDeps {
  readonly clock: Clock;
  readonly host: HostRuntime;
  readonly propose: OperatorApi["propose"];
}

interface OfferedProposal {
  readonly proposalId: string;
  readonly start: number;
  readonly expiresAt: number;
}

/** The proposal made, or the reason none was (reported as the displacement's). */
export type OfferOutcome = Result<OfferedProposal, string>;

/** How far either side of the original start a new time is looked for. */
const SEARCH_MS = 7 * 24 * 3_600_000;
/** Candidates tried in turn: a free start in the calendar may still be held by another guest. */
const MAX_TRIES = 12;

/**
 * Offers the free start nearest the booking's own, on the unit the guest chose when it chose
 * one. "Nearest" is by distance from the original start, either side, never in the past; of
 * two starts equally near, the later one, since a guest who planned for a time can more often
 * come later than earlier. A start the store refuses (another hold or booking has it) is
 * skipped for the next; any other refusal ends the search.
 */
export async function offerNearestTime(
  deps: OfferDeps,
  state: BookingState,
  pinnedUnit: string | undefined,
): Promise<OfferOutcome> {
  const now = deps.clock.now();
  if (state.start <= now) return { ok: false, error: "already_started" };
  const hostId = deps.host.config.id;
  const found = await deps.host.connector.slots.find({
    serviceId: state.serviceId,
    range: { start: Math.max(now, state.start - SEARCH_MS), end: state.start + SEARCH_MS },
    partySize: state.partySize ?? 1,
    ...(pinnedUnit !== undefined && { resourceIds: [pinnedUnit] }),
  });
  if (!found.ok) return { ok: false, error: `calendar_${found.error.code}` };
  const starts = [
    ...new Set(
      found.value
        .filter((s) => s.serviceId === state.serviceId && s.start > now && s.start !== state.start)
        .filter((s) => pinnedUnit === undefined || s.resourceIds.includes(pinnedUnit))
        .map((s) => s.start),
    ),
  ].sort((a, b) => Math.abs(a - state.start) - Math.abs(b - state.start) || b - a);
  for (const start of starts.slice(0, MAX_TRIES)) {
    const proposed = await deps.propose(hostId, state.bookingId, { start: new Date(start).toISOString() });
    if (proposed.ok) {
      const p = proposed.value.proposal;
      if (p === undefined) return { ok: false, error: "proposal_not_recorded" };
      return { ok: true, value: { proposalId: p.proposalId, start: p.start, expiresAt: p.expiresAt } };
    }
    if (proposed.error.code !== "slot_unavailable") return { ok: false, error: proposed.error.reason };
  }
  return { ok: false, error: "no_free_time" };
}
