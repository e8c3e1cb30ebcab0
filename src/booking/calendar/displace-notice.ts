/**
 * What the host is told of a booking the gateway could neither move nor offer to move (SchCP
 * §5.8: "Bookings with neither are reported to the host as unresolved"). Plain text, complete
 * on its own (an SMS carries it); the runtime addresses it to the host's approver.
 */
import type { OutgoingMessage } from "../approval/notify.js";
import { describeGuest, type Guest } from "../bookings/guest.js";
import { readableSpan } from "../../protocol/time/index.js";

/** A message to the host before the runtime addresses it (to the host's approver). */
export type UnaddressedMessage = Omit<OutgoingMessage, "to">;

const REASONS: Readonly<Record<string, string>> = {
  no_free_time: "no other unit is free then and no other time is free nearby",
  offer_not_accepted: "the guest did not accept the new time offered",
  awaiting_approval: "it is still waiting for your answer: decline it, or approve it if the time works",
  guest_change_open: "the guest is asking to move it; answer that first",
  already_started: "it has already started",
  meeting_confirmed:
    "it is a meeting every member has said yes to: keep it, or back out of it (cancel) so the others learn it is off",
  meeting_not_declined:
    "it is part of a meeting not yet final and could not be declined: decline it yourself",
};

export function unresolvedNotice(n: {
  readonly hostId: string;
  readonly hostName: string;
  readonly zone: string;
  readonly bookingId: string;
  readonly serviceName: string;
  readonly start: number;
  readonly end?: number;
  readonly resourceId: string;
  readonly reason: string;
  /** Who the booking is for, while its record keeps them (bookings/guest.ts). */
  readonly guest?: Guest;
}): UnaddressedMessage {
  // On the host's clock, the zone named: the message is read wherever the approver is.
  const when = readableSpan(n.start, n.end, n.zone);
  const why = REASONS[n.reason] ?? n.reason;
  return {
    hostId: n.hostId,
    key: `displaced:${n.hostId}:${n.bookingId}:${n.start}:${n.reason}`,
    subject: `Calendar conflict: ${n.serviceName}, ${when}`,
    text:
      `${n.hostName}: your calendar is now busy over a booking made through the gateway ` +
      `(${n.resourceId}), and it could not be resolved: ${why}.\n` +
      `${n.serviceName}, ${when}. Booking ${n.bookingId}` +
      (n.guest !== undefined ? `, for ${describeGuest(n.guest)}` : "") +
      `.\n` +
      "Free the time in your calendar, or move or cancel the booking from the operator API.",
  };
}
