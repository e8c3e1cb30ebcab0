/**
 * The operator's list of a host's bookings, newest first, a page at a time (through the
 * BookingIndex, api.ts): each page is one read of the store, whatever its size, and a walk
 * from no cursor to no nextCursor sees every booking once.
 */
import type { BookingDeps, BookingListRequest, BookingViewPage, UseCase } from "../api.js";
import { isBookingCursor, MAX_BOOKING_PAGE } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import { bookingView, type BookingView } from "../view.js";
import { notFound, refuse } from "../bookings/refuse.js";
import { decodeOrThrow } from "../bookings/state.js";
import { storeBookingIndex } from "../bookings/booking-index.js";

const BOOKING_PAGE_DEFAULT = 50;
/** The list's largest page and its cursor check, as the store keeps them, for the edges that read a list's query. */
export { isBookingCursor, MAX_BOOKING_PAGE };

/** The newest page, as the list has always been answered (the first of pageBookings' pages). */
export async function listBookings(deps: BookingDeps, hostId: string): UseCase<readonly BookingView[]> {
  const page = await pageBookings(deps, hostId, { limit: MAX_BOOKING_PAGE });
  return page.ok ? ok(page.value.bookings) : page;
}

export async function pageBookings(
  deps: BookingDeps,
  hostId: string,
  request: BookingListRequest,
): UseCase<BookingViewPage> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const limit = request.limit ?? BOOKING_PAGE_DEFAULT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_BOOKING_PAGE)
    return err(invalid("limit", `limit must be a whole number from 1 to ${MAX_BOOKING_PAGE}`));
  if (request.cursor !== undefined && !isBookingCursor(request.cursor))
    return err(invalid("cursor", "cursor is not one this list handed out"));
  for (const [field, bound] of [
    ["from", request.from],
    ["to", request.to],
  ] as const)
    if (bound !== undefined && !Number.isSafeInteger(bound))
      return err(invalid(field, `${field} must be an instant`));
  const index = deps.bookingIndex ?? storeBookingIndex(deps.store);
  const page = await index.page(hostId, {
    limit,
    ...(request.cursor !== undefined && { cursor: request.cursor }),
    ...(request.status !== undefined && { status: request.status }),
    ...(request.from !== undefined && { from: request.from }),
    ...(request.to !== undefined && { to: request.to }),
  });
  const now = deps.clock.now();
  return ok({
    bookings: page.bookings.map((r) => bookingView(decodeOrThrow(r.payload, r.bookingId), now)),
    ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
  });
}

const invalid = (field: string, message: string) =>
  refuse("invalid_request", "invalid_request", message, { details: { field } });
