/**
 * WaitlistEntry (SchCP §5.9) and WebhookEvent (§5.8). Both closed; an event's booking, hold
 * and waitlist are the closed Booking, Hold and WaitlistEntry.
 */
import { closed, enumOf, positiveInt, ref } from "./common.js";
import type { Schema } from "./common.js";

const BOOKING_EVENTS = [
  "booking.confirmed",
  "booking.declined",
  "booking.expired",
  "booking.cancelled_by_host",
  "booking.change_proposed",
  "booking.ended",
  "booking.no_show",
  "booking.change_approved",
  "booking.change_declined",
  "booking.response",
  "booking.accepted",
];

export const eventDefs: Record<string, Schema> = {
  /** position is for a waiting entry; hold_id names the offered hold (ours, so a poll finds it). */
  WaitlistEntry: closed(
    {
      waitlist_id: ref("Id"),
      status: enumOf("waiting", "offered", "booked", "left", "lapsed", "expired"),
      service_id: ref("Id"),
      window: ref("TimeWindow"),
      position: positiveInt,
      created_at: ref("DateTime"),
      party_size: positiveInt,
      place: ref("Place"),
      hold_id: ref("Id"),
    },
    ["waitlist_id", "status", "service_id", "window", "created_at"],
  ),
  WebhookEvent: {
    ...closed(
      {
        event_id: ref("Id"),
        type: enumOf(...BOOKING_EVENTS, "hold.expired", "waitlist.offered"),
        host_id: ref("Id"),
        occurred_at: ref("DateTime"),
        booking: ref("Booking"),
        receipt: ref("CompactJws"),
        hold: ref("Hold"),
        waitlist: ref("WaitlistEntry"),
        alternatives: { type: "array", items: ref("Slot") },
        refusal: ref("RefusalError"),
      },
      ["event_id", "type", "host_id", "occurred_at"],
    ),
    // "Every booking.* event carries a signed receipt of the booking as it now stands";
    // hold.expired carries the hold, waitlist.offered the hold and the entry (§5.8, §5.9).
    allOf: [
      {
        if: { properties: { type: { enum: BOOKING_EVENTS } } },
        then: { required: ["booking", "receipt"], properties: { hold: false, waitlist: false } },
      },
      {
        if: { properties: { type: { const: "hold.expired" } } },
        then: { required: ["hold"], properties: { booking: false, receipt: false, waitlist: false } },
      },
      {
        if: { properties: { type: { const: "waitlist.offered" } } },
        then: { required: ["hold", "waitlist"], properties: { booking: false, receipt: false } },
      },
    ],
  },
};
