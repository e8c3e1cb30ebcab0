/**
 * Where a hold can go (SchCP §10 platform connector, §5.2 alternatives): the upstream's free
 * resources at the requested start and at the nearby alternatives, from ONE findAvailability
 * call over the span they cover, planned against the host's working hours.
 */
import { alternativeCandidates } from "../../holds/alternatives.js";
import type { AlternativeCandidate, Requirement } from "../../holds/port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingRefusal, HostRuntime } from "../api.js";
import { spanZoneView, type ZoneView } from "../rules/index.js";
import { alternativeStartsFor } from "./alternatives.js";
import type { CheckedHold } from "./checks.js";
import { upstreamRefusal } from "./lookup.js";
import type { CreateHoldParams } from "./params.js";
import { hoursIndexFor, planSlot, type SlotPlan } from "./plan.js";

export interface Located {
  readonly plan: SlotPlan;
  readonly alternatives: readonly AlternativeCandidate[];
  /** The host's zone over the span, for formatting the alternatives. */
  readonly view: ZoneView;
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
): Promise<Result<Located, BookingRefusal>> {
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
  for (const slot of found.value) {
    if (slot.serviceId === c.found.service.id) free.set(slot.start, new Set(slot.resourceIds));
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
  const plan: SlotPlan =
    planned === undefined
      ? {
          start: params.start,
          interval: { start: params.start, end: params.start + 1 },
          requirements: [GONE_UPSTREAM],
        }
      : upstream === undefined
        ? { ...planned, requirements: [...planned.requirements, GONE_UPSTREAM] }
        : planned;
  const alternatives = alternativeCandidates(
    starts.filter((s) => free.has(s)),
    (s) => planAt(s, free.get(s) ?? new Set()),
  );
  return ok({ plan, alternatives, view });
}
