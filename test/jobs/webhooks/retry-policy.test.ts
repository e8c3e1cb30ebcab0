import { describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_RETRY, exponentialBackoff } from "../../../src/jobs/webhooks/retry-policy.js";

describe("webhook retry policy", () => {
  it("defaults to 8 attempts, each wait 4x the last, capped at 12 h", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => DEFAULT_WEBHOOK_RETRY.delayAfter(n));
    expect(DEFAULT_WEBHOOK_RETRY.maxAttempts).toBe(8);
    expect(delays).toEqual([30_000, 120_000, 480_000, 1_920_000, 7_680_000, 30_720_000, 43_200_000]);
  });

  it("spreads the attempts over about a day (between 20 and 26 hours)", () => {
    let total = 0;
    for (let n = 1; n < DEFAULT_WEBHOOK_RETRY.maxAttempts; n++) total += DEFAULT_WEBHOOK_RETRY.delayAfter(n);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(26 * 3_600_000);
  });

  it("is configurable and refuses a policy with no attempt", () => {
    const p = exponentialBackoff({ maxAttempts: 3, baseMs: 10, factor: 2, maxDelayMs: 15 });
    expect([1, 2, 3].map((n) => p.delayAfter(n))).toEqual([10, 15, 15]);
    expect(() => exponentialBackoff({ maxAttempts: 0 })).toThrow(RangeError);
  });
});
