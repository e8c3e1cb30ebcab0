/**
 * SchCP §7.8: a host's stored contact list, the same contract on memory, a real Redis
 * (REDIS_URL, else one of the test's own) and a real Redis Cluster (REDIS_CLUSTER_NODES, else
 * one of the test's own), and the access check that reads it at every request: availability,
 * a hold, the waitlist and confirm, with the host's owner always let in (§7.7), and a contact
 * removed between a hold and its confirm refused at the confirm.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MAX_CONTACTS_PER_HOST,
  MemoryContactStore,
  RedisContactStore,
  hostAccess,
  type ContactStore,
} from "../../../src/booking/hosts/contacts.js";
import type { HostConfig } from "../../../src/booking/api.js";
import { availability } from "../../../src/edges/schcp/availability.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import { joinWaitlist } from "../../../src/booking/waitlist/join.js";
import { coreCaller } from "../../../src/edges/schcp/caller.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import type { RedisClient } from "../../../src/redis/client.js";
import { principalUrn, jwkThumbprint } from "../../../src/protocol/jose/jwk.js";
import { generateEd25519KeyPair } from "../../../src/protocol/jose/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";
import {
  agent,
  caller,
  deps,
  hostConfig,
  otherPrincipal,
  principal,
  principalOf,
  refusalOf,
  runtime,
  valueOf,
} from "../holds/support.js";

const HOST = "maple-street-auto";
const someone = () => principalUrn(jwkThumbprint(generateEd25519KeyPair().publicJwk));

let redis: TestRedis | undefined;
let cluster: TestRedisCluster | undefined;
const clients: Array<{ client: RedisClient; prefixes: string[] }> = [];

beforeAll(async () => {
  redis = await startTestRedis();
  cluster = await startTestRedisCluster();
  for (const url of [redis.url, cluster.url]) {
    const client = createClient({ url });
    await connectClient(client, url);
    clients.push({ client, prefixes: [] });
  }
}, 60_000);
afterAll(async () => {
  for (const { client, prefixes } of clients) {
    for (const p of prefixes) await dropPrefix(client, p);
    await client.quit();
  }
  await redis?.stop();
  await cluster?.stop();
});

const redisStore = (i: number) => (): ContactStore => {
  const c = clients[i];
  if (c === undefined) throw new Error("no Redis");
  const prefix = uniquePrefix("contacts");
  c.prefixes.push(prefix);
  return new RedisContactStore(c.client, prefix);
};

const backends: Array<[string, () => ContactStore]> = [
  ["memory", () => new MemoryContactStore()],
  ["redis", redisStore(0)],
  ["redis cluster", redisStore(1)],
];

describe.each(backends)("§7.8 the contact store (%s)", (_, open) => {
  it("adds, renames, lists by name, checks and removes, per host", async () => {
    const store = open();
    const [ana, bo] = [someone(), someone()];
    expect(await store.add(HOST, { principal: bo, name: "Bo", addedAt: 1 })).toBe("added");
    expect(await store.add(HOST, { principal: ana, name: "  Ana   Lee ", addedAt: 2 })).toBe("added");
    expect((await store.list(HOST)).map((c) => c.name)).toEqual(["Ana Lee", "Bo"]);
    expect(await store.add(HOST, { principal: bo, name: "Bo Chen", addedAt: 3 })).toBe("updated");
    expect(await store.list(HOST)).toEqual([
      { principal: ana, name: "Ana Lee", addedAt: 2 },
      { principal: bo, name: "Bo Chen", addedAt: 3 },
    ]);
    expect(await store.has(HOST, ana)).toBe(true);
    expect(await store.has("another-host", ana)).toBe(false);
    expect(await store.remove(HOST, ana)).toBe(true);
    expect(await store.remove(HOST, ana)).toBe(false);
    expect(await store.has(HOST, ana)).toBe(false);
    expect((await store.list(HOST)).map((c) => c.principal)).toEqual([bo]);
  });

  it("refuses what is not a principal id or a bounded, printable name", async () => {
    const store = open();
    for (const bad of [
      { principal: "urn:example:someone", name: "X" },
      { principal: someone(), name: "   " },
      { principal: someone(), name: "x".repeat(101) },
      { principal: someone(), name: "line\u0000break" },
    ])
      expect(await store.add(HOST, { ...bad, addedAt: 0 })).toBe("invalid");
    expect(await store.list(HOST)).toEqual([]);
  });

  it(`keeps at most ${MAX_CONTACTS_PER_HOST} contacts per host; renaming one still works when full`, async () => {
    const store = open();
    const first = someone();
    await store.add(HOST, { principal: first, name: "First", addedAt: 0 });
    await Promise.all(
      Array.from({ length: MAX_CONTACTS_PER_HOST - 1 }, (_, i) =>
        store.add(HOST, { principal: someone(), name: `Contact ${i}`, addedAt: 0 }),
      ),
    );
    // Parallel adds past the cap: every one refused, none stored (one atomic step each).
    const late = await Promise.all(
      [1, 2, 3].map(() => store.add(HOST, { principal: someone(), name: "Late", addedAt: 0 })),
    );
    expect(late).toEqual(["full", "full", "full"]);
    expect((await store.list(HOST)).length).toBe(MAX_CONTACTS_PER_HOST);
    expect(await store.add(HOST, { principal: first, name: "Renamed", addedAt: 1 })).toBe("updated");
  });
});

describe.each(backends)("§7.8 access reads the stored list at every request (%s)", (_, open) => {
  const contactsOnly = (over: Record<string, unknown> = {}): HostConfig =>
    hostConfig({}, { access: "contacts", contacts: [], waitlist: { offer_ttl: "PT5M" }, ...over });
  const world = (config: HostConfig, contacts: ContactStore) => ({ ...deps([runtime(config)]), contacts });
  const hold = (d: ReturnType<typeof world>, who: Awaited<ReturnType<typeof caller>>) =>
    placeHold(d, HOST, who, {
      service_id: "oil-change",
      start: "2026-10-15T13:00:00-04:00",
      idempotency_key: "k-1",
    });
  const query = (d: ReturnType<typeof world>, who: Awaited<ReturnType<typeof caller>>) =>
    availability(d, HOST, who, {
      service_id: "oil-change",
      window: { start: "2026-10-15T09:00:00-04:00", end: "2026-10-15T17:00:00-04:00" },
    });

  it("a principal on the stored list is let in to availability, holds and the waitlist; one removed is not", async () => {
    const contacts = open();
    const d = world(contactsOnly(), contacts);
    const who = await caller();
    refusalOf(await query(d, who), "NOT_PERMITTED", "not_a_contact", {
      policy: "access",
      access: "contacts",
    });
    refusalOf(await hold(d, who), "NOT_PERMITTED", "not_a_contact");
    await contacts.add(HOST, { principal: principalOf(principal), name: "Priya", addedAt: 0 });
    expect(valueOf(await query(d, who)).slots.length).toBeGreaterThan(0);
    valueOf(await hold(d, who));
    const host = d.hosts.get(HOST)!;
    const join = () =>
      joinWaitlist(d, host, {
        serviceId: "oil-change",
        caller: coreCaller(d.store, HOST, who),
        edges: ["schcp"],
        window: {
          start: Date.parse("2026-10-16T09:00:00-04:00"),
          end: Date.parse("2026-10-16T17:00:00-04:00"),
        },
      });
    const joined = await join();
    // Whatever else the waitlist says, it is not the access refusal.
    if (!joined.ok) expect(joined.error.reason).not.toBe("not_a_contact");
    await contacts.remove(HOST, principalOf(principal));
    refusalOf(await query(d, who), "NOT_PERMITTED", "not_a_contact");
    const again = await join();
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.reason).toBe("not_a_contact");
  });

  it("a contact removed between hold and confirm cannot confirm (403 NOT_PERMITTED not_a_contact)", async () => {
    const contacts = open();
    const d = world(contactsOnly(), contacts);
    const who = await caller();
    await contacts.add(HOST, { principal: principalOf(principal), name: "Priya", addedAt: 0 });
    const held = valueOf(await hold(d, who));
    await contacts.remove(HOST, principalOf(principal));
    const e = refusalOf(
      await confirmHold(d, HOST, who, held.hold_id, {
        idempotency_key: "c-1",
        offer_sha256: offerSha256(held.offer),
      }),
      "NOT_PERMITTED",
      "not_a_contact",
      { policy: "access", access: "contacts" },
    );
    // §7.8: the refusal reveals nothing of the list.
    expect(JSON.stringify(e)).not.toContain(principalOf(principal));
    expect(await d.store.getHold(HOST, held.hold_id, d.clock.now())).toMatchObject({ state: "held" });
  });

  it("a contact still listed passes the confirm's check; the host's owner passes with an empty list (§7.7)", async () => {
    const contacts = open();
    const d = world(contactsOnly(), contacts);
    await contacts.add(HOST, { principal: principalOf(principal), name: "Priya", addedAt: 0 });
    const who = await caller();
    const held = valueOf(await hold(d, who));
    // Past every check to the upstream's create (which this fake connector does not do).
    const booked = await confirmHold(d, HOST, who, held.hold_id, {
      idempotency_key: "c-1",
      offer_sha256: offerSha256(held.offer),
    });
    expect(booked.ok ? "booked" : booked.error.upstream?.message).toBe("not in this fake");

    const owned: HostConfig = { ...contactsOnly(), kind: "person", owner: principalOf(otherPrincipal) };
    expect(await hostAccess(contacts, owned, principalOf(otherPrincipal))).toBeUndefined();
    expect(await hostAccess(contacts, owned, someone())).toMatchObject({ reason: "not_a_contact" });
    expect(await hostAccess(contacts, owned, null)).toMatchObject({ reason: "not_a_contact" });
    // The configuration's own list still counts beside the stored one.
    const listed = someone();
    expect(await hostAccess(contacts, contactsOnly({ contacts: [listed] }), listed)).toBeUndefined();
    // A public host asks nobody's name.
    expect(await hostAccess(contacts, hostConfig(), null)).toBeUndefined();
    expect(agent).toBeDefined();
  });
});
