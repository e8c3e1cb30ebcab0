/**
 * Free starts from Square's SearchAvailability (POST /v2/bookings/availability/search).
 *
 * Square accepts a start_at_range of at least 24 hours and at most 32 days (SearchAvailability
 * reference, fixtures/square/SOURCES.md). So a query is cut into windows inside those bounds:
 * a range longer than 32 days becomes several calls, and a range (or last piece) shorter than
 * 24 hours is widened to 24 hours and the answers outside the asked range are dropped. Starts in
 * the past are not asked for. Each availability is one start with one team member; starts that
 * several team members can serve are merged into one slot naming all of them.
 *
 * A busy location's month of starts can be more than the gateway parses in one piece (Square's
 * parse budget, client.ts): a window whose answer is over the byte cap or that budget is asked
 * again in two halves, down to Square's 24 hours, a bounded number of extra calls per search.
 */
import type { Square, SquareClient } from "square";
import type { AvailabilityQuery, Interval, UpstreamSlot } from "../port.js";
import { instant, int, optionalInt, rfc3339, text } from "./read.js";

export const MIN_SEARCH_MS = 24 * 3_600_000;
export const MAX_SEARCH_MS = 32 * 86_400_000;
/** Extra calls one search may make after answers too large to read, before it gives up. */
const MAX_SPLITS = 16;

/** Windows each within Square's bounds that together cover `range` (the last may run past it). */
export function searchWindows(range: Interval): Interval[] {
  const windows: Interval[] = [];
  for (let start = range.start; start < range.end;) {
    let end = Math.min(start + MAX_SEARCH_MS, range.end);
    if (end - start < MIN_SEARCH_MS) end = start + MIN_SEARCH_MS;
    windows.push({ start, end });
    start = end;
  }
  return windows;
}

/** One free start with one team member, and the service version Square computed it for. */
export interface SquareAvailability {
  readonly start: number;
  readonly durationMs: number;
  readonly teamMemberId: string;
  readonly serviceVariationVersion?: number;
}

function readAvailability(a: Square.Availability, serviceId: string): SquareAvailability | undefined {
  const segments = a.appointmentSegments ?? [];
  const mine = segments.filter((s) => s.serviceVariationId === serviceId);
  const first = mine[0];
  if (first === undefined) return undefined;
  const minutes = segments.reduce((sum, s) => sum + int(s.durationMinutes, "duration_minutes"), 0);
  const version = optionalInt(first.serviceVariationVersion, "service_variation_version");
  return {
    start: instant(a.startAt, "availability start_at"),
    durationMs: minutes * 60_000,
    teamMemberId: text(first.teamMemberId, "team_member_id"),
    ...(version === undefined ? {} : { serviceVariationVersion: version }),
  };
}

/** Two windows of at least 24 hours each that cover `w`, or undefined when it cannot be cut. */
function halves(w: Interval): [Interval, Interval] | undefined {
  if (w.end - w.start < 2 * MIN_SEARCH_MS) return undefined;
  const mid = w.start + Math.max(MIN_SEARCH_MS, Math.floor((w.end - w.start) / 2 / 3_600_000) * 3_600_000);
  return [
    { start: w.start, end: mid },
    { start: mid, end: w.end },
  ];
}

/**
 * Square's availabilities of one service in `range` (starts inside it), window by window.
 * `tooLarge` tells whether the call that just failed was refused for its answer's size or parse
 * cost (the upstream client's last captured call), so its window is asked again in halves.
 */
export async function searchAvailability(
  client: SquareClient,
  locationId: string,
  query: AvailabilityQuery,
  now: number,
  tooLarge: () => boolean = () => false,
): Promise<SquareAvailability[]> {
  const range = { start: Math.max(query.range.start, now), end: query.range.end };
  const found: SquareAvailability[] = [];
  const teamMemberIds =
    query.resourceIds !== undefined && query.resourceIds.length > 0 ? [...query.resourceIds] : undefined;
  const windows = searchWindows(range);
  let splits = 0;
  for (let w = windows.shift(); w !== undefined; w = windows.shift()) {
    let answer: Square.SearchAvailabilityResponse;
    try {
      answer = await searchWindow(client, locationId, query.serviceId, w, teamMemberIds);
    } catch (error) {
      const cut = splits < MAX_SPLITS && tooLarge() ? halves(w) : undefined;
      if (cut === undefined) throw error;
      splits++;
      windows.unshift(...cut);
      continue;
    }
    for (const a of answer.availabilities ?? []) {
      const read = readAvailability(a, query.serviceId);
      if (read !== undefined && read.start >= range.start && read.start < range.end) found.push(read);
    }
  }
  return found;
}

function searchWindow(
  client: SquareClient,
  locationId: string,
  serviceId: string,
  w: Interval,
  teamMemberIds: string[] | undefined,
): Promise<Square.SearchAvailabilityResponse> {
  return client.bookings.searchAvailability({
    query: {
      filter: {
        startAtRange: { startAt: rfc3339(w.start), endAt: rfc3339(w.end) },
        locationId,
        segmentFilters: [
          {
            serviceVariationId: serviceId,
            ...(teamMemberIds === undefined ? {} : { teamMemberIdFilter: { any: teamMemberIds } }),
          },
        ],
      },
    },
  });
}

/** Merges per-team-member availabilities into slots, in start order. */
export function slotsOf(serviceId: string, found: readonly SquareAvailability[]): UpstreamSlot[] {
  const byStart = new Map<number, { end: number; ids: string[] }>();
  for (const a of found) {
    const slot = byStart.get(a.start) ?? { end: a.start + a.durationMs, ids: [] };
    if (!slot.ids.includes(a.teamMemberId)) slot.ids.push(a.teamMemberId);
    byStart.set(a.start, slot);
  }
  return [...byStart.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, s]) => ({ serviceId, start, end: s.end, resourceIds: s.ids }));
}
