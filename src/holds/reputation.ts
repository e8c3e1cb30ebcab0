/**
 * Reputation-scaled TTL (SchCP §7.3), pure.
 *
 * Per subject (agent key, principal, attester) the store keeps exponentially decayed
 * counts of hold outcomes (half-life 7 days) and an undecayed lifetime count. Then
 *
 *   ratio = expired / max(expired + confirmed + released, min_sample)
 *
 * once lifetime ≥ min_sample (before that there is no cap), and the ratio maps to a TTL
 * cap by tiers: < 0.5 → policy max, < 0.75 → 120 s, < 0.9 → 60 s, otherwise 0 (holds
 * suspended). Uniform decay alone would leave a plain ratio unchanged; the min_sample
 * floor in the denominator is what lets time restore a suspended subject.
 *
 * The decay is exact, 2^(-Δt / half-life), so the in-memory and Redis (Lua) stores agree
 * to rounding: decaying in one step or in several gives the same counts.
 */
import type { ReputationCounts, ReputationOutcome } from "./port.js";

export const HALF_LIFE_MS = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_MIN_SAMPLE = 5;

/** The §7.3 tiers: ratio below `below` → cap (null = the policy maximum). */
const TIERS: ReadonlyArray<{ readonly below: number; readonly capMs: number | null }> = [
  { below: 0.5, capMs: null },
  { below: 0.75, capMs: 120_000 },
  { below: 0.9, capMs: 60_000 },
];

export const emptyCounts = (at: number): ReputationCounts => ({
  expired: 0,
  confirmed: 0,
  released: 0,
  lifetime: 0,
  at,
});

/** The factor a count keeps after `elapsedMs` (1 for no or negative elapsed time). */
export function decayFactor(elapsedMs: number, halfLifeMs = HALF_LIFE_MS): number {
  return elapsedMs <= 0 ? 1 : Math.pow(2, -elapsedMs / halfLifeMs);
}

/** Counts as of `now`. A `now` before `counts.at` (clock skew) decays nothing. */
export function decay(counts: ReputationCounts, now: number, halfLifeMs = HALF_LIFE_MS): ReputationCounts {
  const f = decayFactor(now - counts.at, halfLifeMs);
  return {
    expired: counts.expired * f,
    confirmed: counts.confirmed * f,
    released: counts.released * f,
    lifetime: counts.lifetime,
    at: Math.max(now, counts.at),
  };
}

/** Decays to `now`, then adds one outcome at full weight ("a relapse counts at full weight"). */
export function record(counts: ReputationCounts, outcome: ReputationOutcome, now: number): ReputationCounts {
  const d = decay(counts, now);
  return { ...d, [outcome]: d[outcome] + 1, lifetime: d.lifetime + 1 };
}

/** The §7.3 ratio, or null while the subject has fewer than `minSample` lifetime outcomes. */
export function ratio(counts: ReputationCounts, minSample = DEFAULT_MIN_SAMPLE): number | null {
  if (counts.lifetime < minSample) return null;
  const total = counts.expired + counts.confirmed + counts.released;
  return counts.expired / Math.max(total, minSample, Number.MIN_VALUE);
}

/** The TTL cap for one subject: the policy maximum, 120 s, 60 s, or 0 (suspended). */
export function ttlCapMs(
  counts: ReputationCounts,
  policyMaxMs: number,
  minSample = DEFAULT_MIN_SAMPLE,
): number {
  const r = ratio(counts, minSample);
  if (r === null) return policyMaxMs;
  const tier = TIERS.find((t) => r < t.below);
  if (tier === undefined) return 0;
  return tier.capMs === null ? policyMaxMs : Math.min(tier.capMs, policyMaxMs);
}

/**
 * §5.2: granted TTL = min(requested, policy max, reputation cap), where the reputation cap
 * is the minimum over every subject of the request (agent key, principal, attester).
 * 0 means no hold may be granted.
 */
export function grantedTtlMs(requestedMs: number, policyMaxMs: number, caps: readonly number[]): number {
  return Math.max(0, Math.min(requestedMs, policyMaxMs, ...caps));
}
