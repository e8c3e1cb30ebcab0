/**
 * The wire Booking (SchCP §5.3, §5.5), derived from the stored state and the signed offer the
 * booking stands on (its SchCP attachment), and its JSCalendar (RFC 8984) event. The shape is
 * closed: only members the Booking schema defines are set.
 */
import type { HostRuntime } from "../../booking/api.js";
import {
  formatInstant,
  formatSchcpDuration,
  formatWallClock,
  instantToWallClock,
} from "../../protocol/time/index.js";
import type {
  Booking,
  BookingAnswer as WireAnswer,
  BookingEvent,
  DeclinedChange as WireDeclinedChange,
  Place,
  Proposal,
  RefusalError,
} from "../../protocol/schcp/types.js";

type WireParticipant = NonNullable<Booking["participants"]>[number];
import type {
  BookingAnswer,
  BookingEnding,
  BookingState,
  BookingStatus,
  DeclinedChange,
  StoredParticipant,
  StoredProposal,
} from "../../booking/bookings/state.js";
import { schcpOffer, type SchcpOffer } from "./attachment.js";

/** RFC 8984 status of the event: a pending booking is tentative, an ended one stays confirmed. */
const EVENT_STATUS: Record<BookingStatus, BookingEvent["status"]> = {
  pending_host: "tentative",
  tentative: "tentative",
  confirmed: "confirmed",
  completed: "confirmed",
  no_show: "confirmed",
  declined: "cancelled",
  expired: "cancelled",
  cancelled: "cancelled",
};

/** §5.2: "the event's location is its name and address on one line". */
export function placeLine(place: Place): string {
  return [place.name, place.street, place.locality, place.region, place.postal_code, place.country]
    .filter((part): part is string => part !== undefined && part !== "")
    .join(", ");
}

function buildEvent(state: BookingState, host: HostRuntime): BookingEvent {
  const tz = host.config.timezone;
  const serviceName = state.contract.service.name;
  const line = state.place === undefined ? "" : placeLine(state.place);
  return {
    "@type": "Event",
    // Stable for the booking's life, so a calendar updates the same event (RFC 8984 §4.1.2).
    uid: `${state.bookingId}@${state.hostId}`,
    start: formatWallClock(instantToWallClock(state.start, tz)),
    timeZone: tz,
    // An open-ended booking has no length until it is ended (§4.2): RFC 8984's default PT0S.
    duration: formatSchcpDuration(state.end === undefined ? 0 : state.end - state.start),
    title: `${serviceName} — ${host.config.name}`,
    sequence: state.sequence,
    updated: formatInstant(state.updatedAt),
    status: EVENT_STATUS[state.status],
    ...(line !== "" && { locations: { place: { "@type": "Location" as const, name: line } } }),
  };
}

/** The wire proposal; a proposal without a SchCP offer (an edge's own) is not shown. */
export function buildProposal(p: StoredProposal, host: HostRuntime): Proposal | undefined {
  const signed = schcpOffer(p.attachments);
  if (signed === undefined) return undefined;
  const tz = host.config.timezone;
  return {
    proposal_id: p.proposalId,
    by: p.by,
    start: formatInstant(p.start, tz),
    ...(p.end === undefined ? { open_end: true as const } : { end: formatInstant(p.end, tz) }),
    ...(p.place !== undefined && { place: p.place }),
    expires_at: formatInstant(p.expiresAt),
    offer: signed.offer,
    ...(p.awaitingHost === true && { awaiting_host: true as const }),
    ...(p.consent !== undefined && { consent: p.consent }),
  };
}

/** The closed Booking for GET, receipts and webhooks (§5.3: one shape everywhere). */
export function buildBooking(state: BookingState, host: HostRuntime, signed: SchcpOffer): Booking {
  const tz = host.config.timezone;
  const c = signed.claims;
  const proposal = state.proposal === undefined ? undefined : buildProposal(state.proposal, host);
  return {
    booking_id: state.bookingId,
    status: state.status,
    sequence: state.sequence,
    service_id: state.serviceId,
    start: formatInstant(state.start, tz),
    ...(state.end !== undefined && { end: formatInstant(state.end, tz) }),
    ...(state.openEnd === true && { open_end: true as const }),
    // The accepted offer's money terms bind the booking (§5.2 "An accepted offer's terms bind").
    ...(c.price !== undefined && { price: c.price }),
    ...(c.total !== undefined && { total: c.total }),
    ...(c.lines !== undefined && { lines: c.lines }),
    offer_sha256: signed.offerSha256,
    retention: state.contract.retention,
    ...(c.reconfirm !== undefined && { reconfirm: wireReconfirm(c.reconfirm, state) }),
    ...(state.partySize !== undefined && { party_size: state.partySize }),
    ...(state.place !== undefined && { place: state.place }),
    ...(c.resource !== undefined && { resource: c.resource }),
    ...(c.resource_name !== undefined && { resource_name: c.resource_name }),
    ...(state.status === "pending_host" &&
      state.approvalBy !== undefined && { approval_by: formatInstant(state.approvalBy) }),
    ...(state.participants !== undefined &&
      state.participants.length > 0 && { participants: state.participants.map(wireParticipant) }),
    event: buildEvent(state, host),
    ...(state.refusal !== undefined && { refusal: wireRefusal(state.refusal) }),
    ...(proposal !== undefined && { proposal }),
    ...(state.declinedChange !== undefined && {
      declined_change: wireDeclinedChange(state.declinedChange, tz),
    }),
    ...(state.answer !== undefined && { answer: wireAnswer(state.answer) }),
    // §5.12: the contract hash the booking stands on, and its member's acceptance.
    ...(state.meeting !== undefined && {
      meeting: {
        meeting_id: state.meeting.meetingId,
        revision: state.meeting.revision,
        contract_sha256: state.meeting.contractSha256,
        ...(state.meeting.acceptance !== undefined && { acceptance: state.meeting.acceptance }),
        // §5.12 Changing a confirmed meeting: the revision every member has yet to say yes to.
        ...(state.meeting.pendingRevision !== undefined && {
          pending_revision: {
            revision: state.meeting.pendingRevision.terms.revision,
            contract_sha256: state.meeting.pendingRevision.terms.contractSha256,
            expires_at: formatInstant(state.meeting.pendingRevision.expiresAt),
            answered: state.meeting.pendingRevision.answered,
            ...(state.meeting.pendingRevision.acceptance !== undefined && {
              acceptance: state.meeting.pendingRevision.acceptance,
            }),
          },
        }),
      },
    }),
  };
}

/**
 * §5.10: each participant as the booking names them; a named-only one "separately from the
 * signer (status: "not_required")", the booker's reconfirmation with role "booker".
 */
function wireParticipant(p: StoredParticipant): WireParticipant {
  return {
    ...(p.who !== undefined && { who: p.who }),
    ...(p.name !== undefined && { name: p.name }),
    role: p.role,
    ...(p.relationship !== undefined && { relationship: p.relationship }),
    ...(p.confirmBy !== undefined && { confirm_by: formatInstant(p.confirmBy) }),
    ...(p.status !== "not_required" && { default: p.default }),
    status: p.status,
  };
}

/** The offer's reconfirm, with the booker's confirm_by once computed (§5.10). */
function wireReconfirm(
  r: NonNullable<Booking["reconfirm"]>,
  state: BookingState,
): NonNullable<Booking["reconfirm"]> {
  const booker = state.participants?.find((p) => p.role === "booker" && p.confirmBy !== undefined);
  return {
    before: r.before,
    default: r.default,
    ...(booker?.confirmBy !== undefined && { confirm_by: formatInstant(booker.confirmBy) }),
  };
}

/** §9.2: a declined, lapsed or host-cancelled booking carries its refusal (DECLINED, EXPIRED, CANCELLED). */
export const wireRefusal = (e: BookingEnding): RefusalError => ({
  code: e.kind.toUpperCase(),
  reason: e.reason,
  message: e.message,
});

const wireAnswer = (a: BookingAnswer): WireAnswer => ({
  by: a.by,
  ...(a.rule !== undefined && { rule: a.rule }),
  at: formatInstant(a.at),
});

const wireDeclinedChange = (d: DeclinedChange, tz: string): WireDeclinedChange => ({
  ...(d.proposalId !== undefined && { proposal_id: d.proposalId }),
  ...(d.revision !== undefined && { revision: d.revision }),
  start: formatInstant(d.start, tz),
  ...(d.end !== undefined && { end: formatInstant(d.end, tz) }),
  ...(d.place !== undefined && { place: d.place }),
  refusal: wireRefusal(d.ending),
});
