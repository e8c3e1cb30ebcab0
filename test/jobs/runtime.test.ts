import { randomBytes } from "node:crypto";
import { holdExpiredWebhook } from "../../src/edges/schcp/hold-expired.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryHoldStore } from "../../src/holds/memory/memory-store.js";
import { createRedisGatewayStore } from "../../src/holds/redis/index.js";
import { createPublicFetch } from "../../src/jobs/outbound/public-fetch.js";
import { createGatewayJobs } from "../../src/jobs/runtime.js";
import { Redis } from "ioredis";
import { dropPrefix, startTestRedis, uniquePrefix } from "../support/redis.js";
import type { TestRedis } from "../support/redis.js";
import { TTL, holdRequest, payload, placeOrThrow } from "./maintenance/fixtures.js";
import { discoveryKeys, fakeHosts, hostKey, recordingLogger, startAgent, waitFor } from "./support.js";

const HOST = "maple-street-auto";
const key = hostKey("maple-street-auto-2026-10");
const hosts = fakeHosts({ [HOST]: [key] });
const fetch = createPublicFetch({ allowPrivateForTests: true });
const intervals = { sweepMs: 20, reconcileMs: 20, approvalsMs: 20 };

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
const prefixes: string[] = [];
afterAll(async () => {
  const client = new Redis(redis.url);
  for (const prefix of prefixes) await dropPrefix(client, prefix);
  await client.quit();
  await redis.stop();
});

describe("createGatewayJobs", () => {
  it.each(["embedded", "redis"] as const)(
    "%s mode: a lapsed hold reaches its agent as one signed hold.expired; reconcile runs per host",
    async (mode) => {
      const agent = await startAgent(discoveryKeys([key]));
      const keyPrefix = uniquePrefix("jobs");
      const bullPrefix = `{t-${randomBytes(6).toString("hex")}}`;
      prefixes.push(keyPrefix, bullPrefix);
      const store =
        mode === "embedded"
          ? new MemoryHoldStore()
          : await createRedisGatewayStore({ url: redis.url, keyPrefix });
      const reconciled: string[] = [];
      const lateDeps = { ready: false }; // completed after the jobs exist, as the runtime does
      const jobs = createGatewayJobs({
        hosts,
        store,
        // One clock signs and sweeps, as in the gateway: real time here, so the agent's
        // freshness check (§3.2) agrees.
        clock: { now: () => Date.now() },
        logger: recordingLogger(),
        expiryNotice: holdExpiredWebhook,
        intervals,
        fetch,
        reconcile: (hostId) => Promise.resolve(lateDeps.ready && reconciled.push(hostId)),
        ...(mode === "redis" ? { redisUrl: redis.url, prefix: bullPrefix } : {}),
      });
      lateDeps.ready = true;
      try {
        await placeOrThrow(
          store,
          holdRequest(HOST, {
            holdId: "h_rt",
            now: Date.now() - TTL - 1000, // placed long enough ago to have lapsed
            payload: payload("h_rt", { callbackUrl: agent.url() }),
          }),
        );
        jobs.start();
        await waitFor(() => agent.received.length === 1 && reconciled.length > 0, 10_000);
        await new Promise((r) => setTimeout(r, 100));
        expect(agent.received).toHaveLength(1);
        expect(agent.received[0]?.verified.ok).toBe(true);
        expect(reconciled[0]).toBe(HOST);
      } finally {
        await jobs.close();
        await store.close();
        await agent.close();
      }
    },
  );
});
