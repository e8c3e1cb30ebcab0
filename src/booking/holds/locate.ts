/**
 * Where a hold can go (SchCP §10 platform connector, §5.2 alternatives): the upstream's free
 * resources at the requested start and at the nearby alternatives, from ONE findAvailability
 * call over the span they cover, planned against the host's working hours.
 */
import { alternativeCandidates } from "../../holds/alternatives.js";
import type { AlternativeCandidate, Requirement } from "../../holds/port.js";
import type { Money } from "../../protocol/money/index.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingRefusal, HostRuntime } from "../api.js";
import { spanZoneView, type ZoneView } from "../rules/index.js";
import { alternativeStartsFor } from "./alternatives.js";
import type { CheckedHold } from "./checks.js";
import { upstreamRefusal } from "./lookup.js";
import type { CreateHoldParams } from "./params.js";
import { hoursIndexFor, planSlot, type SlotPlan } from "./plan.js";

/** What locate found: the requested slot's plan, the alternatives to test beside it, and their zone and totals. */
export interface LocatedSlot {
  readonly plan: SlotPlan;
  readonly alternatives: readonly AlternativeCandidate[];
  /** The host's zone over the span, for formatting the alternatives. */
  readonly view: ZoneView;
  /** The upstream's stated all-in total by start (UpstreamSlot.total), where it states one. */
  readonly stated: ReadonlyMap<number, Money>;
}

const DAY = 86_400_000;

/**
 * A requirement no resource meets: added when the upstream no longer lists the start, so the
 * store refuses it as slot_taken while still testing the alternatives atomically.
 */
const GONE_UPSTREAM: Requirement = { type: "upstream-free", candidates: [], units: 1 };

/**
 * The upstream's free resources at the start and at the alternatives, from ONE
 * findAvailability call over the span they cover; a start the upstream no longer lists is
 * gone there (§10 platform connector: someone booked it outside the gateway).
 */
export async function locate(
  runtime: HostRuntime,
  c: CheckedHold,
  params: CreateHoldParams,
  now: number,
  /** false: the start alone (the first try, which usually succeeds and needs none). */
  withAlternatives = true,
): Promise<Result<LocatedSlot, BookingRefusal>> {
  // Alternatives lie within a day of the start (alternatives.ts), so one view covers them all.
  const view: ZoneView = spanZoneView(runtime.config.timezone, {
    start: params.start - DAY,
    end: params.start + DAY,
  });
  const starts =
    c.hostInitiated || !withAlternatives
      ? []
      : alternativeStartsFor(runtime, c.found, params.start, now, params.caller.authority, view);
  const from = Math.min(params.start, ...starts);
  const to = Math.max(params.start, ...starts) + 1;
  const hours = hoursIndexFor(runtime, c.found.service, from, to);
  const found = await runtime.connector.slots.find({
    serviceId: c.found.service.id,
    range: { start: from, end: to },
    partySize: params.partySize,
    ...(c.resource !== undefined && { resourceIds: [c.resource.id] }),
  });
  if (!found.ok) return err<BookingRefusal>(upstreamRefusal(found.error));
  const free = new Map<number, ReadonlySet<string>>();
  const stated = new Map<number, Money>();
  for (const slot of found.value) {
    if (slot.serviceId !== c.found.service.id) continue;
    free.set(slot.start, new Set(slot.resourceIds));
    if (slot.total !== undefined) stated.set(slot.start, slot.total);
  }
  const own = ownTime(params, c);
  if (own !== undefined && overlaps(own, params.start, c)) {
    // A change of a booking may overlap that booking (§5.7). The upstream lists no start that
    // overlaps the booking's own time, since its resources are busy with this very booking:
    // they count as free there. Anything else at that time is still refused, by the store
    // (every gateway hold and booking but this one, atomically) and by the upstream's own
    // move, which runs first and checks its other sessions (applyMove).
    free.set(params.start, new Set([...(free.get(params.start) ?? []), ...own.resourceIds]));
  }
  const planAt = (start: number, resources: ReadonlySet<string>): SlotPlan | undefined =>
    planSlot(runtime, c.found.service, start, {
      partySize: params.partySize,
      free: resources,
      hours,
      ...(c.resource !== undefined && { resourceId: c.resource.id }),
    });
  const upstream = free.get(params.start);

  const planned = planAt(params.start, upstream ?? new Set());
  const plan: SlotPlan = preferOwn(
    planned === undefined
      ? {
          start: params.start,
          interval: { start: params.start, end: params.start + 1 },
          requirements: [GONE_UPSTREAM],
        }
      : upstream === undefined
        ? { ...planned, requirements: [...planned.requirements, GONE_UPSTREAM] }
        : planned,
    own,
  );
  const alternatives = alternativeCandidates(
    starts.filter((s) => free.has(s)),
    (s) => planAt(s, free.get(s) ?? new Set()),
  );
  return ok({ plan, alternatives, view, stated });
}

/** The booking a change moves (its time and resources), or undefined for a booking hold. */
function ownTime(params: CreateHoldParams, c: CheckedHold) {
  const b = params.booking;
  if (b === undefined || params.kind !== "change" || b.serviceId !== c.found.service.id) return undefined;
  return b;
}

/** Whether the new time [start, start + duration + buffer) meets the booking's own time. */
function overlaps(own: NonNullable<ReturnType<typeof ownTime>>, start: number, c: CheckedHold): boolean {
  const s = c.found.service;
  const length = s.duration === "open" ? 0 : s.duration + s.bufferAfterMs;
  const ownEnd = (own.end ?? own.start) + s.bufferAfterMs;
  return start < ownEnd && own.start < start + Math.max(length, 1);
}

/**
 * A move keeps the booking's own resources where they are free (each requirement's
 * candidates are in preference order): a 15-minute move stays with the same provider rather
 * than quietly changing it, which some upstreams cannot do on a move (Servicialo §5: "Changing
 * the provider while rescheduling is not supported").
 */
function preferOwn(plan: SlotPlan, own: ReturnType<typeof ownTime>): SlotPlan {
  if (own === undefined || own.resourceIds.length === 0) return plan;
  const mine = new Set(own.resourceIds);
  return {
    ...plan,
    requirements: plan.requirements.map((r) => ({
      ...r,
      candidates: [...r.candidates].sort((a, b) => Number(mine.has(b.id)) - Number(mine.has(a.id))),
    })),
  };
}
