/**
 * The whole gateway in-process on a Redis Cluster: hold store, nonces, idempotency,
 * rate limits, the synthetic platform, the console and calendar stores, BullMQ queues and the
 * task lock all on ioredis' Cluster client. An agent discovers two hosts (keys on different
 * shards), holds a slot at each and confirms it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type RunningServer } from "../../src/gateway/cli/cli.js";
import { RedisHoldStore } from "../../src/holds/redis/index.js";
import { eachMaster, openRedis, type RedisClient } from "../../src/redis/client.js";
import { discover, freeSlots, holdAndBook, newAgent } from "../e2e/support/agents.js";
import { startGateway, type E2eGateway } from "../e2e/support/gateway.js";
import { dropPrefix, uniquePrefix } from "../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../support/redis-cluster.js";

let cluster: TestRedisCluster;
let gw: E2eGateway | undefined;
let admin: RedisClient;
const prefix = uniquePrefix("cluster-runtime");

beforeAll(async () => {
  cluster = await startTestRedisCluster();
  admin = openRedis(cluster.url);
  gw = await startGateway({ redisUrl: cluster.url, redisKeyPrefix: prefix });
}, 90_000);
afterAll(async () => {
  await gw?.close();
  await dropPrefix(admin, prefix);
  // BullMQ's and the task lock's keys start with a hash tag around the prefix.
  await dropPrefix(admin, `{${prefix}`);
  admin.disconnect();
  await cluster.stop();
});

describe("the gateway on a Redis Cluster", () => {
  it("discovers, holds and confirms at two hosts", { timeout: 60_000 }, async () => {
    if (gw === undefined) throw new Error("no gateway");
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 3 });
    const booked = await holdAndBook(agent, maple, "oil-change", slot!.start);
    expect(["confirmed", "pending_host"]).toContain(booked.booking.booking.status);

    const dental = await discover(agent, gw, "harbourview-dental");
    const [cleaning] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 3 });
    const second = await holdAndBook(agent, dental, "cleaning", cleaning!.start);
    expect(second.booking.booking.booking_id).not.toBe(booked.booking.booking.booking_id);

    // The host keys lie on the cluster under the prefix, spread over more than one master.
    const perMaster = await eachMaster(
      admin,
      async (node) => (await node.scan("0", "MATCH", `${prefix}*`, "COUNT", 10_000))[1].length,
    );
    expect(perMaster.filter((n) => n > 0).length).toBeGreaterThan(1);
  });

  it(
    "serve passes REDIS_SLOT_MOVE_WAIT_MS to the hold store (5 s unless set)",
    { timeout: 60_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "gw-slot-wait-"));
      const started: RunningServer[] = [];
      try {
        for (const wait of ["1234", undefined]) {
          const result = await runCli(["serve"], {
            env: {
              GATEWAY_DATA_DIR: join(dir, "data"),
              PORT: "0",
              REDIS_URL: cluster.url,
              REDIS_KEY_PREFIX: prefix,
              ...(wait !== undefined && { REDIS_SLOT_MOVE_WAIT_MS: wait }),
            },
            out: () => undefined,
            err: () => undefined,
            cwd: dir,
          });
          if (typeof result === "number" || !("runtime" in result)) throw new Error(`serve did not start`);
          started.push(result);
          const store = result.runtime.store;
          expect(store).toBeInstanceOf(RedisHoldStore);
          expect((store as RedisHoldStore).slotMoveWaitMs).toBe(wait === undefined ? 5000 : 1234);
        }
      } finally {
        for (const s of started) await s.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
