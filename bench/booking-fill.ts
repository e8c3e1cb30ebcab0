/**
 * Filling one host with bookings through the hold store (hold, confirm, record with an index
 * entry), in rounds of 1,000: the time per booking of each round, which must not grow with
 * the number of bookings the host already has. Prints JSON.
 *   npm run bench:fill -- [memory|redis] [bookings]   (REDIS_URL for redis)
 */
import { MemoryHoldStore } from "../src/holds/memory/memory-store.js";
import type { GatewayStore } from "../src/holds/port.js";
import { createRedisGatewayStore } from "../src/holds/redis/index.js";

const kind = process.argv[2] ?? "memory";
const total = Number(process.argv[3] ?? 15_000);
const HOUR = 3_600_000;
const NOW = Date.UTC(2030, 0, 1);
const prefix = `bench-fill:${process.pid}:`;

async function open(): Promise<GatewayStore & { drop?: () => Promise<void> }> {
  if (kind === "memory") return new MemoryHoldStore();
  const store = await createRedisGatewayStore({
    url: process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379",
    keyPrefix: prefix,
  });
  return Object.assign(store, {
    drop: async () => {
      for (;;) {
        const keys = await store.redis.keys(`bench-fill:${process.pid}:*`);
        if (keys.length === 0) break;
        for (let i = 0; i < keys.length; i += 500) await store.redis.unlink(...keys.slice(i, i + 500));
      }
    },
  });
}

async function one(store: GatewayStore, hostId: string, i: number): Promise<void> {
  const holdId = `h-${i}`;
  const placed = await store.placeHold({
    hostId,
    holdId,
    serviceId: "svc",
    interval: { start: NOW + i * HOUR, end: NOW + i * HOUR + HOUR / 2 },
    requirements: [{ type: "bay", candidates: [{ id: "bay-1", capacity: 1 }], units: 1 }],
    ttlMs: HOUR,
    now: NOW,
    owner: {
      agentKey: "agent",
      principal: "principal",
      mandates: [{ rootIss: "iss", jti: "jti", maxBookings: 1e9 }],
    },
    caps: { principalProven: false, maxActiveUnproven: 1e9 },
    payload: "{}",
  });
  if (!placed.ok) throw new Error(`hold ${i}: ${placed.error.reason}`);
  const begun = await store.beginConfirm(hostId, holdId, NOW, HOUR);
  if (!begun.ok) throw new Error(`begin ${i}: ${begun.error.reason}`);
  const done = await store.completeConfirm(
    hostId,
    holdId,
    begun.value.fence,
    { bookingId: `b-${i}`, payload: `{"n":${i}}`, index: { status: "confirmed", keys: [`upstream:${i}`] } },
    NOW + i,
  );
  if (!done.ok) throw new Error(`confirm ${i}: ${done.error.reason}`);
  await store.isPrincipalProven(hostId, "principal", NOW);
}

const store = await open();
const rounds: Array<{ bookings: number; usPerBooking: number }> = [];
try {
  for (let from = 0; from < total; from += 1000) {
    const started = performance.now();
    for (let i = from; i < Math.min(total, from + 1000); i++) await one(store, "bench-host", i);
    rounds.push({
      bookings: Math.min(total, from + 1000),
      usPerBooking: Math.round(((performance.now() - started) * 1000) / 1000),
    });
  }
} finally {
  await store.drop?.();
  await store.close();
}
console.log(JSON.stringify({ store: kind, rounds }));
