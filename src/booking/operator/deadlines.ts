/**
 * The approval-deadline runner (SchCP §5.7, §6), called periodically by the jobs layer: a
 * pending_host booking whose approval_by passed becomes expired (EXPIRED host_did_not_answer),
 * its time freed and the upstream booking cancelled (booking.expired); a guest's move awaiting
 * the host past its hold's expiry is recorded as declined_change with the same refusal
 * (booking.change_declined; it does not count against the guest, §5.7); an open change offer
 * whose hold lapsed is dropped from the booking; a participant's or the booker's
 * reconfirmation deadline applies its default (§5.10, participants/lapse.ts).
 */
import type { BookingDeps, HostRuntime } from "../api.js";
import { ok } from "../../protocol/result.js";
import { endBooking } from "../bookings/cancel.js";
import { ensureBookingIndex } from "../bookings/index-entry.js";
import type { BookingState } from "../bookings/state.js";
import { loadBooking, saveBooking } from "../bookings/store.js";
import { notifyGuest } from "../bookings/edges.js";
import { withoutProposal } from "../changes/apply-move.js";
import { dropMove } from "./decline.js";
import { expiredRefusal } from "./refusals.js";
import { lapseParticipant } from "../participants/lapse.js";
import { dueParticipant } from "../participants/rules.js";
import { lapseMeeting, meetingLapsed } from "../meetings/lapse.js";
import { lapseRevision, revisionLapsed } from "../meetings/revise-confirmed.js";

export interface DeadlineReport {
  readonly expired: readonly string[];
  /** §5.10: bookings whose participant (or reconfirmation) deadline was settled by its default. */
  readonly participantsLapsed: readonly string[];
  readonly movesLapsed: readonly string[];
  readonly offersDropped: readonly string[];
}

/**
 * Reads the store's due set (every booking whose approval or offer deadline passed, earliest
 * first, kept with each payload write), `limit` at a time. A booking handled here is written
 * with its new state, which takes it out of the set; one that could not be handled (an
 * upstream that did not cancel) stays, is tried again next run, and is stepped over in this
 * one, so failures at the head of the set never hold back the bookings after them. At most
 * MAX_PAGES pages a run.
 */
export async function expireOverdue(deps: BookingDeps, hostId: string, limit = 500): Promise<DeadlineReport> {
  const report = {
    expired: [] as string[],
    participantsLapsed: [] as string[],
    movesLapsed: [] as string[],
    offersDropped: [] as string[],
  };
  const host = deps.hosts.get(hostId);
  if (host === undefined) return report;
  await ensureBookingIndex(deps.store, hostId);
  const settled = () =>
    report.expired.length +
    report.participantsLapsed.length +
    report.movesLapsed.length +
    report.offersDropped.length;
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const ids = await deps.store.bookingsDue(hostId, deps.clock.now(), limit, offset);
    const before = settled();
    for (const id of ids) await settleDue(deps, host, id, report);
    // What was settled left the set; what was not is still at its head: step over it.
    offset += ids.length - (settled() - before);
    if (ids.length < limit) break;
  }
  return report;
}

/** How many pages of the due set one run reads at most. */
const MAX_PAGES = 20;

async function settleDue(
  deps: BookingDeps,
  host: HostRuntime,
  id: string,
  report: { expired: string[]; participantsLapsed: string[]; movesLapsed: string[]; offersDropped: string[] },
): Promise<void> {
  const hostId = host.config.id;
  const loaded = await loadBooking(deps.store, hostId, id);
  if (loaded === undefined) return;
  const s = loaded.state;
  const now = deps.clock.now();
  if (dueParticipant(s, now) !== undefined) {
    // §5.10: at confirm_by the participant's default applies.
    if (await lapseParticipant(deps, host, s, loaded.record.owner, now)) report.participantsLapsed.push(id);
  } else if (meetingLapsed(s, now)) {
    // §5.12: a tentative meeting booking lapses at the contract's deadline (meeting_incomplete).
    if (await lapseMeeting(deps, host, s, now)) report.expired.push(id);
  } else if (revisionLapsed(s, now)) {
    // §5.12: a confirmed meeting's pending revision lapses; the booking keeps its time.
    if (await lapseRevision(deps, host, s)) report.movesLapsed.push(id);
  } else if (s.status === "pending_host" && s.approvalBy !== undefined && s.approvalBy <= now) {
    if (await expirePending(deps, host, s, now)) report.expired.push(id);
  } else if (s.proposal !== undefined && s.proposal.expiresAt <= now) {
    const p = s.proposal;
    if (p.awaitingHost === true) {
      if ((await dropMove(deps, host, s, p, expiredRefusal())).ok) report.movesLapsed.push(id);
    } else {
      await deps.store.releaseHold(hostId, p.holdId, now);
      const saved = await saveBooking(deps, host, id, (x) => ok(withoutProposal(x, p.proposalId)), now);
      if (saved.ok) report.offersDropped.push(id);
    }
  }
}

async function expirePending(
  deps: BookingDeps,
  host: HostRuntime,
  s: BookingState,
  now: number,
): Promise<boolean> {
  const refusal = expiredRefusal();
  // An upstream that did not cancel keeps the booking pending here; the next run tries again.
  const saved = await endBooking(deps, host, s, "the host did not answer in time", "system", now, (x) =>
    x.status === "pending_host" ? { ...x, status: "expired", refusal } : undefined,
  );
  if (!saved.ok || saved.value.status !== "expired") return false;
  await notifyGuest(deps, host, saved.value, "expired", now, { refusal });
  return true;
}
