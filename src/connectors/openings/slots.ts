/**
 * Free starts from each member's openings (`GET /locations/{id}/members/{member}/openings`,
 * per member and local date, at most 31 days), a member free at a start, and the location's
 * next free start (`GET /locations/{id}/next-availability`). Openings are local "HH:MM" times,
 * placed in time with the business's zone.
 */
import { dateOfEpochDay, epochDay } from "../../protocol/time/calendar.js";
import type { UpstreamCreate } from "../ports/bookings.js";
import type { ConnectorResult, UpstreamMeta } from "../ports/result.js";
import type { AvailabilityQuery, UpstreamSlot } from "../ports/slots.js";
import { dataFrom, type OpeningsContext } from "./context.js";
import { instantOf, isoDate, localDay, localTime } from "./local-time.js";
import { fail, noZone, unreadable, withMeta } from "./results.js";
import type { Salon, SalonSource } from "./salon.js";
import { durationOf, splitService } from "./services.js";
import { readNext, readOpenings } from "./wire.js";

const MAX_DAYS = 31;

/** One member's open "HH:MM" times on a local date for a service (or option). */
export async function openings(
  api: OpeningsContext,
  ctx: Salon,
  memberId: string,
  date: string,
  id: string,
): Promise<ConnectorResult<string[]>> {
  const { serviceId, optionId } = splitService(id);
  return dataFrom(
    await api.call(
      "GET",
      `/locations/${encodeURIComponent(ctx.location.id)}/members/${encodeURIComponent(memberId)}/openings`,
      {
        query: { date, serviceId, optionId },
      },
    ),
    readOpenings,
    "openings list",
  );
}

export async function findSlots(
  api: OpeningsContext,
  salons: SalonSource,
  query: AvailabilityQuery,
): Promise<ConnectorResult<UpstreamSlot[]>> {
  const c = await salons.ensure();
  if (!c.ok) return c;
  const ctx = c.value;
  const tz = ctx.timezone;
  if (tz === undefined) return noZone();
  const duration = durationOf(ctx, query.serviceId);
  if (duration === undefined)
    return fail({ code: "not_found", message: "Openings: no such service at this location" });
  if (query.range.end <= query.range.start) return { ok: true, value: [] };
  const first = epochDay(localDay(query.range.start, tz));
  const last = Math.min(epochDay(localDay(query.range.end - 1, tz)), first + MAX_DAYS - 1);
  const members = query.resourceIds?.length ? [...query.resourceIds] : ctx.location.members.map((m) => m.id);
  const found: UpstreamSlot[] = [];
  let meta: UpstreamMeta | undefined;
  for (const memberId of members) {
    for (let day = first; day <= last; day++) {
      const date = isoDate(dateOfEpochDay(day));
      const r = await openings(api, ctx, memberId, date, query.serviceId);
      if (!r.ok) return r;
      meta = r.upstream;
      for (const t of r.value) {
        const start = instantOf(date, t, tz);
        if (start === undefined || start < query.range.start || start >= query.range.end) continue;
        found.push({ serviceId: query.serviceId, start, end: start + duration, resourceIds: [memberId] });
      }
    }
  }
  found.sort((a, b) => a.start - b.start);
  return withMeta(found, meta);
}

/** Members free at the start (the create named none): the first whose openings include it. */
export async function pickMember(
  api: OpeningsContext,
  ctx: Salon,
  request: UpstreamCreate,
  tz: string,
): Promise<ConnectorResult<string | null>> {
  const date = isoDate(localDay(request.start, tz));
  const time = localTime(request.start, tz);
  let meta: UpstreamMeta | undefined;
  for (const m of ctx.location.members) {
    const r = await openings(api, ctx, m.id, date, request.serviceId);
    if (!r.ok) return r;
    meta = r.upstream;
    if (r.value.includes(time)) return withMeta(m.id, meta);
  }
  return withMeta(null, meta);
}

/** The location's next free start for a service (Openings "next availability"), or null. */
export async function nextAvailable(
  api: OpeningsContext,
  salons: SalonSource,
  id: string,
): Promise<ConnectorResult<UpstreamSlot | null>> {
  const c = await salons.ensure();
  if (!c.ok) return c;
  const tz = c.value.timezone;
  if (tz === undefined) return noZone();
  const { serviceId, optionId } = splitService(id);
  const r = dataFrom(
    await api.call("GET", `/locations/${encodeURIComponent(c.value.location.id)}/next-availability`, {
      query: { serviceId, optionId },
    }),
    (d) => (d === null ? null : (readNext(d) ?? undefined)),
    "next availability",
  );
  if (!r.ok) return r;
  if (r.value === null) return withMeta(null, r.upstream);
  const start = instantOf(r.value.date, r.value.time, tz);
  const duration = durationOf(c.value, id);
  if (start === undefined) return unreadable("next availability", r.upstream);
  return withMeta(
    {
      serviceId: id,
      start,
      ...(duration !== undefined ? { end: start + duration } : {}),
      resourceIds: [r.value.memberId],
    },
    r.upstream,
  );
}
