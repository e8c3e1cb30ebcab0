/**
 * The core's one step on the public booking pool (port.ts): a place is taken in the store's
 * atomic count-and-add, so a hundred parallel bookings cannot all pass a check of zero. The
 * hold engine takes it right after the allocation (holds/create-hold.ts), so an attempt that
 * lost the slot uses no place, and gives the time straight back when it gets none. When a
 * cap is reached, the places counted
 * against it are checked against the hold store, and those whose hold or booking has ended
 * (released, expired, cancelled, declined, lapsed, past) are freed before a second, final
 * take. This is how every way a booking ends frees its place, whichever process or job
 * ended it, without each of them knowing about the pool.
 */
import { createHash } from "node:crypto";
import type { HoldStore } from "../../holds/port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingRefusal, Caller, HostRuntime } from "../api.js";
import { bookingRefusal } from "../rules/index.js";
import { DEFAULT_POOL_CAPS, type HeldPlace, type PoolCaps, type PublicPoolStore } from "./port.js";

/** A place younger than this may belong to a hold about to be placed: never pruned. */
const PLACE_GRACE_MS = 120_000;
/**
 * The hold stores keep an ended hold's record for days (7 by default) before forgetting it.
 * A place whose hold is unknown is therefore one never placed (a crash between the take and
 * the hold) only while it is younger than this; an older one may be a booking whose hold
 * record was forgotten, and keeps its place until its time ends.
 */
const HOLD_RECORD_KEPT_MS = 86_400_000;

const neverPlaced = (place: HeldPlace, now: number): boolean =>
  now - place.takenAt > PLACE_GRACE_MS && now - place.takenAt < HOLD_RECORD_KEPT_MS;
/** The longest Retry-After a refusal gives (SchCP §9's example for this refusal: PT60S). */
const MAX_RETRY_MS = 60_000;

const poolCaps = (host: HostRuntime): PoolCaps => host.config.policies.publicBooking ?? DEFAULT_POOL_CAPS;

/** The caller's origin as the pool counts it: a hash, so no network address is stored. */
function originTag(caller: Caller): string {
  const origin = caller.origin ?? caller.agentKey;
  return createHash("sha256").update(origin).digest("base64url").slice(0, 22);
}

export interface PlaceRequest {
  readonly holdId: string;
  readonly caller: Caller;
  /** Epoch ms: the end of the time the hold would take. */
  readonly until: number;
  readonly now: number;
}

export async function takePublicPlace(
  pool: PublicPoolStore,
  store: Pick<HoldStore, "getHold" | "getBooking">,
  host: HostRuntime,
  req: PlaceRequest,
): Promise<Result<void, BookingRefusal>> {
  const hostId = host.config.id;
  const caps = poolCaps(host);
  const place = { id: req.holdId, origin: originTag(req.caller), until: req.until };
  let out = await pool.take(hostId, place, caps, req.now);
  if (out.ok) return ok(undefined);
  const ended = await endedPlaces(store, hostId, out.error.places, req.now);
  if (ended.length > 0) {
    await pool.release(hostId, ended, req.now);
    out = await pool.take(hostId, place, caps, req.now);
    if (out.ok) return ok(undefined);
  }
  const full = out.error;
  const retryAfterMs = Math.min(MAX_RETRY_MS, Math.max(1_000, full.earliestUntil - req.now));
  return err(
    bookingRefusal("hold_limit", {
      reason: "new_guest_pool_full",
      message:
        full.scope === "origin"
          ? "too many bookings from new guests through this network origin at this host right now; try again later"
          : "too many bookings from new guests at this host right now; try again later",
      basis: {
        policy: full.scope === "origin" ? "public_booking.max_per_origin" : "public_booking.max_per_host",
        limit: full.limit,
      },
      retryAfterMs,
    }),
  );
}

/** The places whose hold, or the booking made from it, no longer takes time. */
async function endedPlaces(
  store: Pick<HoldStore, "getHold" | "getBooking">,
  hostId: string,
  places: readonly HeldPlace[],
  now: number,
): Promise<string[]> {
  const checked = await Promise.all(
    places.map(async (p) => ((await hasEnded(store, hostId, p, now)) ? p.id : undefined)),
  );
  return checked.filter((id): id is string => id !== undefined);
}

async function hasEnded(
  store: Pick<HoldStore, "getHold" | "getBooking">,
  hostId: string,
  place: HeldPlace,
  now: number,
): Promise<boolean> {
  const hold = await store.getHold(hostId, place.id, now);
  if (hold === undefined) return neverPlaced(place, now);
  switch (hold.state) {
    case "held":
    case "confirming":
      return false;
    case "expired":
    case "released":
      return true;
    case "booked": {
      if (hold.bookingId === undefined) return false;
      const booking = await store.getBooking(hostId, hold.bookingId);
      if (booking === undefined) return false;
      return booking.state === "released" || booking.interval.end <= now;
    }
  }
}
