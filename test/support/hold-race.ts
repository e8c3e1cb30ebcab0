/**
 * The hold race shared by the benchmarks (bench/holds.ts, bench/cluster.ts) and the cluster
 * tests: single-unit requests for one resource and interval each, every client asking for
 * every slot once in its own random order, and a runner that sends each client's requests one
 * after another, all clients at once.
 */
import { performance } from "node:perf_hooks";
import type { GatewayStore, HoldRecord, HoldRequest } from "../../src/holds/port.js";

export interface RaceOutcome {
  readonly granted: HoldRecord[];
  readonly completed: number;
  readonly seconds: number;
}

/** Fisher-Yates: a client's own order. */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export interface SlotRequestOptions {
  readonly hostId: string;
  readonly client: number;
  readonly resourceId: string;
  readonly interval: { readonly start: number; readonly end: number };
  readonly now: number;
  readonly ttlMs?: number;
  readonly maxActivePerAgent?: number;
  readonly payload?: string;
}

/** One unit of one resource over one interval, asked by client `client` (its own agent). */
export function slotRequest(o: SlotRequestOptions): HoldRequest {
  return {
    hostId: o.hostId,
    holdId: `c${o.client}-${o.resourceId}-${o.interval.start}`,
    serviceId: "bench",
    interval: { start: o.interval.start, end: o.interval.end },
    requirements: [{ type: "bay", candidates: [{ id: o.resourceId, capacity: 1 }], units: 1 }],
    ttlMs: o.ttlMs ?? 10 * 60_000,
    now: o.now,
    owner: { agentKey: `agent-${o.client}`, principal: `principal-${o.client}`, mandates: [] },
    caps: { principalProven: true, maxActivePerAgent: o.maxActivePerAgent ?? 100_000 },
    payload: o.payload ?? '{"offer":"bench"}',
  };
}

/** Every client runs its plan (or the slice [from, to) of it), all clients at once. */
export async function runRace(
  stores: readonly GatewayStore[],
  plans: readonly (readonly HoldRequest[])[],
  from = 0,
  to = Number.POSITIVE_INFINITY,
): Promise<RaceOutcome> {
  const granted: HoldRecord[] = [];
  let completed = 0;
  const started = performance.now();
  await Promise.all(
    stores.map(async (store, client) => {
      for (const request of (plans[client] ?? []).slice(from, to)) {
        const outcome = await store.placeHold(request);
        completed++;
        if (outcome.ok) granted.push(outcome.hold);
      }
    }),
  );
  return { granted, completed, seconds: (performance.now() - started) / 1000 };
}
