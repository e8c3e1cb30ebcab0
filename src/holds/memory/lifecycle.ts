/**
 * MemoryHoldStore's hold lifecycle (SchCP §5.3, §5.4, §6): release, the fenced and leased
 * confirming state, and the reconciler's claim on holds whose lease ended.
 */
import type {
  NewBooking,
  BookingRecord,
  HoldRecord,
  HoldState,
  ReleaseResult,
  Transition,
  TransitionRefusal,
} from "../port.js";
import type { HostState, StoredHold } from "./host-state.js";
import type { Ok } from "../../protocol/result.js";

type Refused = Extract<Transition<never>, { ok: false }>;

export const done = <T>(value: T): Transition<T> => ({ ok: true, value });
export const refused = (reason: TransitionRefusal, hold?: HoldRecord): Refused => ({
  ok: false,
  error: hold === undefined ? { reason } : { reason, hold },
});

/** The refusal for a hold that is not in the state an operation needs. */
export function stateRefusal(hold: HoldRecord): Refused {
  const byState: Record<HoldState, TransitionRefusal> = {
    held: "invalid_state",
    confirming: "confirming",
    booked: "booked",
    released: "released",
    expired: "expired",
  };
  return refused(byState[hold.state], hold);
}

/** The stored hold, expired first when it has lapsed (so the expiry is reported once). */
function current(host: HostState, holdId: string, now: number): StoredHold | undefined {
  const stored = host.holds.get(holdId);
  if (stored === undefined) return undefined;
  const r = stored.record;
  if (r.state === "held" && r.expiresAt <= now) host.expire(stored);
  return host.holds.get(holdId);
}

const put = (
  host: HostState,
  stored: StoredHold,
  record: HoldRecord,
  lastFence = stored.lastFence,
): HoldRecord => {
  host.holds.set(record.holdId, { ...stored, record, lastFence });
  if (record.state === "held" || record.state === "confirming") host.live.add(record.holdId);
  else host.live.delete(record.holdId);
  return record;
};

/** Strips the confirm lease from a record leaving the confirming state. */
const withoutConfirm = (r: HoldRecord): HoldRecord => {
  const { confirm: _confirm, ...rest } = r;
  return rest;
};

/** §5.4 idempotent release; §7.2 the last fifth of the TTL counts as an expiry. */
export function releaseHold(host: HostState, holdId: string, now: number): Transition<ReleaseResult> {
  const stored = current(host, holdId, now);
  if (stored === undefined) return refused("not_found");
  const r = stored.record;
  if (r.state === "released" || r.state === "expired")
    return done({ hold: r, countsAsExpiry: false, changed: false });
  if (r.state !== "held") return stateRefusal(r);
  // now ≥ expiresAt − ttl/5, in integers: 5·now ≥ 5·expiresAt − ttl.
  const countsAsExpiry = 5 * now >= 5 * r.expiresAt - r.ttlMs;
  const hold = put(host, stored, { ...r, state: "released", endedAt: now });
  return done({ hold, countsAsExpiry, changed: true });
}

export function beginConfirm(
  host: HostState,
  holdId: string,
  now: number,
  leaseMs: number,
): Transition<{ hold: HoldRecord; fence: number }> {
  const stored = current(host, holdId, now);
  if (stored === undefined) return refused("not_found");
  if (stored.record.state !== "held") return stateRefusal(stored.record);
  const fence = stored.lastFence + 1;
  const hold = put(
    host,
    stored,
    { ...stored.record, state: "confirming", confirm: { fence, leaseUntil: now + leaseMs } },
    fence,
  );
  return done({ hold, fence });
}

/** The confirming hold under `fence`, or why not. */
function fenced(host: HostState, holdId: string, fence: number, now: number): Ok<StoredHold> | Refused {
  const stored = current(host, holdId, now);
  if (stored === undefined) return refused("not_found");
  const r = stored.record;
  if (r.state !== "confirming") return stateRefusal(r);
  if (r.confirm?.fence !== fence) return refused("stale_fence", r);
  return { ok: true, value: stored };
}

export function completeConfirm(
  host: HostState,
  holdId: string,
  fence: number,
  booking: NewBooking,
  now: number,
): Transition<BookingRecord> {
  const f = fenced(host, holdId, fence, now);
  if (!f.ok) return f;
  const stored = f.value;
  if (host.bookings.has(booking.bookingId)) return refused("invalid_state", stored.record);
  const r = stored.record;
  const record: BookingRecord = {
    hostId: r.hostId,
    bookingId: booking.bookingId,
    holdId: r.holdId,
    serviceId: r.serviceId,
    interval: r.interval,
    owner: r.owner,
    allocations: r.allocations,
    state: "active",
    payload: booking.payload,
  };
  // One synchronous step: the time passes from the hold to the booking with no gap.
  host.putBooking({
    record,
    types: stored.types,
    indexed: true,
    locks: stored.pool,
    ...(booking.index !== undefined && { index: booking.index }),
  });
  put(host, stored, { ...withoutConfirm(r), state: "booked", bookingId: record.bookingId, endedAt: now });
  return done(record);
}

export function abortConfirm(
  host: HostState,
  holdId: string,
  fence: number,
  disposition: "release" | "held",
  now: number,
): Transition<HoldRecord> {
  const f = fenced(host, holdId, fence, now);
  if (!f.ok) return f;
  const stored = f.value;
  const r = withoutConfirm(stored.record);
  if (disposition === "release") return done(put(host, stored, { ...r, state: "released", endedAt: now }));
  const back = put(host, stored, { ...r, state: "held" });
  // Its original expiry may have passed while it was confirming: then it lapses now.
  return done(back.expiresAt <= now ? host.expire(host.holds.get(holdId) ?? stored) : back);
}

/** Re-fences up to `limit` confirming holds whose lease ended, oldest lease first. */
export function claimStuckConfirming(
  host: HostState,
  now: number,
  leaseMs: number,
  limit: number,
): Array<{ hold: HoldRecord; fence: number }> {
  const stuck: StoredHold[] = [];
  for (const id of host.live) {
    const h = host.holds.get(id);
    if (
      h?.record.state === "confirming" &&
      h.record.confirm !== undefined &&
      h.record.confirm.leaseUntil <= now
    )
      stuck.push(h);
  }
  stuck.sort((a, b) => (a.record.confirm?.leaseUntil ?? 0) - (b.record.confirm?.leaseUntil ?? 0));
  return stuck.slice(0, Math.max(0, limit)).map((h) => {
    const fence = h.lastFence + 1;
    const hold = put(host, h, { ...h.record, confirm: { fence, leaseUntil: now + leaseMs } }, fence);
    return { hold, fence };
  });
}
