/**
 * The synthetic platform's read endpoints: availability search, bookings as busy time,
 * a booking by id, and the booking made under an idempotency key (reconciliation).
 */
import type { Interval } from "../port.js";
import type { AvailabilityQuery, UpstreamBooking, UpstreamSlot } from "../port.js";
import { toUpstreamBooking } from "./appointment.js";
import { checkQuery, findSlots } from "./availability.js";
import { answer, refuse, type Answer, type SyntheticContext } from "./context.js";
import { isStringList } from "./booking-time.js";

/**
 * The platform's appointments as busy time (its bookings search). Not a connector capability:
 * the gateway never reads a platform's busy time (the platform computes its own slots); tests
 * and tools use it to look at the platform's own records.
 */
export interface BusyRead {
  readonly busy: ReadonlyArray<{ readonly resourceId: string; readonly interval: Interval }>;
  /** The platform is its own system of record: always the range's end. */
  readonly readUntil: number;
  readonly complete: boolean;
}

/** Busy reads are cheap, but a year is still the most one call returns. */
const MAX_BUSY_RANGE_MS = 366 * 86_400_000;

const isInstant = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

export async function findAvailability(
  ctx: SyntheticContext,
  query: AvailabilityQuery,
): Promise<Answer<readonly UpstreamSlot[]>> {
  const checked = checkQuery(ctx.scenario, query);
  if ("code" in checked) return refuse(checked.code, checked.message);
  const snap = await ctx.backend.read(ctx.hostId, { range: checked.readRange });
  return answer(findSlots(ctx.scenario, checked, snap.occupying, ctx.clock.now()));
}

/**
 * Appointments as busy time per resource (occupied time, buffer included). The platform is
 * its own system of record, so the read is always complete up to the range's end.
 */
export async function readBusy(
  ctx: SyntheticContext,
  range: Interval,
  resourceIds: readonly string[],
): Promise<Answer<BusyRead>> {
  const { start, end } = range ?? {};
  if (!isInstant(start) || !isInstant(end) || end <= start || end - start > MAX_BUSY_RANGE_MS)
    return refuse("invalid_request", "range is [start, end) in epoch ms, at most a year");
  if (!isStringList(resourceIds)) return refuse("invalid_request", "resourceIds is a list of resource ids");
  const known = new Set(ctx.scenario.resources.map((r) => r.id));
  const unknown = resourceIds.find((id) => !known.has(id));
  if (unknown !== undefined) return refuse("invalid_request", `no resource "${unknown}"`);
  // An empty list asks for every resource.
  const wanted = new Set(resourceIds.length === 0 ? known : resourceIds);
  const snap = await ctx.backend.read(ctx.hostId, { range: { start, end } });
  const busy = snap.occupying
    .flatMap((a) =>
      a.allocations
        .filter((x) => wanted.has(x.resourceId))
        .map((x) => ({ resourceId: x.resourceId, interval: { start: a.start, end: a.occupiedUntil } })),
    )
    .sort((a, b) => a.interval.start - b.interval.start || a.resourceId.localeCompare(b.resourceId));
  return answer({ busy, readUntil: end, complete: true });
}

export async function getBooking(
  ctx: SyntheticContext,
  upstreamId: string,
): Promise<Answer<UpstreamBooking>> {
  if (typeof upstreamId !== "string" || upstreamId === "")
    return refuse("invalid_request", "a booking id is required");
  const found = (await ctx.backend.read(ctx.hostId, { ids: [upstreamId] })).byId.get(upstreamId);
  return found === undefined
    ? refuse("not_found", `no booking "${upstreamId}"`)
    : answer(toUpstreamBooking(found));
}

export async function findBookingByIdempotencyKey(
  ctx: SyntheticContext,
  key: string,
): Promise<Answer<UpstreamBooking | null>> {
  if (typeof key !== "string" || key === "")
    return refuse("invalid_request", "an idempotency key is required");
  const { byKey } = await ctx.backend.read(ctx.hostId, { idempotencyKey: key });
  return answer(byKey === undefined ? null : toUpstreamBooking(byKey));
}
