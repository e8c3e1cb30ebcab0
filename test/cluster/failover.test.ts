/**
 * A master failover under load (issue #15 "Must show": "CLUSTER FAILOVER on a replica during a
 * burst of holds and confirms — afterwards every granted hold and confirmed booking is present,
 * no resource time is double-booked, no upstream booking is duplicated").
 *
 * The booking core (createBookingService) with the Redis hold store on a PRIVATE 3-master,
 * 3-replica cluster (the topology changes: never a shared one), and synthetic-platform hosts
 * whose in-memory platform counts the bookings it creates. Many agents on several hosts (so
 * several shards) run availability → hold → confirm in a loop; meanwhile the replica of the
 * master that owns the busiest host's slot is told CLUSTER FAILOVER (or, second case, that
 * master is SIGKILLed). An operation may fail during the switch only explicitly: a thrown
 * HoldStoreUnavailableError or a refusal from the core. A confirm that failed is retried with
 * its idempotency key afterwards, as an agent would.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { SchcpCaller } from "../../src/booking/api.js";
import {
  buildHostRuntime,
  createHostDirectory,
  embeddedDefaultHosts,
} from "../../src/booking/hosts/index.js";
import { createBookingService } from "../../src/booking/service.js";
import {
  MemorySyntheticBackend,
  SYNTHETIC_SCENARIOS,
  createSyntheticConnector,
  type SyntheticAppointment,
  type SyntheticWriteOutcome,
} from "../../src/connectors/synthetic/index.js";
import { HoldStoreUnavailableError } from "../../src/holds/port.js";
import { createRedisGatewayStore, RedisKeys, type RedisHoldStore } from "../../src/holds/redis/index.js";
import { generateEd25519KeyPair, jwkThumbprint } from "../../src/protocol/jose/index.js";
import { issueMandate, verifyMandate } from "../../src/protocol/schcp/mandate/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { consistencyProblems, overbooked, readHostState } from "../holds/redis/inspect.js";
import { sleep, uniquePrefix } from "../support/redis.js";
import { roleOf, startOwnRedisCluster, type TestRedisCluster } from "../support/redis-cluster.js";

/** Monday 2030-01-07, 09:00 in Toronto; the clock stands still, so no hold expires. */
const NOW = Date.UTC(2030, 0, 7, 14, 0);
const HOSTS = 6;
const AGENTS_PER_HOST = 4;

/** The synthetic platform's store, counting the bookings it creates (upstream truth). */
class CountingBackend extends MemorySyntheticBackend {
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

let cluster: TestRedisCluster | undefined;
let store: RedisHoldStore | undefined;
afterEach(async () => {
  await store?.close().catch(() => undefined);
  await cluster?.stop();
  store = undefined;
  cluster = undefined;
});

async function world(c: TestRedisCluster) {
  const prefix = uniquePrefix("failover");
  const s = await createRedisGatewayStore({ url: c.url, keyPrefix: prefix });
  store = s;
  const backend = new CountingBackend();
  const clock = { now: () => NOW };
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
    const rt = await buildHostRuntime({ ...base, id }, connector, [
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
  return { prefix, store: s, backend, service, hostIds, runtimes };
}

async function guest(hostId: string): Promise<SchcpCaller> {
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

/** The master owning a host's slot and that master's replica, by port. */
async function shardOf(c: TestRedisCluster, prefix: string, hostId: string) {
  const admin = new Redis({ host: "127.0.0.1", port: c.ports[0] ?? 0 });
  try {
    const slot = Number(await admin.cluster("KEYSLOT", `${new RedisKeys(prefix).host(hostId)}x`));
    const ranges = (await admin.cluster("SLOTS")) as unknown as Array<[number, number, [string, number]]>;
    const masterPort = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
    if (masterPort === undefined) throw new Error(`no master owns slot ${slot}`);
    for (const port of c.ports) {
      const role = await roleOf(port);
      if (role.role === "slave" && role.masterPort === masterPort) return { masterPort, replicaPort: port };
    }
    throw new Error(`no replica of the master on ${String(masterPort)}`);
  } finally {
    admin.disconnect();
  }
}

async function waitForMaster(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await roleOf(port).catch(() => ({ role: "?" }))).role === "master") return;
    await sleep(50);
  }
  throw new Error(`the node on ${port} did not become master within ${timeoutMs} ms`);
}

type World = Awaited<ReturnType<typeof world>>;

interface Tally {
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
function burst(w: World, callers: Array<{ hostId: string; caller: SchcpCaller }>) {
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
async function retryConfirms(w: World, tally: Tally): Promise<void> {
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

/** No resource time double-booked, every host's state consistent, upstream one per booking. */
async function checkNoDoubleBooking(w: World) {
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

async function oneMoreBooking(w: World, hostId: string): Promise<void> {
  const caller = await guest(hostId);
  const slots = await w.service.availability(hostId, caller, {
    service_id: "oil-change",
    window: { start: "2030-01-11T08:00:00-05:00", end: "2030-01-11T18:00:00-05:00" },
    limit: 5,
  });
  if (!slots.ok) throw new Error(JSON.stringify(slots.error));
  const start = slots.value.slots[0]?.start ?? "";
  const hold = await w.service.placeHold(hostId, caller, {
    service_id: "oil-change",
    start,
    idempotency_key: "after",
  });
  if (!hold.ok) throw new Error(JSON.stringify(hold.error));
  const booked = await w.service.confirm(hostId, caller, hold.value.hold_id, {
    idempotency_key: "after-c",
    offer_sha256: offerSha256(hold.value.offer),
  });
  expect(booked.ok).toBe(true);
}

async function agentsOn(w: World) {
  const callers: Array<{ hostId: string; caller: SchcpCaller }> = [];
  for (const hostId of w.hostIds)
    for (let a = 0; a < AGENTS_PER_HOST; a++) callers.push({ hostId, caller: await guest(hostId) });
  return callers;
}

describe("booking on a Redis Cluster through a master failover", { timeout: 120_000 }, () => {
  it("CLUSTER FAILOVER during a burst of holds and confirms loses no granted hold or booking and books nothing twice", async () => {
    const c = await startOwnRedisCluster({ nodeTimeoutMs: 2000 });
    cluster = c;
    const w = await world(c);
    const shards = new Set<number | undefined>();
    for (const hostId of w.hostIds) shards.add((await shardOf(c, w.prefix, hostId)).masterPort);
    expect(shards.size, "the hosts span several shards").toBeGreaterThan(1);
    const busy = w.hostIds[0] ?? "";
    const { masterPort, replicaPort } = await shardOf(c, w.prefix, busy);

    const load = burst(w, await agentsOn(w));
    while (load.ops() < 40) await sleep(20);
    const before = load.ops();
    const admin = new Redis({ host: "127.0.0.1", port: replicaPort });
    try {
      // A coordinated failover: the replica catches up with its master before taking over.
      expect(await admin.cluster("FAILOVER")).toBe("OK");
    } finally {
      admin.disconnect();
    }
    await waitForMaster(replicaPort);
    expect((await roleOf(replicaPort)).role).toBe("master");
    const atSwitch = load.ops();
    while (load.ops() < atSwitch + 40) await sleep(20);
    await load.stop();
    const { tally } = load;
    expect(load.ops()).toBeGreaterThan(before);
    await retryConfirms(w, tally);

    // Every hold the store granted is still there: held, or booked once confirmed.
    const now = NOW;
    const bookedHolds = new Set(tally.booked.map((b) => b.holdId));
    for (const g of tally.granted) {
      const hold = await w.store.getHold(g.hostId, g.holdId, now);
      expect(hold?.state, g.holdId).toBe(bookedHolds.has(g.holdId) ? "booked" : "held");
    }
    // Every booking confirmed is present and readable.
    for (const b of tally.booked) {
      const read = await w.service.getBooking(b.hostId, b.caller, b.bookingId);
      expect(read.ok, b.bookingId).toBe(true);
    }
    const { active, upstream } = await checkNoDoubleBooking(w);
    expect(active).toBe(tally.booked.length);
    expect(upstream, "upstream bookings == bookings confirmed").toBe(tally.booked.length);
    expect(new Set(tally.booked.map((b) => b.bookingId)).size).toBe(tally.booked.length);

    // The old master is now a replica of the new one, and the busy host books again.
    expect((await roleOf(masterPort)).role).toBe("slave");
    await oneMoreBooking(w, busy);
    console.log(
      `failover: ${tally.granted.length} holds granted, ${tally.booked.length} booked, ` +
        `${tally.storeErrors} store errors, refusals ${JSON.stringify(Object.fromEntries(tally.refusals))}`,
    );
  });

  it("a master SIGKILLed during holds: its replica takes over; errors are explicit and nothing that survives is double-booked", async () => {
    const c = await startOwnRedisCluster({ nodeTimeoutMs: 1000 });
    cluster = c;
    const w = await world(c);
    const busy = w.hostIds[0] ?? "";
    const { masterPort, replicaPort } = await shardOf(c, w.prefix, busy);

    const load = burst(w, await agentsOn(w));
    while (load.ops() < 40) await sleep(20);
    await c.kill?.(masterPort);
    // The replica is elected once the master has been silent for cluster-node-timeout.
    await waitForMaster(replicaPort);
    const atSwitch = load.ops();
    while (load.ops() < atSwitch + 40) await sleep(20);
    await load.stop();
    const { tally } = load;
    await retryConfirms(w, tally);

    // Replication is asynchronous: a hold or booking acknowledged just before the kill may not
    // have reached the replica, so "every granted hold is present" is NOT guaranteed here (it
    // is in the coordinated failover above). What is: every failure was explicit (burst()
    // rethrows anything else), a replica applies a script's writes whole, so what survives is
    // consistent and never over capacity, and the platform never books one hold twice.
    const { active, upstream } = await checkNoDoubleBooking(w);
    expect(active).toBeLessThanOrEqual(upstream);
    await oneMoreBooking(w, busy);
    console.log(
      `kill: ${tally.granted.length} holds granted, ${tally.booked.length} booked (${active} active after), ` +
        `${upstream} upstream, ${tally.storeErrors} store errors, refusals ${JSON.stringify(Object.fromEntries(tally.refusals))}`,
    );
  });
});
