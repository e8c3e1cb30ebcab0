/**
 * End to end with Redis: two gateway processes — the real CLI with
 * REDIS_URL and one shared data dir, separate Node processes — serve the same hosts behind one
 * public origin, and a gateway restart loses no hold or booking. Agents use the SDK over HTTP;
 * each request goes to the process the test names. The whole suite runs twice: on one Redis
 * server and on a Redis Cluster (REDIS_URL=redis+cluster://…).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  verifyBookingReceipt,
  verifyHoldOffer,
} from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { openRedis } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix } from "../support/redis.js";
import { startTestRedisCluster } from "../support/redis-cluster.js";
import { HOUR_MS, must, refusalOf } from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { BACKEND_HEADER, startGatewayProcess, startProxy } from "./support/processes.js";
import type { BalancingProxy, GatewayProcess, ProcessEnv } from "./support/processes.js";

/** Where the two processes' Redis comes from: one server, or a Redis Cluster. */
interface RedisTarget {
  readonly label: string;
  start(): Promise<{ url: string; ownServer: boolean; stop(): Promise<void> }>;
}

function twoProcessSuite(target: RedisTarget): void {
  describe(`two gateway processes on one ${target.label}`, () => {
    let redis: { url: string; ownServer: boolean; stop(): Promise<void> };
    let proxy: BalancingProxy;
    let env: ProcessEnv;
    const procs = new Map<string, GatewayProcess>();

    /** An agent whose requests go to the gateway process named in `via`. */
    interface RoutedAgent extends E2eAgent {
      via: string;
    }

    function routedAgent(): RoutedAgent {
      const key = createAgentKey();
      const agent = {
        key,
        keyApp: new KeyApp({ principalKey: createAgentKey() }),
        via: "a",
      } as RoutedAgent;
      (agent as { client: SchcpClient }).client = new SchcpClient({
        agentKey: key,
        fetch: (url, init) =>
          fetch(url, {
            ...init,
            headers: { ...(init.headers as Record<string, string>), [BACKEND_HEADER]: agent.via },
          }),
      });
      return agent;
    }

    async function start(name: string): Promise<GatewayProcess> {
      const p = await startGatewayProcess(name, env);
      procs.set(name, p);
      proxy.backends.set(name, p.url);
      return p;
    }

    beforeAll(async () => {
      redis = await target.start();
      proxy = await startProxy();
      env = {
        publicOrigin: proxy.origin,
        redisUrl: redis.url,
        redisKeyPrefix: uniquePrefix("e2e"),
        dataDir: mkdtempSync(join(tmpdir(), "e2e-redis-gw-")),
        operatorToken: `op-${createAgentKey().thumbprint}`,
      };
      // Both at once on an empty data dir: they must agree on one signing key per host.
      await Promise.all([start("a"), start("b")]);
    }, 90_000);

    afterAll(async () => {
      for (const p of procs.values()) await p.stop();
      await proxy?.close();
      if (redis !== undefined && !redis.ownServer) {
        // The gateway's keys and its BullMQ keys (`{<prefix>…}`), on every master of a cluster.
        const client = openRedis(redis.url);
        for (const prefix of [env.redisKeyPrefix, `{${env.redisKeyPrefix}`]) await dropPrefix(client, prefix);
        client.disconnect();
      }
      await redis?.stop();
      if (env !== undefined) rmSync(env.dataDir, { recursive: true, force: true });
    }, 60_000);

    async function discoverVia(agent: RoutedAgent, via: string, hostId: string): Promise<DiscoveredHost> {
      agent.via = via;
      return must(
        await agent.client.discoverHost(`${proxy.origin}/hosts/${hostId}/scheduling.json`),
        `discover via ${via}`,
      );
    }

    async function freeStarts(
      agent: RoutedAgent,
      host: DiscoveredHost,
      serviceId: string,
      fromDays: number,
    ): Promise<string[]> {
      const now = Date.now();
      const r = await agent.client.availability(host, {
        service_id: serviceId,
        window: {
          start: new Date(now + fromDays * 86_400_000).toISOString(),
          end: new Date(now + (fromDays + 7) * 86_400_000).toISOString(),
        },
        limit: 100,
      });
      return must(r, "availability").body.slots.map((s) => s.start);
    }

    it("publish the same host keys, and share holds and bookings: hold at one, confirm at the other", async () => {
      const agent = routedAgent();
      const hostA = await discoverVia(agent, "a", "maple-street-auto");
      const hostB = await discoverVia(agent, "b", "maple-street-auto");
      expect(hostB.keys).toEqual(hostA.keys);
      expect(hostB.endpoint).toBe(hostA.endpoint);

      const [start] = await freeStarts(agent, hostA, "oil-change", 2);
      const m = await agent.keyApp.issueMandate({
        agent: agent.key,
        audience: "maple-street-auto",
        scope: ["hold", "book", "cancel"],
      });
      agent.via = "a";
      const hold = must(
        await agent.client.hold(hostA, { service_id: "oil-change", start: start! }, { mandate: m.compact }),
        "hold at a",
      );
      const held = must(await verifyHoldOffer(hold.body, hostA), "offer");
      agent.via = "b";
      const seen = must(
        await agent.client.getHold(hostB, hold.body.hold_id, { mandate: m.compact }),
        "get at b",
      );
      expect(seen.body.offer).toBe(hold.body.offer);
      const conf = must(
        await agent.client.confirm(
          hostB,
          hold.body.hold_id,
          { offer_sha256: held.offer.sha256 },
          { mandate: m.compact },
        ),
        "confirm at b",
      );
      const booking = must(
        await verifyBookingReceipt(conf.body, hostA, { offerSha256: held.offer.sha256, mandateJti: m.jti }),
        "receipt",
      );
      agent.via = "a";
      const read = must(
        await agent.client.getBooking(hostA, booking.booking.booking_id, { mandate: m.compact }),
        "read at a",
      );
      expect(read.body.booking).toEqual(booking.booking);
    });

    it("let exactly one of ten agents, spread over both processes, take one barber's slot", async () => {
      const probe = routedAgent();
      const fades = await discoverVia(probe, "a", "fades-on-queen");
      const [start] = await freeStarts(probe, fades, "haircut", 3);
      const agents = Array.from({ length: 10 }, (_, i) => {
        const a = routedAgent();
        a.via = i % 2 === 0 ? "a" : "b";
        return a;
      });
      const results = await Promise.all(
        agents.map(async (a) => {
          const m = await a.keyApp.issueMandate({
            agent: a.key,
            audience: "fades-on-queen",
            scope: ["hold"],
          });
          return a.client.hold(
            fades,
            { service_id: "haircut", start: start!, resource: "barber-marcus" },
            { mandate: m.compact },
          );
        }),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      for (const r of results.filter((x) => !x.ok)) {
        expect(refusalOf(r)).toMatchObject({ code: "SLOT_UNAVAILABLE", reason: "slot_taken" });
      }
      const servedBy = proxy.served.slice(-10);
      expect(new Set(servedBy)).toEqual(new Set(["a", "b"]));
    });

    it("lose no hold or booking across a restart: the hold confirms, the booking reads, an old confirm replays", async () => {
      const agent = routedAgent();
      const maple = await discoverVia(agent, "a", "maple-street-auto");
      const starts = await freeStarts(agent, maple, "oil-change", 4);
      const later = starts.find((s) => Date.parse(s) >= Date.parse(starts[0]!) + 2 * HOUR_MS)!;
      const m = await agent.keyApp.issueMandate({
        agent: agent.key,
        audience: "maple-street-auto",
        scope: ["hold", "book", "cancel"],
      });

      agent.via = "a";
      const booked = must(
        await agent.client.hold(
          maple,
          { service_id: "oil-change", start: starts[0]! },
          { mandate: m.compact },
        ),
        "hold 1",
      );
      const confirmBody = { offer_sha256: offerSha256(booked.body.offer), idempotency_key: "before-restart" };
      const conf = must(
        await agent.client.confirm(maple, booked.body.hold_id, confirmBody, { mandate: m.compact }),
        "confirm 1",
      );
      const bookingId = conf.body.booking.booking_id;
      const pending = must(
        await agent.client.hold(maple, { service_id: "oil-change", start: later }, { mandate: m.compact }),
        "hold 2",
      );

      // Restart a: graceful stop, then a new process on the same data dir and Redis.
      const code = await procs.get("a")!.stop();
      expect(code).toBe(0);
      await start("a");

      agent.via = "a";
      const again = await discoverVia(agent, "a", "maple-street-auto");
      expect(again.keys).toEqual(maple.keys);
      const read = must(
        await agent.client.getBooking(again, bookingId, { mandate: m.compact }),
        "booking after restart",
      );
      expect(
        must(await verifyBookingReceipt(read.body, maple, { bookingId }), "old keys verify").booking.status,
      ).toBe("confirmed");
      const replay = must(
        await agent.client.confirm(again, booked.body.hold_id, confirmBody, { mandate: m.compact }),
        "replay",
      );
      expect(replay.body.booking.booking_id).toBe(bookingId);

      const held = must(
        await agent.client.getHold(again, pending.body.hold_id, { mandate: m.compact }),
        "hold after restart",
      );
      expect(held.body).toMatchObject({ status: "held", offer: pending.body.offer });
      const conf2 = must(
        await agent.client.confirm(
          again,
          pending.body.hold_id,
          { offer_sha256: offerSha256(pending.body.offer) },
          { mandate: m.compact },
        ),
        "confirm after restart",
      );
      expect(conf2.status).toBe(201);

      // And with the other process gone too, the restarted one still has everything.
      await procs.get("b")!.stop();
      proxy.backends.delete("b");
      const list = await fetch(`${proxy.origin}/operator/v0/maple-street-auto/bookings`, {
        headers: { authorization: `Bearer ${env.operatorToken}`, [BACKEND_HEADER]: "a" },
      });
      const ids = ((await list.json()) as { bookings: { booking: { booking_id: string } }[] }).bookings.map(
        (b) => b.booking.booking_id,
      );
      expect(ids).toEqual(expect.arrayContaining([bookingId, conf2.body.booking.booking_id]));
    }, 90_000);
  });
}

twoProcessSuite({ label: "Redis", start: startTestRedis });
twoProcessSuite({ label: "Redis Cluster", start: startTestRedisCluster });
