/**
 * Square bookings behind the BookingPort (Bookings API: CreateBooking, RetrieveBooking,
 * UpdateBooking, CancelBooking, ListBookings).
 *
 * Create, idempotent by the gateway's key (derived from the hold):
 * 1. A booking already made under the key is answered as is: the key is written into the
 *    booking's seller_note (`[gateway-key:…]`, visible to the seller only) and the bookings
 *    starting at that time are listed. A retried create after its first answer came back (or was
 *    lost) therefore returns the same booking without asking for availability it now holds.
 * 2. The time is checked with SearchAvailability for the service (and the team member asked
 *    for): Square lets seller-level writes double-book, so a time it does not offer is refused
 *    here as slot_taken, never booked. Without a team member asked for, the first free one by id
 *    is taken, so concurrent first attempts of one key send the very same request.
 * 3. CreateBooking with `idempotency_key` = the gateway's key. Square answers the same booking to
 *    the same key and request (its idempotency contract), which covers concurrent first attempts;
 *    IDEMPOTENCY_KEY_REUSED (same key, other request) falls back to the key lookup.
 * findByIdempotencyKey (reconciliation after a lost answer, when the request is not at hand) lists
 * the location's bookings from a day ago to `lookaheadDays` ahead, 31 days per ListBookings call,
 * and matches the key in seller_note. Where the create request IS at hand, retrying the create
 * with the same key is the cheaper path: step 1 or Square's replay answers the booking made.
 *
 * Move = RetrieveBooking (version) + availability check + UpdateBooking with that version.
 * Cancel = RetrieveBooking + CancelBooking with `booking_version`; an already cancelled booking
 * is answered as it is. Square has no API to accept a pending booking or mark a no-show, so
 * setStatus does "cancelled" (and "confirmed" of an accepted booking) and answers unsupported
 * otherwise; for the same reason a tentative create is unsupported (the gateway keeps host
 * approval itself and creates upstream once approved).
 */
import type { Square, SquareClient } from "square";
import type {
  BookingMove,
  ConnectorResult,
  UpstreamBooking,
  UpstreamCreate,
  UpstreamStatus,
} from "../port.js";
import { searchAvailability, type SquareAvailability } from "./availability.js";
import { DAY, findByKey, sellerNote, upstreamBookingOf } from "./booking-read.js";
import type { SquareApi } from "./client.js";
import { Refusal, UnreadableAnswer } from "./errors.js";
import { int, optionalInt, rfc3339 } from "./read.js";

// Code-point order, the same in every process (localeCompare depends on the runtime's locale).
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A free start at exactly `start` for one of `teamMemberIds` (any when empty), or SlotUnavailable. */
async function freeAt(
  client: SquareClient,
  locationId: string,
  serviceId: string,
  start: number,
  teamMemberIds: readonly string[],
  now: number,
  prefer?: string,
): Promise<SquareAvailability> {
  const found = await searchAvailability(
    client,
    locationId,
    {
      serviceId,
      range: { start, end: start + 1 },
      ...(teamMemberIds.length > 0 ? { resourceIds: teamMemberIds } : {}),
    },
    now,
  );
  const at = found
    .filter(
      (a) => a.start === start && (teamMemberIds.length === 0 || teamMemberIds.includes(a.teamMemberId)),
    )
    .sort((a, b) =>
      a.teamMemberId === prefer
        ? -1
        : b.teamMemberId === prefer
          ? 1
          : byCodePoint(a.teamMemberId, b.teamMemberId),
    );
  const pick = at[0];
  if (pick === undefined)
    throw new Refusal("slot_taken", 409, "Square does not offer that time for this service any more");
  return pick;
}

/** The service variation's current version, when the availability answer did not carry it. */
async function versionOf(client: SquareClient, a: SquareAvailability, serviceId: string): Promise<number> {
  if (a.serviceVariationVersion !== undefined) return a.serviceVariationVersion;
  const object = (await client.catalog.object.get({ objectId: serviceId })).object;
  return int(object?.version, "service variation version");
}

function segment(serviceId: string, a: SquareAvailability, version: number): Square.AppointmentSegment {
  return {
    teamMemberId: a.teamMemberId,
    serviceVariationId: serviceId,
    serviceVariationVersion: BigInt(version),
    durationMinutes: Math.round(a.durationMs / 60_000),
  };
}

function isKeyReused(error: unknown): boolean {
  const list: unknown = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(list) && list.some((x) => (x as { code?: unknown }).code === "IDEMPOTENCY_KEY_REUSED");
}

export function squareBookings(api: SquareApi) {
  const { locationId } = api.settings;
  const lookaheadMs = (api.settings.lookaheadDays ?? 93) * DAY;

  async function retrieve(client: SquareClient, id: string): Promise<Square.Booking> {
    const b = (await client.bookings.get({ bookingId: id })).booking;
    if (b === undefined) throw new UnreadableAnswer("the booking is missing");
    // Another location's booking is not this host's: answered as Square answers an unknown id.
    if (b.locationId !== locationId) throw new Refusal("not_found", 404, "no such booking at this location");
    return b;
  }

  const cancel = (upstreamId: string): Promise<ConnectorResult<UpstreamBooking>> =>
    api.call(`POST /v2/bookings/${encodeURIComponent(upstreamId)}/cancel`, async (client) => {
      const current = await retrieve(client, upstreamId);
      if (upstreamBookingOf(current).status === "cancelled") return upstreamBookingOf(current);
      const bookingVersion = optionalInt(current.version, "booking version");
      const cancelled = await client.bookings.cancel({
        bookingId: upstreamId,
        idempotencyKey: `cancel:${upstreamId}:${bookingVersion ?? 0}`,
        ...(bookingVersion === undefined ? {} : { bookingVersion }),
      });
      if (cancelled.booking === undefined) throw new UnreadableAnswer("CancelBooking answered no booking");
      return upstreamBookingOf(cancelled.booking);
    });

  return {
    async create(request: UpstreamCreate): Promise<ConnectorResult<UpstreamBooking>> {
      if (request.tentative)
        return {
          ok: false,
          error: { code: "unsupported", message: "Square's API cannot hold a booking for host approval" },
        };
      return api.call("POST /v2/bookings", async (client) => {
        const { idempotencyKey: key, start } = request;
        const madeUnderKey = () => findByKey(client, locationId, key, start - 60_000, start + 60_000);
        const replay = await madeUnderKey();
        if (replay !== null) return replay;
        let free: SquareAvailability;
        try {
          free = await freeAt(client, locationId, request.serviceId, start, request.resourceIds, api.now());
        } catch (error) {
          // A concurrent attempt of this very key may have booked the time between the lookup
          // and the availability answer: that booking is this create's answer, not a taken slot.
          const late = error instanceof Refusal ? await madeUnderKey() : null;
          if (late === null) throw error;
          return late;
        }
        const version = await versionOf(client, free, request.serviceId);
        try {
          const answer = await client.bookings.create({
            idempotencyKey: key,
            booking: {
              locationId,
              startAt: rfc3339(start),
              sellerNote: sellerNote(request),
              appointmentSegments: [segment(request.serviceId, free, version)],
            },
          });
          if (answer.booking === undefined) throw new UnreadableAnswer("CreateBooking answered no booking");
          return upstreamBookingOf(answer.booking);
        } catch (error) {
          if (!isKeyReused(error)) throw error;
          const again = await madeUnderKey();
          if (again === null) throw error;
          return again;
        }
      });
    },

    get(upstreamId: string) {
      return api.call(`GET /v2/bookings/${encodeURIComponent(upstreamId)}`, async (client) =>
        upstreamBookingOf(await retrieve(client, upstreamId)),
      );
    },

    findByIdempotencyKey(key: string) {
      const now = api.now();
      return api.call("GET /v2/bookings", (client) =>
        findByKey(client, locationId, key, now - DAY, now + lookaheadMs),
      );
    },

    move(upstreamId: string, change: BookingMove) {
      return api.call(`PUT /v2/bookings/${encodeURIComponent(upstreamId)}`, async (client) => {
        const current = await retrieve(client, upstreamId);
        const was = upstreamBookingOf(current);
        if (was.status === "cancelled")
          throw new Refusal("invalid_request", 400, "a cancelled booking cannot be moved");
        const free = await freeAt(
          client,
          locationId,
          was.serviceId,
          change.start,
          change.resourceIds,
          api.now(),
          was.resourceIds[0],
        );
        const version = await versionOf(client, free, was.serviceId);
        const bookingVersion = int(current.version, "booking version");
        const updated = await client.bookings.update({
          bookingId: upstreamId,
          // A retried move of the same version to the same time is one change.
          idempotencyKey: `move:${upstreamId}:${bookingVersion}:${change.start}`,
          booking: {
            version: bookingVersion,
            startAt: rfc3339(change.start),
            appointmentSegments: [segment(was.serviceId, free, version)],
          },
        });
        if (updated.booking === undefined) throw new UnreadableAnswer("UpdateBooking answered no booking");
        return upstreamBookingOf(updated.booking);
      });
    },

    // Square's CancelBooking has no reason field; the reason stays in the gateway's records.
    cancel: (upstreamId: string, _reason?: string) => cancel(upstreamId),

    setStatus(upstreamId: string, status: UpstreamStatus): Promise<ConnectorResult<UpstreamBooking>> {
      if (status === "cancelled") return cancel(upstreamId);
      if (status !== "confirmed")
        return Promise.resolve({
          ok: false,
          error: { code: "unsupported", message: `Square's API cannot set a booking ${status}` },
        });
      return api.call(`GET /v2/bookings/${encodeURIComponent(upstreamId)}`, async (client) => {
        const b = upstreamBookingOf(await retrieve(client, upstreamId));
        if (b.status !== "confirmed")
          throw new Refusal(
            "invalid_request",
            400,
            "Square's API cannot accept a pending booking; the seller accepts it in Square",
          );
        return b;
      });
    },
  };
}
