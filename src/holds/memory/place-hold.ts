/**
 * MemoryHoldStore.placeHold: lazy expiry, caps, reserve, allocation and alternatives in
 * one synchronous step (no await inside), the in-process twin of the Redis Lua script.
 */
import { decideAllocation, type OccupancyOf } from "../allocation.js";
import type { HoldCaps, HoldOutcome, HoldOwner, HoldRecord, HoldRefusal, PlaceHoldRequest } from "../port.js";
import type { HostState, Pool } from "./host-state.js";

const MAX_ALTERNATIVES = 5;

type Refusal = Extract<HoldOutcome, { ok: false }>;

/** §7.2: proven principals draw on no pool; honoured attesters' vouchees on theirs (§7.5). */
function poolOf(owner: HoldOwner, caps: HoldCaps): Pool {
  if (owner.principal !== null && caps.principalProven) return { kind: "proven" };
  return owner.attester !== undefined ? { kind: "attester", id: owner.attester } : { kind: "unproven" };
}

const samePool = (a: Pool, b: Pool): boolean =>
  a.kind === b.kind && (a.kind !== "attester" || (b.kind === "attester" && a.id === b.id));

/** Caps in a fixed order: agent, pool, mandate links (§7.1, §7.2). */
function capRefusal(host: HostState, request: PlaceHoldRequest, pool: Pool): Refusal | undefined {
  const { owner, caps, now } = request;
  let perAgent = 0;
  let inPool = 0;
  for (const h of host.activeHolds(now)) {
    if (h.record.owner.agentKey === owner.agentKey) perAgent++;
    if (samePool(h.pool, pool)) inPool++;
  }
  // §5.10 Locks: a tentative booking counts against the agent cap and its pool like a hold.
  for (const id of host.tentativeLocks) {
    const b = host.bookings.get(id);
    if (b?.locks === undefined) continue;
    if (b.record.owner.agentKey === owner.agentKey) perAgent++;
    if (samePool(b.locks, pool)) inPool++;
  }
  if (caps.maxActivePerAgent !== undefined && perAgent >= caps.maxActivePerAgent) {
    return refusal("agent_limit", { policy: "holds.max_active_per_agent", limit: caps.maxActivePerAgent });
  }
  if (pool.kind === "unproven" && caps.maxActiveUnproven !== undefined && inPool >= caps.maxActiveUnproven) {
    return refusal("new_guest_pool_full", {
      policy: "holds.max_active_unproven",
      limit: caps.maxActiveUnproven,
    });
  }
  if (
    pool.kind === "attester" &&
    caps.maxActivePerAttester !== undefined &&
    inPool >= caps.maxActivePerAttester
  ) {
    return refusal("attester_pool_full", {
      policy: "holds.max_active_per_attester",
      limit: caps.maxActivePerAttester,
    });
  }
  for (const m of owner.mandates) {
    if (host.countMandate(m.rootIss, m.jti, now) >= m.maxBookings) {
      return refusal("mandate_limit", { policy: "mandate.max_bookings", limit: m.maxBookings });
    }
  }
  return undefined;
}

function refusal(
  reason: HoldRefusal["reason"],
  basis?: HoldRefusal["basis"],
  alternatives?: readonly number[],
): Refusal {
  return {
    ok: false,
    error: {
      reason,
      ...(basis === undefined ? {} : { basis }),
      ...(alternatives === undefined ? {} : { alternatives }),
    },
  };
}

/**
 * `mustUse`: a waitlist offer (§5.9) must sit on at least one of the resources that came free;
 * an allocation that takes none of them is refused ("not_freed") before anything is written.
 */
export function placeHold(
  host: HostState,
  request: PlaceHoldRequest,
  mustUse?: ReadonlySet<string>,
): HoldOutcome {
  const { now } = request;
  // Programmer errors, not domain outcomes: the booking core computes these.
  if (!(request.ttlMs > 0) || !(request.interval.end > request.interval.start)) {
    throw new RangeError(`placeHold needs ttlMs > 0 and a non-empty interval (hold ${request.holdId})`);
  }
  host.expireLapsed(now);
  if (host.holds.has(request.holdId)) return refusal("hold_id_in_use");
  const pool = poolOf(request.owner, request.caps);
  const capped = capRefusal(host, request, pool);
  if (capped !== undefined) return capped;

  // Allocation and the reserve look only at entries overlapping the interval asked about.
  let window = request.interval;
  for (const alt of request.alternatives ?? [])
    window = {
      start: Math.min(window.start, alt.interval.start),
      end: Math.max(window.end, alt.interval.end),
    };
  const { byResource, agent } = host.agentOccupancy(now, request.overlapBookingId, window);
  const occupancyOf: OccupancyOf = (c) => [...(byResource.get(c.id) ?? []), ...host.busyOf(c.id, c.capacity)];
  const reserves = request.caps.walkInReserves ?? [];
  const decision = decideAllocation(request.requirements, request.interval, occupancyOf, reserves, agent);

  if (!decision.ok) {
    const alternatives: number[] = [];
    for (const alt of request.alternatives ?? []) {
      if (alternatives.length >= MAX_ALTERNATIVES) break;
      if (decideAllocation(alt.requirements, alt.interval, occupancyOf, reserves, agent).ok)
        alternatives.push(alt.start);
    }
    if (decision.error.reason === "slot_taken") return refusal("slot_taken", undefined, alternatives);
    const { resourceType, keep } = decision.error.reserve;
    return refusal(
      "walk_in_reserve",
      { policy: "walk_in_reserve", resource_type: resourceType, keep },
      alternatives,
    );
  }

  if (mustUse !== undefined && !decision.value.some((a) => mustUse.has(a.resourceId))) {
    return refusal("not_freed");
  }

  const record: HoldRecord = {
    hostId: request.hostId,
    holdId: request.holdId,
    serviceId: request.serviceId,
    interval: { start: request.interval.start, end: request.interval.end },
    state: "held",
    createdAt: now,
    expiresAt: now + request.ttlMs,
    ttlMs: request.ttlMs,
    owner: structuredClone(request.owner),
    allocations: decision.value.map((a) => ({ resourceId: a.resourceId, units: a.units })),
    payload: request.payload,
  };
  host.holds.set(record.holdId, {
    record,
    pool,
    types: decision.value.map((a) => a.type),
    lastFence: 0,
  });
  host.live.add(record.holdId);
  host.indexHold(record);
  return { ok: true, value: record };
}
