/**
 * A rate limit whose refusals are counted (booking_gateway_rate_limited_total{limit}): the
 * limiter the edges are handed, wrapped where the root builds it (infra.ts, a2a-wiring.ts).
 */
import type { RateLimiter } from "../../edges/http/types.js";
import type { Metrics } from "../../protocol/metrics.js";

export function countedLimiter(limiter: RateLimiter, limit: string, metrics: Metrics): RateLimiter {
  return {
    take: async (key, nowMs) => {
      const taken = await limiter.take(key, nowMs);
      if (!taken.ok) metrics.rateLimited(limit);
      return taken;
    },
  };
}
