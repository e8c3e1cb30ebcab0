/**
 * Phase two of the confirm (docs/ARCHITECTURE.md, Hold emulation): the upstream
 * booking exists, so the local booking is recorded from the hold, fenced. Shared by the
 * confirm itself and by reconciliation, so a booking recovered after a crash is exactly the
 * one the confirm would have written.
 */
import type { BookingDeps, HoldPayload, HostRuntime } from "../api.js";
import type { UpstreamBooking } from "../../connectors/port.js";
import type { HoldRecord, TransitionRefusal } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { sameMoney, toSchcpMoney, type Money } from "../../protocol/money/index.js";
import { formatInstant, parseInstant } from "../../protocol/time/index.js";
import { withEdgeRecords } from "../bookings/edges.js";
import { bookingIndexEntry } from "../bookings/index-entry.js";
import { encodeBookingState } from "../bookings/state.js";
import type { BookingState } from "../bookings/state.js";
import type { ConfirmIntent } from "./intent.js";
import type { Guest } from "../bookings/guest.js";
import { bookerReconfirm, finalityStatus, initialParticipants } from "../participants/rules.js";
import { meetingStart } from "../meetings/confirm.js";

/** The upstream idempotency key of a hold's create : reconciliation finds it by this key. */
export const upstreamKey = (hostId: string, holdId: string): string => `${hostId}:${holdId}`;

/**
 * The state of a booking just made from `hold` (§5.3): sequence 0; 201 confirmed or 202
 * pending_host. The host's policy AND the upstream's own answer decide: an upstream that
 * answered the create as pending (tentative: Servicialo `pendiente_confirmacion`, a
 * TENTATIVE event) holds it for the business, so it is pending_host whatever the policy says
 * (a pending booking is never reported confirmed). Such a
 * booking awaits the business there: no gateway deadline lapses it (the gateway cannot know
 * whether the business said yes upstream), and the operator records the answer when the
 * upstream cannot report it (docs/connectors.md "Pending at the business").
 */
const shown = (m: Money): string => {
  const s = toSchcpMoney(m);
  return `${s.amount} ${s.currency}`;
};

/**
 * What the upstream's answer says it recorded, beside the agreed total: kept, and raised to the
 * operator when it differs (the guest approved the offer's total; the business holds another).
 */
function upstreamTotalOf(
  upstream: UpstreamBooking,
  agreed: Money | null | undefined,
  now: number,
): Pick<BookingState, "upstreamTotal" | "attention"> {
  const recorded = upstream.total;
  if (recorded === undefined) return {};
  if (agreed === null || agreed === undefined || sameMoney(recorded, agreed))
    return { upstreamTotal: recorded };
  return {
    upstreamTotal: recorded,
    attention: {
      reason: "upstream_total_differs",
      message: `the business's system recorded ${shown(recorded)} for this booking; the guest agreed to ${shown(agreed)}`,
      conflictsWith: [],
      at: now,
    },
  };
}

export function newBookingState(
  host: HostRuntime,
  hold: HoldRecord,
  payload: HoldPayload,
  bookingId: string,
  upstream: UpstreamBooking,
  intent: ConfirmIntent,
  now: number,
  guest?: Guest,
): BookingState {
  const policies = host.config.policies;
  // SchCP §5.12: a calendar (host-connector.ts) or a platform that keeps meeting bookings
  // tentative until commit (BookingPort.meetingsTentative) writes a member's booking so, which
  // is not the upstream holding it for the host.
  const heldUpstream =
    upstream.status === "tentative" &&
    !(intent.meeting !== undefined && host.connector.bookings.meetingsTentative === true);
  // §7.9: a host_approval host that said yes at once (its owner, or a rule) confirms like an
  // instant one, with that answer.
  const answeredAtOnce = policies.confirmation === "instant" || intent.answer !== undefined;
  const instant = answeredAtOnce && !heldUpstream;
  const awaitingUpstream = heldUpstream && answeredAtOnce;
  const c = payload.contract;
  // The approval deadline as the contract states it (to the second, as every edge shows it);
  // otherwise the host's approval timeout (§5.7), never past the start.
  const stated =
    c.approvalBy === undefined ? undefined : parseInstant(formatInstant(c.approvalBy), "/approval_by");
  const approvalBy =
    stated?.ok === true ? stated.value.epochMs : Math.min(now + policies.approvalTimeoutMs, c.start);
  // §5.10: required participants make an instantly confirmed booking tentative until they have
  // all accepted; at a host that approves, they may answer while it is pending_host. The
  // booker's reconfirmation is added once the host has said yes (here, or at approval).
  const named = initialParticipants(
    intent.participants ?? [],
    policies.tentative?.maxConfirmWithinMs ?? 0,
    c.start,
    now,
  );
  const reconfirm = instant ? bookerReconfirm(c, intent.principal, c.start, now) : undefined;
  const participants = reconfirm === undefined ? named : [...named, reconfirm];
  const status = instant ? finalityStatus(participants) : "pending_host";
  const waitsOnOthers = finalityStatus(named) === "tentative";
  // §5.12: a meeting member's calendar answers as the meeting says, not as a lone booking.
  const meeting =
    intent.meeting === undefined
      ? undefined
      : meetingStart(intent.meeting, instant, approvalBy, now, intent.meetingYes);
  const base: BookingState = {
    v: 2,
    bookingId,
    hostId: host.config.id,
    holdId: hold.holdId,
    status,
    sequence: 0,
    serviceId: c.service.id,
    start: c.start,
    ...(c.end !== undefined ? { end: c.end } : { openEnd: true as const }),
    resourceIds: hold.allocations.map((a) => a.resourceId),
    partySize: c.partySize,
    ...(c.place !== undefined && { place: c.place }),
    contract: c,
    consent: intent.consent,
    upstreamId: upstream.upstreamId,
    ...(payload.callbackUrl !== undefined && { callbackUrl: payload.callbackUrl }),
    agentKey: payload.agentKey,
    principal: intent.principal,
    ...(guest !== undefined && { guest }),
    // §7.9: instant confirmation is the business's standing yes; at a host_approval host, the
    // owner's or a rule's yes given at confirm (intent.answer).
    ...(intent.personRequired === true && { personRequired: true as const }),
    ...(instant
      ? { answer: intent.answer ?? { by: "host" as const, at: now } }
      : awaitingUpstream
        ? { awaitingUpstream: true as const }
        : { approvalBy }),
    ...upstreamTotalOf(upstream, c.total, now),
    ...(participants.length > 0 && { participants }),
    // §5.10 Locks: no reputation credit until the booking is final.
    ...(waitsOnOthers && { creditPending: true as const }),
    createdAt: now,
    updatedAt: now,
    ...(intent.limitClaims !== undefined &&
      intent.limitClaims.length > 0 && { limitClaims: intent.limitClaims }),
    // Each edge's record of the hold becomes its record of the booking (edges.ts).
    ...(payload.attachments !== undefined && { attachments: payload.attachments }),
  };
  if (meeting === undefined) return base;
  const { answer: _a, approvalBy: _b, awaitingUpstream: _u, participants: _p, ...rest } = base;
  return {
    ...rest,
    status: meeting.status,
    ...(meeting.answer !== undefined && { answer: meeting.answer }),
    ...(meeting.approvalBy !== undefined && { approvalBy: meeting.approvalBy }),
    creditPending: true,
    meeting: meeting.meeting,
  };
}

/**
 * Records the booking under the confirm's fence, indexed for the operator in the same atomic
 * store step. On success the hold's time becomes the booking's, and the agent, principal and
 * attester earn a "confirmed" outcome (§7.3).
 */
export async function recordBooking(
  deps: BookingDeps,
  host: HostRuntime,
  hold: HoldRecord,
  fence: number,
  payload: HoldPayload,
  upstream: UpstreamBooking,
  intent: ConfirmIntent,
  now: number,
  guest?: Guest,
): Promise<Result<BookingState, TransitionRefusal>> {
  const hostId = host.config.id;
  const bookingId = deps.ids.next("b_");
  const state = await withEdgeRecords(
    deps,
    host,
    newBookingState(host, hold, payload, bookingId, upstream, intent, now, guest),
    now,
  );
  const done = await deps.store.completeConfirm(
    hostId,
    hold.holdId,
    fence,
    { bookingId, payload: encodeBookingState(state), index: bookingIndexEntry(state) },
    now,
  );
  if (!done.ok) return err(done.error.reason);
  // §5.9: confirming a waitlist offer's hold makes its entry booked.
  if (payload.waitlist !== undefined)
    await deps.store.setWaitlistStatus(hostId, payload.waitlist.entryId, ["offered"], "booked");
  // §5.10 Locks: a booking waiting on its participants earns nothing until it is final.
  if (state.creditPending === true) return ok(state);
  const owner = hold.owner;
  await deps.store.recordOutcome({ kind: "agent", id: owner.agentKey }, "confirmed", now);
  await deps.store.recordOutcome({ kind: "principal", id: intent.principal }, "confirmed", now);
  if (owner.attester !== undefined) {
    await deps.store.recordOutcome({ kind: "attester", id: owner.attester }, "confirmed", now);
  }
  return ok(state);
}
