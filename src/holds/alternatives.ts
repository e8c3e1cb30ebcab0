/**
 * Alternatives to a taken slot (SchCP §5.2: "409 SLOT_UNAVAILABLE (reason slot_taken),
 * with up to five alternatives (nearest available slots)"), pure.
 *
 * The caller lists candidate starts nearest first; the store tests them in the same
 * atomic step as the refused hold and reports the first five that could be held, so an
 * alternative is never stale by the time it is offered.
 */
import type { Interval } from "../calendar/index.js";
import type { AlternativeCandidate, Requirement } from "./port.js";

/** Enough to find five free starts on a busy day without unbounded work (§7.2 "bound the work"). */
export const DEFAULT_ALTERNATIVE_LIMIT = 48;

export interface StartGrid {
  /** The granularity between starts, ms (> 0). */
  readonly stepMs: number;
  /** A start on the grid (e.g. the window's or the day's first start); default: the requested start. */
  readonly anchor?: number;
  /** Earliest and latest allowed start, both inclusive (booking window, mandate window...). */
  readonly notBefore: number;
  readonly notAfter: number;
}

/**
 * Starts on the grid within the bounds, nearest to `requested` first (ties: the earlier
 * first), never `requested` itself, at most `limit`.
 */
export function alternativeStarts(
  requested: number,
  grid: StartGrid,
  limit = DEFAULT_ALTERNATIVE_LIMIT,
): number[] {
  const { stepMs, notBefore, notAfter } = grid;
  if (!(stepMs > 0) || !Number.isFinite(stepMs) || notBefore > notAfter || limit <= 0) return [];
  const anchor = grid.anchor ?? requested;
  const at = (n: number): number => anchor + n * stepMs;
  // lo walks down from the last grid start at or before `requested`, hi up from the next.
  // Both start inside the bounds, so a requested start far outside them costs nothing.
  const first = Math.floor((requested - anchor) / stepMs);
  let lo = Math.min(first, Math.floor((notAfter - anchor) / stepMs));
  let hi = Math.max(first + 1, Math.ceil((notBefore - anchor) / stepMs));
  const out: number[] = [];
  while (out.length < limit) {
    const down = at(lo);
    const up = at(hi);
    const downOk = down >= notBefore;
    const upOk = up <= notAfter;
    if (!downOk && !upOk) break;
    const takeDown = downOk && (!upOk || requested - down <= up - requested);
    const start = takeDown ? down : up;
    if (takeDown) lo--;
    else hi++;
    if (start !== requested && start >= notBefore && start <= notAfter) out.push(start);
  }
  return out;
}

/**
 * Builds the store's AlternativeCandidates from starts; `build` returns undefined for a
 * start that cannot be offered at all (e.g. no resource works then), which is skipped.
 */
export function alternativeCandidates(
  starts: readonly number[],
  build: (start: number) => { interval: Interval; requirements: readonly Requirement[] } | undefined,
): AlternativeCandidate[] {
  const out: AlternativeCandidate[] = [];
  for (const start of starts) {
    const built = build(start);
    if (built !== undefined) out.push({ start, interval: built.interval, requirements: built.requirements });
  }
  return out;
}
