/**
 * Free starts from "2. check_availability" (`GET /availability`): one local day is the
 * single-day mode (`date=`, with the platform's `reason` when empty), several `from=&days=`
 * (at most 90 per call), the next N `next=`; per provider (every configured one when the query
 * names none). Each slot's start text is kept for the create, and its stated total read in the
 * service's listed currency (wire.ts `readStatedTotal`).
 */
import { dateOfEpochDay, epochDay } from "../../protocol/time/calendar.js";
import type { ConnectorResult, UpstreamMeta } from "../ports/result.js";
import type { AvailabilityQuery, UpstreamSlot } from "../ports/slots.js";
import type { Sent, ServicialoContext } from "./context.js";
import { isoDate, localDay } from "./local-time.js";
import { fail, unreadable } from "./results.js";
import { readAvailability, readError, readStatedTotal, type WireAvailability } from "./wire.js";

const MAX_RANGE_DAYS = 90;

export type AvailabilityMode = { date: string } | { from: string; days: number } | { next: number };

function slotsOf(ctx: ServicialoContext, serviceId: string, wire: WireAvailability): UpstreamSlot[] {
  const out: UpstreamSlot[] = [];
  for (const s of wire.slots) {
    const start = Date.parse(s.start);
    const end = Date.parse(s.end);
    if (Number.isNaN(start) || Number.isNaN(end)) continue;
    if (ctx.startTexts.size > 5_000) ctx.startTexts.clear();
    ctx.startTexts.set(start, s.start);
    // The slot's all-in total when the platform states one (wire.ts WireSlot): the gateway
    // quotes that, so what an agent shows is what the business records at that start.
    const total = readStatedTotal(s, ctx.currencies.get(serviceId));
    out.push({
      serviceId,
      start,
      end,
      resourceIds: s.providerId !== undefined ? [s.providerId] : [],
      ...(total !== undefined ? { total } : {}),
    });
  }
  return out;
}

function availabilityError<T>(r: Sent): ConnectorResult<T> | undefined {
  if (!r.ok) return r;
  if (r.value.status === 200) return undefined;
  const e = readError(r.value.body);
  if (r.value.status === 404) {
    return fail({ code: "not_found", message: `Servicialo: ${e.error ?? "not found"}` }, r.upstream);
  }
  return fail(
    {
      code: "invalid_request",
      message: `Servicialo refused the availability query (HTTP ${r.value.status})`,
    },
    r.upstream,
  );
}

export async function availability(
  ctx: ServicialoContext,
  serviceId: string,
  mode: AvailabilityMode,
  providerId: string | undefined,
): Promise<ConnectorResult<{ slots: UpstreamSlot[]; reason?: string }>> {
  const { result } = await ctx.send("GET", "/availability", { query: { serviceId, providerId, ...mode } });
  const bad = availabilityError<{ slots: UpstreamSlot[] }>(result);
  if (bad !== undefined) return bad;
  const wire = readAvailability(result.ok ? result.value.body : undefined);
  if (wire === undefined) return unreadable("availability answer", result.upstream);
  return {
    ok: true,
    value: {
      slots: slotsOf(ctx, serviceId, wire),
      ...(wire.reason !== undefined ? { reason: wire.reason } : {}),
    },
    ...(result.upstream ? { upstream: result.upstream } : {}),
  };
}

/** The providers asked: those named, else every configured one, else none named. */
export const providersFor = (
  ctx: ServicialoContext,
  ids: readonly string[] | undefined,
): (string | undefined)[] =>
  ids !== undefined && ids.length > 0
    ? [...ids]
    : ctx.settings.providers !== undefined && ctx.settings.providers.length > 0
      ? ctx.settings.providers.map((p) => p.id)
      : [undefined];

export async function findSlots(
  ctx: ServicialoContext,
  query: AvailabilityQuery,
): Promise<ConnectorResult<UpstreamSlot[]>> {
  if (query.range.end <= query.range.start) return { ok: true, value: [] };
  const first = epochDay(localDay(ctx, query.range.start));
  const last = epochDay(localDay(ctx, query.range.end - 1));
  const found: UpstreamSlot[] = [];
  let meta: UpstreamMeta | undefined;
  for (const providerId of providersFor(ctx, query.resourceIds)) {
    for (let day = first; day <= last; day += MAX_RANGE_DAYS) {
      const days = Math.min(MAX_RANGE_DAYS, last - day + 1);
      const from = isoDate(dateOfEpochDay(day));
      // One local day: the single-day mode (it also says why a day is empty).
      const mode = days === 1 ? { date: from } : { from, days };
      const r = await availability(ctx, query.serviceId, mode, providerId);
      if (!r.ok) return r;
      meta = r.upstream;
      found.push(...r.value.slots.filter((s) => s.start >= query.range.start && s.start < query.range.end));
    }
  }
  found.sort((a, b) => a.start - b.start);
  return { ok: true, value: found, ...(meta ? { upstream: meta } : {}) };
}

/** Next-N mode: the next `n` (1-50) free starts. */
export async function nextSlots(
  ctx: ServicialoContext,
  serviceId: string,
  n: number,
  providerId: string | undefined,
): Promise<ConnectorResult<readonly UpstreamSlot[]>> {
  const r = await availability(
    ctx,
    serviceId,
    { next: Math.max(1, Math.min(50, Math.floor(n))) },
    providerId,
  );
  return r.ok ? { ok: true, value: r.value.slots, ...(r.upstream ? { upstream: r.upstream } : {}) } : r;
}
