/** src/holds/reputation.ts: reputation-scaled TTL (SchCP §7.3). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decay,
  decayFactor,
  emptyCounts,
  grantedTtlMs,
  HALF_LIFE_MS,
  ratio,
  record,
  ttlCapMs,
} from "../../src/holds/reputation.js";
import type { ReputationCounts, ReputationOutcome } from "../../src/holds/port.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);
const POLICY_MAX = 600_000;

const counts = (
  expired: number,
  confirmed = 0,
  released = 0,
  lifetime = expired + confirmed + released,
): ReputationCounts => ({
  expired,
  confirmed,
  released,
  lifetime,
  at: T0,
});

/** An injected clock: outcomes recorded at given times, read at another. */
function history(events: ReadonlyArray<readonly [at: number, outcome: ReputationOutcome]>): ReputationCounts {
  return events.reduce((c, [at, outcome]) => record(c, outcome, at), emptyCounts(T0));
}

describe("decay (half-life 7 days, exact exponential)", () => {
  it("halves every seven days and leaves lifetime alone", () => {
    expect(HALF_LIFE_MS).toBe(7 * DAY);
    expect(decayFactor(7 * DAY)).toBe(0.5);
    expect(decayFactor(14 * DAY)).toBe(0.25);
    expect(decayFactor(0)).toBe(1);
    expect(decayFactor(-DAY)).toBe(1);
    expect(decay(counts(4, 2, 8), T0 + 7 * DAY)).toEqual({
      expired: 2,
      confirmed: 1,
      released: 4,
      lifetime: 14,
      at: T0 + 7 * DAY,
    });
  });

  it("does not go back in time when read before its last write (clock skew)", () => {
    expect(decay(counts(4), T0 - DAY)).toEqual(counts(4));
  });

  it("decaying in steps equals decaying at once (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 * DAY }), fc.integer({ min: 0, max: 30 * DAY }), (a, b) => {
        const stepped = decay(decay(counts(5, 3, 1), T0 + a), T0 + a + b);
        const once = decay(counts(5, 3, 1), T0 + a + b);
        expect(stepped.expired).toBeCloseTo(once.expired, 12);
        expect(stepped.confirmed).toBeCloseTo(once.confirmed, 12);
      }),
    );
  });
});

describe("ratio and tiers", () => {
  it("has no cap until min_sample lifetime outcomes", () => {
    expect(ratio(counts(4))).toBeNull();
    expect(ttlCapMs(counts(4), POLICY_MAX)).toBe(POLICY_MAX);
    expect(ratio(counts(5))).toBe(1);
    expect(ratio(counts(1, 0, 0, 5))).toBe(0.2);
    expect(ratio(counts(2, 1, 0, 3), 3)).toBeCloseTo(2 / 3, 12);
  });

  it("floors the denominator at min_sample", () => {
    expect(ratio(counts(2, 0, 0, 9))).toBe(0.4);
    expect(ratio(counts(6, 4, 0))).toBe(0.6);
  });

  it.each([
    [0, POLICY_MAX],
    [0.4999, POLICY_MAX],
    [0.5, 120_000],
    [0.7499, 120_000],
    [0.75, 60_000],
    [0.8999, 60_000],
    [0.9, 0],
    [1, 0],
  ])("ratio %s → cap %s ms", (r, cap) => {
    expect(ttlCapMs(counts(r * 10, (1 - r) * 10, 0, 10), POLICY_MAX)).toBe(cap);
  });

  it("a tier never raises a smaller policy maximum", () => {
    expect(ttlCapMs(counts(5.5, 4.5, 0, 10), 90_000)).toBe(90_000);
    expect(ttlCapMs(counts(5.5, 4.5, 0, 10), 30_000)).toBe(30_000);
    expect(ttlCapMs(counts(8, 2, 0, 10), 90_000)).toBe(60_000);
  });

  it("grants min(requested, policy max, every subject's cap) (§5.2)", () => {
    expect(grantedTtlMs(300_000, POLICY_MAX, [])).toBe(300_000);
    expect(grantedTtlMs(900_000, POLICY_MAX, [POLICY_MAX])).toBe(POLICY_MAX);
    expect(grantedTtlMs(300_000, POLICY_MAX, [POLICY_MAX, 120_000, 60_000])).toBe(60_000);
    expect(grantedTtlMs(300_000, POLICY_MAX, [120_000, 0])).toBe(0);
  });
});

describe("the §7.3 timeline, with an injected clock", () => {
  const five = history(Array.from({ length: 5 }, () => [T0, "expired"] as const));
  const capAfter = (days: number) => ttlCapMs(decay(five, T0 + days * DAY), POLICY_MAX);

  it("five straight expiries suspend holds", () => {
    expect(capAfter(0)).toBe(0);
  });

  it("capped at 60 s after about a day (not before ~1.06 d)", () => {
    expect(capAfter(1)).toBe(0);
    expect(capAfter(1.06)).toBe(0);
    expect(capAfter(1.065)).toBe(60_000);
    // Exactly where 2^(-t/7) crosses 0.9.
    expect(7 * Math.log2(1 / 0.9)).toBeCloseTo(1.064, 3);
  });

  it("120 s after about three days (~2.9 d)", () => {
    expect(capAfter(2.9)).toBe(60_000);
    expect(capAfter(2.91)).toBe(120_000);
    expect(capAfter(3)).toBe(120_000);
  });

  it("full length after about a week (7 d)", () => {
    expect(capAfter(6.99)).toBe(120_000);
    expect(capAfter(7)).toBe(120_000); // exactly 0.5 is not < 0.5
    expect(capAfter(7.01)).toBe(POLICY_MAX);
  });

  it("a relapse counts at full weight and drops the tier again", () => {
    const later = T0 + 8 * DAY;
    expect(ttlCapMs(decay(five, later), POLICY_MAX)).toBe(POLICY_MAX);
    const relapsed = record(five, "expired", later);
    expect(relapsed.expired).toBeCloseTo(5 * Math.pow(2, -8 / 7) + 1, 12);
    expect(relapsed.lifetime).toBe(6);
    expect(ttlCapMs(relapsed, POLICY_MAX)).toBe(120_000);
  });

  it("an agent that converts most of its holds keeps full-length holds", () => {
    const mixed = history([
      [T0, "confirmed"],
      [T0, "expired"],
      [T0 + DAY, "confirmed"],
      [T0 + DAY, "released"],
      [T0 + 2 * DAY, "expired"],
      [T0 + 2 * DAY, "confirmed"],
    ]);
    expect(ratio(mixed)).toBeLessThan(0.5);
    expect(ttlCapMs(mixed, POLICY_MAX)).toBe(POLICY_MAX);
  });
});
