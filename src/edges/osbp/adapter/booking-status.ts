/**
 * booking.status answers from a fresh platform read every time (OSBP "booking.status": "adapters
 * should use it for status answers that claim current platform state"); this maps the
 * platform's appointment into the OSBP Booking.
 */
import type { BookingState } from "../../../booking/bookings/state.js";
import type { Catalog } from "../../../booking/catalog.js";
import type { UpstreamBooking, UpstreamStatus } from "../../../booking/upstream.js";
import type { Booking, BookingStatus } from "../../../protocol/osbp/index.js";
import { scheduleIdOf } from "./catalog-facts.js";
import { instantText, knownZone, localWall, wallText } from "./local-time.js";

const STATUS: Readonly<Record<UpstreamStatus, BookingStatus>> = {
  // A tentative appointment waits for the merchant: not yet booked.
  tentative: "pending",
  confirmed: "booked",
  cancelled: "cancelled",
  completed: "completed",
  no_show: "no_show",
  unknown: "unknown",
};

/** The platform's status in OSBP terms; anything unclassifiable is "unknown", never "booked". */
const bookingStatusOf = (s: UpstreamStatus): BookingStatus => STATUS[s] ?? "unknown";

/**
 * The core's booking with the platform's fresh answer: the core knows whether the host has
 * decided (a pending_host booking is "pending" whatever the platform shows) and when it ended;
 * a confirmed booking's current state is the platform's.
 */
function statusOf(state: BookingState, upstream: UpstreamBooking): BookingStatus {
  switch (state.status) {
    case "pending_host":
    case "tentative":
      return "pending";
    case "declined":
    case "expired":
    case "cancelled":
      return "cancelled";
    case "completed":
      return "completed";
    case "no_show":
      return "no_show";
    case "confirmed":
      return bookingStatusOf(upstream.status) === "pending" ? "booked" : bookingStatusOf(upstream.status);
  }
}

export function toBooking(catalog: Catalog, state: BookingState, b: UpstreamBooking): Booking {
  const out: Booking = {
    id: state.bookingId,
    status: statusOf(state, b),
    service_id: b.serviceId,
    schedule_id: scheduleIdOf(catalog),
  };
  const staff = new Set(catalog.resources.filter((r) => r.staff === true).map((r) => r.id));
  const provider = b.resourceIds.find((id) => staff.has(id));
  if (provider !== undefined) out.provider_id = provider;
  out.starts_at = instantText(b.start);
  if (b.end !== undefined) out.ends_at = instantText(b.end);
  const zone = catalog.organization.timezone;
  // Instants are the platform's own; local times need the zone and are left out without it.
  if (knownZone(zone)) {
    out.starts_at_local = wallText(localWall(b.start, zone));
    if (b.end !== undefined) out.ends_at_local = wallText(localWall(b.end, zone));
    out.schedule_timezone = zone;
  }
  return out;
}
