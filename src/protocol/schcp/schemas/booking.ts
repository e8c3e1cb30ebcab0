/**
 * The Booking (SchCP §5.3, §5.5) and everything it carries. Closed at every depth: GET
 * /bookings/{id}, receipts and webhooks all carry this one shape (§5.3, §5.8).
 *
 * The event is a JSCalendar (RFC 8984) Event holding only the properties listed here (our
 * choice of "the RFC 8984 properties the schema lists", §5.3): @type, uid, start, timeZone,
 * duration, title, sequence, updated, status, and locations for a booking with a place (§5.2
 * "the event's location is its name and address on one line").
 */
import { closed, enumOf, nonNegativeInt, positiveInt, ref, str, trueOnly } from "./common.js";
import type { Schema } from "./common.js";

/** RFC 8984 Duration: nW alone, or days and a time part (no weeks mixed in, unlike §2.1). */
const JSCALENDAR_DURATION =
  "^P(?:[0-9]+W|(?=[0-9]|T[0-9])(?:[0-9]+D)?(?:T(?=[0-9])(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\\.[0-9]+)?S)?)?)$";

const priceLinesTotal: Schema = {
  // As in the offer the booking stands on (§5.2): price ⇒ total and lines; total ⇔ lines.
  dependentRequired: { price: ["total", "lines"], total: ["lines"], lines: ["total"] },
};

export const bookingDefs: Record<string, Schema> = {
  BookingEvent: closed(
    {
      "@type": { const: "Event" },
      uid: str,
      start: { type: "string", format: "local-date-time" },
      timeZone: ref("TimeZone"),
      duration: { type: "string", pattern: JSCALENDAR_DURATION },
      title: str,
      sequence: nonNegativeInt,
      // RFC 8984 UTCDateTime: a date-time in UTC, written with Z.
      updated: { type: "string", format: "date-time", pattern: "Z$" },
      status: enumOf("confirmed", "tentative", "cancelled"),
      locations: {
        type: "object",
        minProperties: 1,
        propertyNames: { pattern: "^[A-Za-z0-9_-]+$" },
        additionalProperties: closed({ "@type": { const: "Location" }, name: str }, ["@type", "name"]),
      },
    },
    ["@type", "uid", "start", "timeZone", "duration", "title", "sequence", "updated", "status"],
  ),
  /**
   * §5.10 participants as the booking shows them. "not_required" is the spec's; pending,
   * accepted and declined are our names for a required participant's answer so far.
   */
  Participant: {
    ...closed(
      {
        who: ref("PrincipalId"),
        name: str,
        role: enumOf("attendee", "invitee", "booker"),
        relationship: str,
        confirm_by: ref("DateTime"),
        default: enumOf("release", "keep"),
        status: enumOf("pending", "accepted", "declined", "not_required"),
      },
      ["role", "status"],
    ),
    anyOf: [{ required: ["who"] }, { required: ["name"] }],
  },
  ReceiptConsent: closed(
    {
      approved: enumOf("offer", "contract", "limits"),
      mandate: ref("Id"),
      mode: enumOf("human_present", "human_not_present"),
    },
    ["approved", "mandate"],
  ),
  /** An open change offer, or a guest's accepted move awaiting the host (§5.7, §5.8). */
  Proposal: {
    ...closed(
      {
        proposal_id: ref("Id"),
        by: enumOf("guest", "host"),
        start: ref("DateTime"),
        end: ref("DateTime"),
        open_end: trueOnly,
        place: ref("Place"),
        expires_at: ref("DateTime"),
        offer: ref("CompactJws"),
        awaiting_host: trueOnly,
        consent: ref("ReceiptConsent"),
      },
      ["proposal_id", "by", "start", "expires_at", "offer"],
    ),
    if: { required: ["open_end"] },
    then: { properties: { end: false } },
  },
  /** The guest's last move the host declined, or a dropped meeting revision (§5.7, §5.12). */
  DeclinedChange: closed(
    {
      proposal_id: ref("Id"),
      revision: positiveInt,
      start: ref("DateTime"),
      end: ref("DateTime"),
      place: ref("Place"),
      refusal: ref("RefusalError"),
    },
    ["start", "refusal"],
  ),
  /** Who said yes (§7.9): a rule's answer names the rule's label, no other does. */
  BookingAnswer: {
    ...closed({ by: enumOf("host", "person", "rule"), rule: str, at: ref("DateTime") }, ["by", "at"]),
    if: { properties: { by: { const: "rule" } } },
    then: { required: ["rule"] },
    else: { properties: { rule: false } },
  },
  PendingRevision: closed(
    {
      revision: positiveInt,
      contract_sha256: ref("Sha256"),
      expires_at: ref("DateTime"),
      answered: { type: "boolean" },
      acceptance: ref("CompactJws"),
    },
    ["revision", "contract_sha256", "expires_at", "answered"],
  ),
  BookingMeeting: closed(
    {
      meeting_id: ref("Id"),
      revision: positiveInt,
      contract_sha256: ref("Sha256"),
      acceptance: ref("CompactJws"),
      pending_revision: ref("PendingRevision"),
    },
    ["meeting_id", "revision", "contract_sha256"],
  ),
  Booking: {
    ...closed(
      {
        booking_id: ref("Id"),
        status: enumOf(
          "pending_host",
          "tentative",
          "confirmed",
          "declined",
          "expired",
          "cancelled",
          "completed",
          "no_show",
        ),
        sequence: nonNegativeInt,
        service_id: ref("Id"),
        start: ref("DateTime"),
        end: ref("DateTime"),
        open_end: trueOnly,
        price: ref("Money"),
        total: ref("Money"),
        lines: { type: "array", items: ref("OfferLine"), minItems: 1 },
        // null: made outside SchCP, so no contract (§5.3).
        offer_sha256: { anyOf: [{ type: "null" }, ref("Sha256")] },
        retention: ref("Retention"),
        reconfirm: ref("Reconfirm"),
        party_size: positiveInt,
        place: ref("Place"),
        resource: ref("Id"),
        resource_name: str,
        approval_by: ref("DateTime"),
        participants: { type: "array", items: ref("Participant") },
        event: ref("BookingEvent"),
        refusal: ref("RefusalError"),
        proposal: ref("Proposal"),
        declined_change: ref("DeclinedChange"),
        answer: ref("BookingAnswer"),
        meeting: ref("BookingMeeting"),
      },
      ["booking_id", "status", "sequence", "service_id", "start", "offer_sha256", "event"],
    ),
    ...priceLinesTotal,
    // §4.2: an open-ended booking has no end until the host ends it (status completed);
    // every other booking has one.
    if: { required: ["open_end"] },
    then: {
      if: { properties: { status: { const: "completed" } } },
      else: { properties: { end: false } },
    },
    else: { required: ["end"] },
  },
};
