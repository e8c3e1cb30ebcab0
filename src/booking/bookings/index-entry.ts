/**
 * What the hold store indexes of a booking's state (BookingIndexEntry, src/holds/port.ts),
 * computed in one place and passed with every payload write, so the store's status lists,
 * due deadlines and upstream-id lookup always match the state they were written with.
 */
import type { BookingIndexEntry, HoldStore } from "../../holds/port.js";
import { decodeBookingState, type BookingState } from "./state.js";
import { participantDeadline } from "../participants/rules.js";
import { meetingDeadline } from "../meetings/confirm.js";

/** The lookup key of a booking's upstream id (an approval link names the upstream event). */
export const upstreamLookupKey = (upstreamId: string): string => `upstream:${upstreamId}`;

/**
 * The deadline is the earliest time the approval-deadline runner (operator/deadlines.ts) has
 * something to do: a pending booking's approval_by (§5.7), an open offer's expiry, a
 * participant's or the booker's reconfirmation confirm_by (§5.10).
 */
export function bookingIndexEntry(state: BookingState): BookingIndexEntry {
  const deadlines: number[] = [];
  if (state.status === "pending_host" && state.approvalBy !== undefined) deadlines.push(state.approvalBy);
  if (state.proposal !== undefined) deadlines.push(state.proposal.expiresAt);
  const answerBy = participantDeadline(state);
  if (answerBy !== undefined) deadlines.push(answerBy);
  // §5.12: a tentative meeting booking lapses at the contract's deadline.
  const meetingBy = meetingDeadline(state.meeting, state.status);
  if (meetingBy !== undefined) deadlines.push(meetingBy);
  // §5.12 Changing a confirmed meeting: a pending revision is dropped at its deadline.
  const revisionBy = state.status === "confirmed" ? state.meeting?.pendingRevision?.expiresAt : undefined;
  if (revisionBy !== undefined) deadlines.push(revisionBy);
  return {
    status: state.status,
    ...(deadlines.length > 0 && { deadline: Math.min(...deadlines) }),
    keys: state.upstreamId === "" ? [] : [upstreamLookupKey(state.upstreamId)],
  };
}

/** For the store's backfill: a payload it kept before the indexes (undefined if unreadable). */
function describePayload(payload: string): BookingIndexEntry | undefined {
  const decoded = decodeBookingState(payload);
  return decoded.ok ? bookingIndexEntry(decoded.value) : undefined;
}

/** Hosts whose old bookings this process saw indexed, per store. */
const backfilled = new WeakMap<object, Set<string>>();

/**
 * Before an answer that needs every booking indexed: bookings a store kept before it had the
 * indexes are indexed once (the store keeps a version per host, so this is one read after the
 * first time, and none after that in this process).
 */
export async function ensureBookingIndex(
  store: Pick<HoldStore, "backfillBookingIndex">,
  hostId: string,
): Promise<void> {
  let hosts = backfilled.get(store);
  if (hosts?.has(hostId) === true) return;
  await store.backfillBookingIndex(hostId, describePayload);
  if (hosts === undefined) backfilled.set(store, (hosts = new Set()));
  hosts.add(hostId);
}
