/**
 * The synthetic platform's availability search: every start of its grid in the range
 * where the service can be served (slots.ts), from now on. The grid is `stepMs` apart from
 * local midnight in the organization's zone, so on a DST day starts stay on the quarter
 * hours the shop's clock shows.
 *
 * The work is bounded like a real platform's search (SchCP §7.2 "bound the work"): a range
 * over 31 days, or holding more than 3,000 grid starts, is refused as invalid_request.
 */
import { Temporal } from "temporal-polyfill";
import type { Interval } from "../port.js";
import type { AvailabilityQuery, CatalogService, UpstreamSlot } from "../port.js";
import type { SyntheticAppointment } from "./appointment.js";
import { rangeHours, STRETCH_CAP_MS } from "./hours.js";
import type { SyntheticScenario } from "./scenario.js";
import { longestTake, occupancyIndex, planSlot } from "./slots.js";

const MAX_RANGE_MS = 31 * 86_400_000;
const MAX_STARTS = 3000;

export type QueryProblem = { readonly code: "invalid_request" | "not_found"; readonly message: string };

export interface CheckedQuery {
  readonly service: CatalogService;
  readonly range: Interval;
  readonly partySize: number;
  readonly only?: ReadonlySet<string>;
  /** The appointments to read: the range widened by the longest time one start takes. */
  readonly readRange: Interval;
}

const isInstant = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

export function isPartySize(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1 && v <= 1000;
}

/** Checks a search as the platform's API would, before any work. */
export function checkQuery(scenario: SyntheticScenario, q: AvailabilityQuery): CheckedQuery | QueryProblem {
  const bad = (message: string): QueryProblem => ({ code: "invalid_request", message });
  const service = scenario.services.find((s) => s.id === q.serviceId);
  if (service === undefined) return { code: "not_found", message: `no service "${String(q.serviceId)}"` };
  const { start, end } = q.range ?? {};
  if (!isInstant(start) || !isInstant(end) || end <= start) return bad("range is [start, end) in epoch ms");
  if (end - start > MAX_RANGE_MS) return bad("range is longer than 31 days");
  if (Math.ceil((end - start) / scenario.stepMs) > MAX_STARTS)
    return bad(`range holds more than ${MAX_STARTS} starts of the ${scenario.stepMs / 60_000}-minute grid`);
  const partySize = q.partySize ?? 1;
  if (!isPartySize(partySize)) return bad("partySize is an integer from 1 to 1000");
  const known = new Set(scenario.resources.map((r) => r.id));
  const unknown = (q.resourceIds ?? []).find((id) => !known.has(id));
  if (unknown !== undefined) return bad(`no resource "${String(unknown)}"`);
  const readRange = { start, end: end + longestTake(service, STRETCH_CAP_MS) };
  const base = { service, range: { start, end }, partySize, readRange };
  return q.resourceIds === undefined || q.resourceIds.length === 0
    ? base
    : { ...base, only: new Set(q.resourceIds) };
}

/** Free starts of the checked query given the appointments that take time around it. */
export function findSlots(
  scenario: SyntheticScenario,
  q: CheckedQuery,
  appointments: readonly SyntheticAppointment[],
  now: number,
): UpstreamSlot[] {
  const zone = scenario.organization.timezone;
  const hours = rangeHours(zone, q.readRange);
  const occupancy = occupancyIndex(appointments);
  const from = Math.max(q.range.start, now);
  const { service } = q;

  // Only starts where some resource of the first required type works can be slots.
  const firstType = service.requires[0]?.resourceType;
  const starts = new Set<number>();
  for (const r of scenario.resources) {
    if (r.type !== firstType) continue;
    for (const s of hours.stretches(r)) {
      const lo = Math.max(s.start, from);
      const hi = Math.min(s.end, q.range.end);
      if (lo < hi) for (const t of gridStarts(lo, hi, scenario.stepMs, zone)) starts.add(t);
    }
  }

  const slots: UpstreamSlot[] = [];
  for (const start of [...starts].sort((a, b) => a - b)) {
    const ask = { service, start, partySize: q.partySize, ...(q.only === undefined ? {} : { only: q.only }) };
    const plan = planSlot(scenario.resources, hours, occupancy, ask);
    if (plan === undefined) continue;
    const slot = { serviceId: service.id, start, resourceIds: plan.freeResourceIds };
    slots.push(service.duration === "open" ? slot : { ...slot, end: start + service.duration });
  }
  return slots;
}

/**
 * Starts in [from, to) whose local wall-clock time is a multiple of the step from midnight.
 * The zone's offset is constant between transitions, so each stretch between two is one
 * arithmetic sequence.
 */
export function gridStarts(from: number, to: number, stepMs: number, zone: string): number[] {
  const out: number[] = [];
  let segment = from;
  while (segment < to) {
    const { offset, next } = offsetUntilTransition(segment, zone);
    const segmentEnd = Math.min(to, next);
    for (let t = Math.ceil((segment + offset) / stepMs) * stepMs - offset; t < segmentEnd; t += stepMs)
      out.push(t);
    segment = segmentEnd;
  }
  return out;
}

interface Steady {
  /** The zone's offset (ms) in force from the instant asked about … */
  readonly offset: number;
  /** … until this transition (Infinity when there is none). */
  readonly next: number;
}

const DAY_MS = 86_400_000;
const MAX_CACHED_DAYS = 10_000;
/** zone → UTC day → the offset at the day's start and the next transition after it. */
const steadyFromDay = new Map<string, Map<number, Steady>>();

function steadyAt(at: number, zone: string): Steady {
  const zoned = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(zone);
  const next = zoned.getTimeZoneTransition("next");
  return {
    offset: Math.round(zoned.offsetNanoseconds / 1e6),
    next: next === null ? Infinity : next.epochMilliseconds,
  };
}

/**
 * The offset at `at` and the next transition after it. Asking Temporal costs tenths of a
 * millisecond under the polyfill and every hold asks, so the answer at each UTC day's start is
 * kept per zone: it holds for any instant of the day before that transition, which is exact;
 * an instant past a transition inside its day is asked directly.
 */
function offsetUntilTransition(at: number, zone: string): Steady {
  const day = Math.floor(at / DAY_MS);
  let days = steadyFromDay.get(zone);
  if (days === undefined) steadyFromDay.set(zone, (days = new Map<number, Steady>()));
  let steady = days.get(day);
  if (steady === undefined) {
    if (days.size >= MAX_CACHED_DAYS) days.clear();
    steady = steadyAt(day * DAY_MS, zone);
    days.set(day, steady);
  }
  return at < steady.next ? steady : steadyAt(at, zone);
}
