/**
 * Load for the cluster topology tests (failover, resharding): the booking core with the Redis
 * hold store on a cluster and synthetic-platform hosts whose in-memory platform counts the
 * bookings it creates; agents that run availability -> hold -> confirm in a loop; and the checks
 * every topology change must pass afterwards.
 */
import { Redis } from "ioredis";
import { expect } from "vitest";
import type { SchcpCaller } from "../../src/edges/schcp/caller.js";
import {
  buildHostRuntime,
  createHostDirectory,
  embeddedDefaultHosts,
} from "../../src/booking/hosts/index.js";
import { CONFIRM_LEASE_MS } from "../../src/booking/confirm/confirm.js";
import { createBookingService } from "../../src/gateway/booking-service.js";
import {
  MemorySyntheticBackend,
  SYNTHETIC_SCENARIOS,
  createSyntheticConnector,
  type SyntheticAppointment,
  type SyntheticWriteOutcome,
} from "../../src/connectors/synthetic/index.js";
import { HoldStoreUnavailableError } from "../../src/holds/port.js";
import { createRedisGatewayStore, RedisKeys, type ReplicaWaitPolicy } from "../../src/holds/redis/index.js";
import { generateEd25519KeyPair, jwkThumbprint } from "../../src/protocol/jose/index.js";
import { issueMandate, verifyMandate } from "../../src/protocol/schcp/mandate/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { consistencyProblems, overbooked, readHostState } from "../holds/redis/inspect.js";
import { sleep, uniquePrefix } from "../support/redis.js";
import { roleOf, type TestRedisCluster } from "../support/redis-cluster.js";

/**
 * Monday 2030-01-07, 09:00 in Toronto; the clock stands still during the load, so no hold
 * expires; only `settleStuckConfirms` moves it, past the confirm lease.
 */
export const NOW = Date.UTC(2030, 0, 7, 14, 0);
const HOSTS = 6;
const AGENTS_PER_HOST = 4;

/** The synthetic platform's store, counting the bookings it creates (upstream truth). */
export class CountingBackend extends MemorySyntheticBackend {
  readonly created: SyntheticAppointment[] = [];
  override async write(
    hostId: string,
    expectedVersion: number,
    appointment: SyntheticAppointment,
    create: boolean,
  ): Promise<SyntheticWriteOutcome> {
    const outcome = await super.write(hostId, expectedVersion, appointment, create);
    if (create && outcome.outcome === "written") this.created.push(appointment);
    return outcome;
  }
}

export async function world(c: TestRedisCluster, replicaWait?: ReplicaWaitPolicy) {
  const prefix = uniquePrefix("failover");
  const shortfalls: Array<{ hostId: string; acknowledged: number }> = [];
  const s = await createRedisGatewayStore({
    url: c.url,
    keyPrefix: prefix,
    ...(replicaWait !== undefined && {
      replicaWait,
      onReplicaShortfall: ({ hostId, acknowledged }: { hostId: string; acknowledged: number }) =>
        void shortfalls.push({ hostId, acknowledged }),
    }),
  });
  const backend = new CountingBackend();
  let elapsed = 0;
  const clock = { now: () => NOW + elapsed };
  const base = embeddedDefaultHosts().find((h) => h.id === "maple-street-auto");
  const scenario = SYNTHETIC_SCENARIOS["maple-street-auto"];
  if (base === undefined || scenario === undefined) throw new Error("no maple-street-auto");
  const runtimes = [];
  const hostIds: string[] = [];
  for (let i = 0; i < HOSTS; i++) {
    const id = `shop-${i}`;
    hostIds.push(id);
    const connector = createSyntheticConnector({
      scenario: { ...scenario, organization: { ...scenario.organization, id } },
      clock,
      backend,
    });
    // The load is many new guests at one host, as the race over slot moves needs: the new-guest
    // pool (SchCP §7.2, src/booking/public-pool) is raised so it is not the rule under test.
    const policies = { ...base.policies, publicBooking: { perHost: 100_000, perOrigin: 100_000 } };
    const rt = await buildHostRuntime({ ...base, id, policies }, connector, [
      { kid: `${id}-1`, ...generateEd25519KeyPair() },
    ]);
    if (!rt.ok) throw new Error(rt.error.message);
    runtimes.push(rt.value);
  }
  let n = 0;
  const service = createBookingService({
    hosts: createHostDirectory(runtimes),
    store: s,
    clock,
    ids: { next: (p) => `${p}${++n}` },
    outbox: { enqueue: () => Promise.resolve() },
  });
  const advance = (ms: number): void => void (elapsed += ms);
  return { prefix, store: s, backend, service, hostIds, runtimes, shortfalls, advance };
}

export async function guest(hostId: string): Promise<SchcpCaller> {
  const principal = generateEd25519KeyPair();
  const agent = generateEd25519KeyPair();
  const agentKey = jwkThumbprint(agent.publicJwk);
  const nowSec = Math.floor(NOW / 1000);
  const compact = await issueMandate(
    {
      sub: "guest",
      aud: hostId,
      iat: nowSec,
      exp: nowSec + 7 * 86_400,
      jti: `m-${Math.random().toString(36).slice(2)}`,
      cnf: { jkt: agentKey },
      scope: ["hold", "book", "cancel", "reschedule"],
    },
    principal,
  );
  const chain = await verifyMandate(compact, { hostId, nowSec, requestKeyThumbprint: agentKey });
  if (!chain.ok) throw new Error(chain.error.message);
  return { agentKey, mandate: chain.value };
}

/** The master owning a host's slot and (unless `replica: false`) that master's replica, by port. */
export async function shardOf(
  c: TestRedisCluster,
  prefix: string,
  hostId: string,
  options: { replica?: boolean } = {},
): Promise<{ masterPort: number; replicaPort: number }> {
  const admin = new Redis({ host: "127.0.0.1", port: c.ports[0] ?? 0 });
  try {
    const slot = Number(await admin.cluster("KEYSLOT", `${new RedisKeys(prefix).host(hostId)}x`));
    const ranges = (await admin.cluster("SLOTS")) as unknown as Array<[number, number, [string, number]]>;
    const masterPort = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
    if (masterPort === undefined) throw new Error(`no master owns slot ${slot}`);
    if (options.replica === false) return { masterPort, replicaPort: 0 };
    for (const port of c.ports) {
      const role = await roleOf(port);
      if (role.role === "slave" && role.masterPort === masterPort) return { masterPort, replicaPort: port };
    }
    throw new Error(`no replica of the master on ${String(masterPort)}`);
  } finally {
    admin.disconnect();
  }
}

export async function waitForMaster(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await roleOf(port).catch(() => ({ role: "?" }))).role === "master") return;
    await sleep(50);
  }
  throw new Error(`the node on ${port} did not become master within ${timeoutMs} ms`);
}

export type World = Awaited<ReturnType<typeof world>>;

export interface Tally {
  granted: Array<{ hostId: string; holdId: string }>;
  booked: Array<{ hostId: string; bookingId: string; holdId: string; caller: SchcpCaller }>;
  pendingConfirms: Array<{ hostId: string; holdId: string; offer: string; caller: SchcpCaller }>;
  storeErrors: number;
  refusals: Map<string, number>;
}

/** Anything thrown other than the store's explicit error fails the test. */
function explicit(error: unknown, tally: Tally): void {
  if (error instanceof HoldStoreUnavailableError) tally.storeErrors++;
  else throw error;
}

/** Every agent: availability → hold → confirm, until `stop()` says so. */
export function burst(w: World, callers: Array<{ hostId: string; caller: SchcpCaller }>) {
  const tally: Tally = { granted: [], booked: [], pendingConfirms: [], storeErrors: 0, refusals: new Map() };
  const refused = (code: string): void => void tally.refusals.set(code, (tally.refusals.get(code) ?? 0) + 1);
  let stopped = false;
  let ops = 0;
  const run = Promise.all(
    callers.map(async ({ hostId, caller }, a) => {
      for (let i = 0; !stopped; i++) {
        try {
          const slots = await w.service.availability(hostId, caller, {
            service_id: "oil-change",
            window: { start: "2030-01-08T08:00:00-05:00", end: "2030-01-10T18:00:00-05:00" },
            limit: 60,
          });
          if (!slots.ok) {
            refused(slots.error.code);
            continue;
          }
          const slot = slots.value.slots[Math.floor(Math.random() * slots.value.slots.length)];
          if (slot === undefined) break;
          const hold = await w.service.placeHold(hostId, caller, {
            service_id: "oil-change",
            start: slot.start,
            idempotency_key: `h-${a}-${i}`,
          });
          ops++;
          if (!hold.ok) {
            refused(hold.error.code);
            continue;
          }
          tally.granted.push({ hostId, holdId: hold.value.hold_id });
          const pending = { hostId, holdId: hold.value.hold_id, offer: hold.value.offer, caller };
          try {
            const confirmed = await w.service.confirm(hostId, caller, pending.holdId, {
              idempotency_key: `c-${pending.holdId}`,
              offer_sha256: offerSha256(pending.offer),
            });
            ops++;
            if (confirmed.ok) {
              const bookingId = confirmed.value.body.booking.booking_id;
              tally.booked.push({ hostId, bookingId, holdId: pending.holdId, caller });
            } else {
              refused(confirmed.error.code);
              tally.pendingConfirms.push(pending);
            }
          } catch (error) {
            explicit(error, tally);
            tally.pendingConfirms.push(pending);
          }
        } catch (error) {
          explicit(error, tally);
          await sleep(20);
        }
      }
    }),
  );
  return { tally, ops: () => ops, stop: () => ((stopped = true), run) };
}

/** A confirm that failed is retried with the same idempotency key, as its agent would. */
export async function retryConfirms(w: World, tally: Tally): Promise<void> {
  for (const p of tally.pendingConfirms) {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const r = await w.service.confirm(p.hostId, p.caller, p.holdId, {
          idempotency_key: `c-${p.holdId}`,
          offer_sha256: offerSha256(p.offer),
        });
        if (r.ok) tally.booked.push({ ...p, bookingId: r.value.body.booking.booking_id });
        break;
      } catch (error) {
        explicit(error, tally);
        await sleep(100);
      }
    }
  }
}

/**
 * A confirm whose store write failed during a topology change after beginConfirm leaves its hold
 * confirming (the booking may or may not exist upstream); the agent's retry is told "being
 * confirmed" until the lease ends, and then the reconciler settles it by asking the upstream by
 * key (src/booking/reconcile). The load does what the maintenance worker would: the clock moves
 * past the lease and every host is reconciled; a booking recorded there joins the tally.
 */
export async function settleStuckConfirms(w: World, tally: Tally): Promise<number> {
  const pending = new Map(tally.pendingConfirms.map((p) => [p.holdId, p]));
  const booked = new Set(tally.booked.map((b) => b.holdId));
  let settled = 0;
  w.advance(CONFIRM_LEASE_MS + 1_000);
  for (const hostId of w.hostIds) {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const report = await w.service.reconcile(hostId);
        settled += report.recorded.length + report.returned.length;
        if (report.left.length === 0) break;
      } catch (error) {
        explicit(error, tally);
      }
      await sleep(100);
    }
  }
  for (const p of pending.values()) {
    if (booked.has(p.holdId)) continue;
    const hold = await w.store.getHold(p.hostId, p.holdId, NOW);
    if (hold?.state === "booked" && hold.bookingId !== undefined)
      tally.booked.push({ hostId: p.hostId, bookingId: hold.bookingId, holdId: p.holdId, caller: p.caller });
  }
  return settled;
}

/** No resource time double-booked, every host's state consistent, upstream one per booking. */
export async function checkNoDoubleBooking(w: World) {
  const capacity = new Map(w.runtimes[0]?.catalog.resources.map((r) => [r.id, r.capacity]) ?? []);
  let active = 0;
  for (const hostId of w.hostIds) {
    const state = await readHostState(w.store.redis, w.prefix, hostId);
    expect(
      overbooked(state.allocations, (id) => capacity.get(id) ?? 0),
      hostId,
    ).toBe(0);
    expect(consistencyProblems(state), hostId).toEqual([]);
    active += [...state.bookings.values()].filter((b) => b["s"] === "active").length;
  }
  const keys = w.backend.created.map((a) => a.idempotencyKey);
  expect(new Set(keys).size, "one upstream booking per idempotency key (per hold)").toBe(keys.length);
  return { active, upstream: w.backend.created.length };
}

/** One more booking at `hostId` on `day` (default 2030-01-11), start to finish. */
export async function oneMoreBooking(w: World, hostId: string, day = "2030-01-11"): Promise<void> {
  const caller = await guest(hostId);
  const slots = await w.service.availability(hostId, caller, {
    service_id: "oil-change",
    window: { start: `${day}T08:00:00-05:00`, end: `${day}T18:00:00-05:00` },
    limit: 5,
  });
  if (!slots.ok) throw new Error(JSON.stringify(slots.error));
  const start = slots.value.slots[0]?.start ?? "";
  const hold = await w.service.placeHold(hostId, caller, {
    service_id: "oil-change",
    start,
    idempotency_key: `after-${day}`,
  });
  if (!hold.ok) throw new Error(JSON.stringify(hold.error));
  const booked = await w.service.confirm(hostId, caller, hold.value.hold_id, {
    idempotency_key: `after-c-${day}`,
    offer_sha256: offerSha256(hold.value.offer),
  });
  expect(booked.ok).toBe(true);
}

export async function agentsOn(w: World) {
  const callers: Array<{ hostId: string; caller: SchcpCaller }> = [];
  for (const hostId of w.hostIds)
    for (let a = 0; a < AGENTS_PER_HOST; a++) callers.push({ hostId, caller: await guest(hostId) });
  return callers;
}
