/**
 * Spaces one client's calls so they stay inside a platform's published rate (OSBP: never evade
 * a platform's limits). Hand-written: it is a reservation of the next free instant per client,
 * a few lines, and a bucket library would add a dependency for less control over the clock.
 * Calls are delayed, never dropped; a 429 the platform still sends is surfaced, not retried here.
 */
import type { Clock } from "../../protocol/clock.js";
export interface Spacer {
  /** Resolves when this call may go. */
  wait(): Promise<void>;
}

const noSpacing: Spacer = { wait: () => Promise.resolve() };

export function createSpacer(
  maxPerSecond: number,
  clock: Clock,
  sleep: (ms: number) => Promise<void>,
): Spacer {
  if (!(maxPerSecond > 0) || !Number.isFinite(maxPerSecond)) return noSpacing;
  const interval = 1000 / maxPerSecond;
  let nextFree = Number.NEGATIVE_INFINITY;
  return {
    async wait() {
      const now = clock.now();
      const at = Math.max(now, nextFree);
      nextFree = at + interval;
      if (at > now) await sleep(at - now);
    },
  };
}

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
