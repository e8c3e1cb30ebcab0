/**
 * POST /bookings/{id}/commit (SchCP §5.12 Commit): the organizer makes the meeting final on
 * one calendar, once every member who must accept (every person but the organizer) has said
 * yes to the booking's current contract, and hands all their acceptances over.
 *
 * - A different hash: 409 CONTRACT_MISMATCH with the current one in details.
 * - An acceptance from someone who need not accept, two from one member, or one that does not
 *   verify: 400 INVALID_REQUEST (acceptance_invalid, or person_required where a rule answered
 *   for a member who must answer in person).
 * - A member missing: 409 INVALID_STATE awaiting_members, details.awaiting naming them.
 * - pending_host: a person's calendar may be committed when the acceptances include its own
 *   member's (that is then the member's answer); a business's cannot (awaiting_members).
 *
 * Committed, the booking is confirmed (sequence + 1, a new receipt), the booker earns the
 * credit it did not while the meeting was pending, and booking.confirmed is sent. Committing a
 * confirmed booking again with its hash returns it unchanged.
 */
import type { BookingDeps, BookingRefusal, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { notifyGuest } from "../bookings/edges.js";
import { invalidState, refuse, upstreamRefusal } from "../bookings/refuse.js";
import type { BookingState } from "../bookings/state.js";
import { hostBooking, saveBooking } from "../bookings/store.js";
import { recordBookerOutcome } from "../participants/respond.js";
import { answerOf, meetingInvalid, verifyAcceptanceOf } from "./answer.js";
import { commitRevision } from "./revise-confirmed.js";
import type { MeetingAnswerer, StoredMeeting, VerifiedAcceptance } from "./types.js";

export interface CommitInput {
  readonly contractSha256: string;
  readonly acceptances: readonly string[];
}

/** §5.12: with a revision pending, "any other hash is 409 CONTRACT_MISMATCH with both hashes". */
const mismatch = (current: string, pending?: string): BookingRefusal =>
  refuse(
    "contract_mismatch",
    "contract_mismatch",
    "contract_sha256 does not name the booking's current contract",
    {
      details: {
        contract_sha256: current,
        ...(pending !== undefined && { pending_contract_sha256: pending }),
      },
    },
  );

const awaiting = (members: readonly MeetingAnswerer[], message: string): BookingRefusal =>
  refuse("invalid_state", "awaiting_members", message, {
    details: { awaiting: members.map((m) => ({ principal: m.principal, name: m.name })) },
  });

export async function commitMeeting(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  input: CommitInput,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const m = state.meeting;
  if (m === undefined) return err(meetingInvalid("this booking is not part of a meeting"));
  // §5.12 Changing a confirmed meeting: the pending revision's hash commits the revision.
  const pending = state.status === "confirmed" ? m.pendingRevision?.terms.contractSha256 : undefined;
  if (pending !== undefined && input.contractSha256 === pending)
    return commitRevision(deps, host, state, input.acceptances, (members) =>
      awaiting(members, "not every member has said yes to the revision"),
    );
  if (input.contractSha256 !== m.contractSha256) return err(mismatch(m.contractSha256, pending));
  if (state.status === "confirmed") return ok(state);
  if (state.status !== "pending_host" && state.status !== "tentative")
    return err(invalidState(`a ${state.status} meeting booking cannot be committed`));

  const now = deps.clock.now();
  const given = new Map<string, VerifiedAcceptance>();
  for (const text of input.acceptances) {
    const verified = await verifyAcceptanceOf(deps, host, state, text, now);
    if (!verified.ok) return verified;
    if (given.has(verified.value.principal))
      return err(refuse("invalid_request", "acceptance_invalid", "two acceptances from one member"));
    given.set(verified.value.principal, verified.value);
  }
  const missing = m.mustAccept.filter((a) => !given.has(a.principal));
  if (missing.length > 0) return err(awaiting(missing, "not every member has accepted the meeting"));
  if (state.status === "pending_host" && m.role !== "person")
    return err(awaiting([], "the business has not said yes to this booking as the host"));
  const own = m.role === "person" ? given.get(m.member) : undefined;

  // The upstream holds the booking as tentative where the host approves each booking, and a
  // calendar or a platform that can (BookingPort.meetingsTentative) holds every meeting
  // booking tentative until now (§5.12).
  if (
    host.config.policies.confirmation === "host_approval" ||
    host.connector.bookings.meetingsTentative === true
  ) {
    const upstream = await host.connector.bookings.setStatus(state.upstreamId, "confirmed");
    if (!upstream.ok && upstream.error.code !== "unsupported") return err(upstreamRefusal(upstream.error));
  }
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      const sm = s.meeting;
      if (sm === undefined) return err(meetingInvalid("this booking is not part of a meeting"));
      if (sm.contractSha256 !== m.contractSha256) return err(mismatch(sm.contractSha256));
      if (s.status === "confirmed") return ok(s);
      if (s.status !== "pending_host" && s.status !== "tentative")
        return err(invalidState(`a ${s.status} meeting booking cannot be committed`));
      const { approvalBy: _a, creditPending: _c, ...rest } = s;
      const ownAnswer = s.status === "pending_host" && own !== undefined;
      const meeting: StoredMeeting =
        own !== undefined && sm.acceptance === undefined ? { ...sm, acceptance: own.text } : sm;
      return ok({
        ...rest,
        status: "confirmed",
        sequence: s.sequence + 1,
        meeting,
        ...(ownAnswer && {
          answer: answerOf(own, now),
        }),
      });
    },
    now,
  );
  if (!saved.ok) return saved;
  // Another commit made it final first: nothing more to record or tell.
  if (saved.value.sequence !== state.sequence + 1) return saved;
  if (state.creditPending === true)
    await recordBookerOutcome(deps, loaded.record.owner, state.principal, "confirmed", now);
  await notifyGuest(deps, host, saved.value, "confirmed", now);
  return saved;
}
