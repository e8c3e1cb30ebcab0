import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { createRedisGatewayStore } from "../../../src/holds/redis/index.js";
import { holdExpiredEventId, holdExpiredWebhook } from "../../../src/edges/schcp/hold-expired.js";
import { sweepExpiredHolds } from "../../../src/jobs/maintenance/sweeper.js";
import { createPublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import { createOutbox } from "../../../src/jobs/webhooks/outbox.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { dropPrefix, startTestRedis, uniquePrefix } from "../../support/redis.js";
import type { TestRedis } from "../../support/redis.js";
import type { Hold } from "../../../src/protocol/schcp/types.js";
import {
  discoveryKeys,
  fakeHosts,
  hostKey,
  recordingLogger,
  sampleHold,
  startAgent,
  waitFor,
} from "../support.js";
import { MINUTE, NOW, OWNER, TTL, holdRequest, payload, placeOrThrow, recordingOutbox } from "./fixtures.js";

const AFTER = NOW + TTL + MINUTE;
const HOST = "maple-street-auto";

function deps(store: MemoryHoldStore | Awaited<ReturnType<typeof createRedisGatewayStore>>, now = AFTER) {
  return {
    store,
    clock: { now: () => now },
    outbox: recordingOutbox(),
    logger: recordingLogger(),
    expiryNotice: holdExpiredWebhook,
  };
}

describe("sweeper: hold.expired and reputation (SchCP §5.8, §7.3)", () => {
  it("sends exactly one hold.expired per expiry, to the hold's callback_url, valid against WebhookEvent", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_a" }));
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_b" }));
    const d = deps(store);
    const first = await sweepExpiredHolds(d);
    const second = await sweepExpiredHolds(d);
    expect(first).toMatchObject({ hosts: 1, expired: 2, events: 2, webhooks: 2, errors: 0 });
    expect(second).toMatchObject({ expired: 0, events: 0, webhooks: 0 });
    expect(d.outbox.sent.map((e) => (e.event["hold"] as { hold_id: string }).hold_id).sort()).toEqual([
      "h_a",
      "h_b",
    ]);

    const sent = d.outbox.sent[0];
    expect(sent?.hostId).toBe(HOST);
    expect(sent?.callbackUrl).toBe("https://agent.example/hooks/schcp");
    expect(validateSchcp("WebhookEvent", sent?.event).ok).toBe(true);
    expect(sent?.event).toMatchObject({
      type: "hold.expired",
      host_id: HOST,
      occurred_at: new Date(NOW + TTL).toISOString().replace(".000", ""),
      hold: { status: "expired", expires_at: new Date(NOW + TTL).toISOString().replace(".000", "") },
    });
    expect(d.logger.entries).toEqual([]);
  });

  it("records 'expired' for the agent, the principal and the attester, once per expiry (§7.3)", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(store, holdRequest(HOST));
    await sweepExpiredHolds(deps(store));
    await sweepExpiredHolds(deps(store));
    for (const subject of [
      { kind: "agent", id: OWNER.agentKey },
      { kind: "principal", id: OWNER.principal ?? "" },
      { kind: "attester", id: OWNER.attester ?? "" },
    ] as const) {
      const counts = await store.reputation(subject, AFTER);
      expect(counts.lifetime, subject.kind).toBe(1);
      expect(counts.expired, subject.kind).toBeGreaterThan(0.99);
    }
  });

  it("an anonymous hold without attester counts against the agent only", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(
      store,
      holdRequest(HOST, { owner: { agentKey: "agent-anon", principal: null, mandates: [] } }),
    );
    await sweepExpiredHolds(deps(store));
    expect((await store.reputation({ kind: "agent", id: "agent-anon" }, AFTER)).lifetime).toBe(1);
  });

  it("sends nothing for a hold without callback_url or for a change offer's hold, but still records reputation", async () => {
    const store = new MemoryHoldStore();
    const { callbackUrl: _omit, ...noCallback } = JSON.parse(payload("h_nocb")) as Record<string, unknown>;
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_nocb", payload: JSON.stringify(noCallback) }));
    await placeOrThrow(
      store,
      holdRequest(HOST, { holdId: "h_chg", payload: payload("h_chg", { kind: "change" }) }),
    );
    const d = deps(store);
    expect(await sweepExpiredHolds(d)).toMatchObject({ events: 2, webhooks: 0 });
    expect(d.outbox.sent).toEqual([]);
    expect((await store.reputation({ kind: "agent", id: OWNER.agentKey }, AFTER)).lifetime).toBe(2);
  });

  it("a host's own offer the guest let lapse (a proposal or counter) is no abandoned hold of theirs: nothing recorded (§7.3)", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(
      store,
      holdRequest(HOST, {
        holdId: "h_offer",
        owner: { ...OWNER, offeredByHost: true },
        payload: payload("h_offer", { kind: "change" }),
      }),
    );
    expect(await sweepExpiredHolds(deps(store))).toMatchObject({ expired: 1, events: 1, errors: 0 });
    for (const subject of [
      { kind: "agent", id: OWNER.agentKey },
      { kind: "principal", id: OWNER.principal ?? "" },
    ] as const)
      expect((await store.reputation(subject, AFTER)).lifetime, subject.kind).toBe(0);
  });

  it("does not touch holds that have not lapsed", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(store, holdRequest(HOST));
    const d = deps(store, NOW + TTL - 1);
    expect(await sweepExpiredHolds(d)).toMatchObject({ expired: 0, events: 0 });
  });

  it("reports a hold expired lazily (by a later placement) exactly once too", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_old" }));
    // A new hold after the first lapsed: the store expires the lapsed one on its own.
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_new", now: AFTER }));
    const d = deps(store);
    expect(await sweepExpiredHolds(d)).toMatchObject({ expired: 0, events: 1, webhooks: 1 });
    expect(d.outbox.sent[0]?.event["event_id"]).toBe(
      holdExpiredEventId((await store.getHold(HOST, "h_old", AFTER)) ?? (undefined as never)),
    );
  });

  it("logs an unreadable payload and carries on with the next expiry", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_bad", payload: "not json" }));
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_good" }));
    const d = deps(store);
    expect(await sweepExpiredHolds(d)).toMatchObject({ events: 2, webhooks: 1 });
    expect(d.logger.entries).toEqual([
      expect.objectContaining({
        level: "error",
        fields: expect.objectContaining({ hold_id: "h_bad" }) as object,
      }),
    ]);
  });

  it("logs a hold whose event would fail the WebhookEvent schema instead of sending it", async () => {
    const store = new MemoryHoldStore();
    const hold = { ...sampleHold("h_x"), payment: "card" } as unknown as Hold; // not a closed Hold
    const broken = payload("h_x", { hold });
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_x", payload: broken }));
    const d = deps(store);
    expect(await sweepExpiredHolds(d)).toMatchObject({ events: 1, webhooks: 0 });
    expect(d.logger.entries[0]?.message).toContain("WebhookEvent");
  });

  it("one host's failure does not stop the others", async () => {
    const store = new MemoryHoldStore();
    await placeOrThrow(store, holdRequest("host-broken"));
    await placeOrThrow(store, holdRequest(HOST, { holdId: "h_ok" }));
    // The same store, except that sweeping one host throws (its Redis shard is down, say).
    const failing = Object.create(store) as MemoryHoldStore;
    failing.sweepExpired = (hostId, now, limit) =>
      hostId === "host-broken" ? Promise.reject(new Error("boom")) : store.sweepExpired(hostId, now, limit);
    const d = deps(failing);
    const report = await sweepExpiredHolds(d);
    expect(report).toMatchObject({ hosts: 2, errors: 1, webhooks: 1 });
    expect(d.logger.entries[0]).toMatchObject({
      level: "error",
      fields: { host_id: "host-broken", error: "boom" },
    });
  });

  it("end to end: the agent receives one signed hold.expired per expiry through the in-process outbox", async () => {
    const key = hostKey("maple-street-auto-2026-10");
    const agent = await startAgent(discoveryKeys([key]));
    try {
      const store = new MemoryHoldStore();
      const cb = agent.url("/cb");
      await placeOrThrow(
        store,
        holdRequest(HOST, { holdId: "h_e2e1", payload: payload("h_e2e1", { callbackUrl: cb }) }),
      );
      await placeOrThrow(
        store,
        holdRequest(HOST, { holdId: "h_e2e2", payload: payload("h_e2e2", { callbackUrl: cb }) }),
      );
      const logger = recordingLogger();
      const outbox = createOutbox({
        mode: "memory",
        hosts: fakeHosts({ [HOST]: [key] }),
        clock: { now: () => Date.now() },
        logger,
        fetch: createPublicFetch({ allowPrivate: true }),
      });
      const d = { store, clock: { now: () => AFTER }, outbox, logger, expiryNotice: holdExpiredWebhook };
      await sweepExpiredHolds(d);
      await sweepExpiredHolds(d);
      await waitFor(() => agent.received.length >= 2);
      await outbox.close();
      expect(agent.received).toHaveLength(2);
      expect(agent.received.every((r) => r.verified.ok && r.path === "/cb")).toBe(true);
      const ids = agent.received.map(
        (r) => (JSON.parse(r.body) as { hold: { hold_id: string } }).hold.hold_id,
      );
      expect(ids.sort()).toEqual(["h_e2e1", "h_e2e2"]);
    } finally {
      await agent.close();
    }
  });
});

describe("sweeper against the Redis store: two processes, still one hold.expired per expiry", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it("two concurrent sweepers (separate connections) report each of 20 expiries once between them", async () => {
    const keyPrefix = uniquePrefix("sweeper");
    const a = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    const b = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    try {
      for (let i = 0; i < 20; i++) await placeOrThrow(a, holdRequest(HOST, { holdId: `h_r${i}` }));
      const da = deps(a);
      const db = deps(b);
      await Promise.all([sweepExpiredHolds(da, { batch: 3 }), sweepExpiredHolds(db, { batch: 3 })]);
      await Promise.all([sweepExpiredHolds(da, { batch: 3 }), sweepExpiredHolds(db, { batch: 3 })]);
      const ids = [...da.outbox.sent, ...db.outbox.sent].map(
        (e) => (e.event["hold"] as { hold_id: string }).hold_id,
      );
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
      expect((await a.reputation({ kind: "agent", id: OWNER.agentKey }, AFTER)).lifetime).toBe(20);
    } finally {
      await dropPrefix(a.redis, keyPrefix);
      await a.close();
      await b.close();
    }
  });

  it("a host's own offer keeps its mark through the store: its lapse records nothing (§7.3)", async () => {
    const keyPrefix = uniquePrefix("sweeper-offer");
    const a = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    const b = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    try {
      const offer = { ...OWNER, agentKey: "agent-offered", offeredByHost: true as const };
      await placeOrThrow(a, holdRequest(HOST, { holdId: "h_offer_r", owner: offer }));
      expect((await a.getHold(HOST, "h_offer_r", NOW))?.owner.offeredByHost).toBe(true);
      expect(await sweepExpiredHolds(deps(b))).toMatchObject({ expired: 1, events: 1, errors: 0 });
      expect((await b.reputation({ kind: "agent", id: "agent-offered" }, AFTER)).lifetime).toBe(0);
    } finally {
      await dropPrefix(a.redis, keyPrefix);
      await a.close();
      await b.close();
    }
  });
});
