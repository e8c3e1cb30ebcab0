/**
 * End to end over real HTTP, on both stores (memory and Redis): SchCP §7.5 attestations with
 * the §7.2 pools and §7.3 attester reputation.
 *
 * maple-street-auto keeps a new-guest pool of two (max_active_unproven) and trusts one
 * attester. Two unproven principals fill the pool; a third is refused new_guest_pool_full with
 * the attest remedy naming the attester (§9.2). A newcomer the attester vouches for is admitted
 * past the full pool (its hold draws on max_active_per_attester). Then the attester's vouchees
 * abandon their holds (the clock passes their TTL, the sweeper records "expired" for each
 * subject) until the attester's reputation cap is zero: its next vouchee falls back to the
 * ordinary new-guest pool, refused while that is full and admitted once there is room.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Attester } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import type { Slot } from "../../src/protocol/schcp/types.js";
import { ttlCapMs } from "../../src/holds/reputation.js";
import { startTestRedis, uniquePrefix } from "../support/redis.js";
import type { TestRedis } from "../support/redis.js";
import { discover, freeSlots, must, newAgent, openMandate, refusalOf } from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { defaultConfig, startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

const HOST = "maple-street-auto";
const ATTESTER = "phonecheck.example";
const TTL_MS = 10 * 60_000;

const stores: Array<[string, boolean]> = [
  ["memory", false],
  ["redis", true],
];

describe.each(stores)("§7.5 attestations end to end (%s store)", (_name, useRedis) => {
  let redis: TestRedis | undefined;
  let gw: E2eGateway;
  let attester: Attester;
  let slots: Slot[];
  let next = 0;
  const slot = () => {
    const s = slots[next++];
    if (s === undefined) throw new Error("out of free slots");
    return s.start;
  };

  beforeAll(async () => {
    if (useRedis) redis = await startTestRedis();
    const config = defaultConfig();
    // The attester's clock is the gateway's (its iat must not be ahead of the host's now).
    attester = new Attester({ id: ATTESTER, clock: { now: () => Date.now() } });
    for (const host of config.hosts) {
      if (host.id !== HOST) continue;
      host.policies = {
        ...host.policies,
        holds: { max_ttl: "PT10M", max_active_unproven: 2, max_active_per_attester: 3 },
      };
      host["trust"] = { attesters: [attester.trustEntry("PhoneCheck")] };
    }
    gw = await startGateway({
      config,
      runtime: { workers: { sweepMs: 100, reconcileMs: 60_000, approvalsMs: 60_000 } },
      ...(redis !== undefined && { redisUrl: redis.url, redisKeyPrefix: uniquePrefix("attest") }),
    });
    attester = new Attester({ id: ATTESTER, key: attester.key, clock: gw.clock });
    const scout = newAgent(gw);
    const free = await freeSlots(scout, gw, await discover(scout, gw, HOST), "oil-change", {
      fromDays: 2,
      toDays: 12,
      limit: 500,
    });
    // Two hours apart, so no two holds ever compete for a bay or a technician.
    slots = [];
    let last = -Infinity;
    for (const s of free) {
      const at = Date.parse(s.start);
      if (at - last < 2 * 3_600_000) continue;
      slots.push(s);
      last = at;
    }
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await redis?.stop();
  });

  /** A new agent for a new principal: attested by the attester, or not. */
  async function newcomer(
    attested: boolean,
  ): Promise<{ agent: E2eAgent; host: DiscoveredHost; mandate: string }> {
    const agent = newAgent(gw);
    const host = await discover(agent, gw, HOST);
    const attestations = attested
      ? [await attester.attest({ principal: agent.keyApp.principal, assurance: "unique_phone" })]
      : [];
    const m = await openMandate(agent, HOST, { attestations });
    return { agent, host, mandate: m.compact };
  }

  async function hold(who: { agent: E2eAgent; host: DiscoveredHost; mandate: string }) {
    return who.agent.client.hold(
      who.host,
      { service_id: "oil-change", start: slot() },
      { mandate: who.mandate },
    );
  }

  async function attesterCounts() {
    return gw.runtime.store.reputation({ kind: "attester", id: ATTESTER }, gw.clock.now());
  }

  /** Moves the clock past every live hold's TTL and waits for the sweeper to record them. */
  async function abandonAll(expectedLifetime: number): Promise<void> {
    gw.clock.advance(TTL_MS + 60_000);
    const deadline = Date.now() + 15_000;
    while ((await attesterCounts()).lifetime < expectedLifetime) {
      if (Date.now() > deadline) throw new Error(`the sweeper did not record ${expectedLifetime} expiries`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("publishes the attester in trust.attesters and the attestations capability (§2.1)", async () => {
    const { host } = await newcomer(false);
    expect(host.document.trust?.attesters?.map((a) => a.id)).toEqual([ATTESTER]);
    expect(host.document.capabilities).toContain("attestations");
  });

  it("admits an attested newcomer past a full new-guest pool; the attester's cap reaching zero sends its next vouchee back to that pool", async () => {
    // The new-guest pool (max_active_unproven 2) is full of unproven principals' holds.
    const unproven = [await newcomer(false), await newcomer(false)];
    for (const u of unproven) must(await hold(u), "unproven hold");
    const third = refusalOf(await hold(await newcomer(false)));
    expect(third).toMatchObject({ status: 429, code: "HOLD_LIMIT", reason: "new_guest_pool_full" });
    // §9.2: the attest remedy lists the attesters the host trusts.
    expect(third.remedies).toContainEqual({ type: "attest", attesters: [ATTESTER] });

    // §7.5: an attested newcomer draws on the attester's pool instead, so it gets in.
    const vouched = [await newcomer(true), await newcomer(true), await newcomer(true)];
    for (const v of vouched) {
      const held = must(await hold(v), "attested newcomer's hold past the full pool");
      expect(held.status).toBe(201);
    }
    // max_active_per_attester (3) is the attester's own cap.
    const fourth = refusalOf(await hold(await newcomer(true)));
    expect(fourth).toMatchObject({ status: 429, code: "HOLD_LIMIT", reason: "attester_pool_full" });

    // §7.3: the vouchees abandon their holds; each expiry counts against the attester too.
    await abandonAll(3);
    const moreVouched = [await newcomer(true), await newcomer(true)];
    for (const v of moreVouched) must(await hold(v), "attested hold");
    await abandonAll(5);
    const counts = await attesterCounts();
    expect(counts.expired).toBeGreaterThan(4.99);
    expect(ttlCapMs(counts, TTL_MS)).toBe(0);

    // The new-guest pool is full again (the first two lapsed too), of unproven principals.
    const again = [await newcomer(false), await newcomer(false)];
    const againHolds = [];
    for (const u of again) againHolds.push(must(await hold(u), "unproven hold").body.hold_id);

    // The suspended attester's vouchee is not locked out (no holds_suspended): it is an
    // ordinary newcomer, refused while the new-guest pool is full...
    const fallback = await newcomer(true);
    const refused = refusalOf(await hold(fallback));
    expect(refused).toMatchObject({ status: 429, code: "HOLD_LIMIT", reason: "new_guest_pool_full" });

    // ...and admitted once there is room.
    must(
      await again[0]!.agent.client.releaseHold(again[0]!.host, againHolds[0]!, {
        mandate: again[0]!.mandate,
      }),
      "release",
    );
    const admitted = must(await hold(fallback), "the vouchee's hold from the new-guest pool");
    expect(admitted.status).toBe(201);
    // It took the new-guest pool's place (not the attester's): the pool is full again.
    const after = refusalOf(await hold(await newcomer(false)));
    expect(after.reason).toBe("new_guest_pool_full");
    // And its hold is the ordinary one: the store does not record the suspended attester on it.
    const record = await gw.runtime.store.getHold(HOST, admitted.body.hold_id, gw.clock.now());
    expect(record?.owner.attester).toBeUndefined();
  }, 90_000);
});
