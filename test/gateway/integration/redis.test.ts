/**
 * Redis mode over real HTTP: two gateway runtimes on one Redis serve the same hosts (holds,
 * bookings, nonces, idempotency records, rate allowances and the booking index are shared),
 * and a restart loses nothing. (Separate OS processes are exercised by the end-to-end suite.)
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { startTestRedis, uniquePrefix } from "../../support/redis.js";
import type { TestRedis } from "../../support/redis.js";
import { mandateFor, newKey } from "../support/agent.js";
import { RecordingLogger } from "../support/fakes.js";
import { TestClock, agentFetch, startGateway } from "../support/gateway.js";
import type { TestGateway } from "../support/gateway.js";

const MAPLE = "/schcp/v0/maple-street-auto";
/**
 * Redis remembers nonces until an absolute time (SET EXAT), judged by the Redis server's
 * clock, so this test runs on the real date: a weekday two or more days ahead, 17:00-20:00Z
 * (afternoon in Toronto, inside Maple Street's hours in summer and winter time).
 */
function nextWeekdayWindow(nowMs: number): { start: string; end: string } {
  const day = new Date(nowMs + 2 * 86_400_000);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() + 1);
  const date = day.toISOString().slice(0, 10);
  return { start: `${date}T17:00:00Z`, end: `${date}T20:00:00Z` };
}
const NOW = Date.now();
const WINDOW = nextWeekdayWindow(NOW);
let redis: TestRedis;
let dir: string;

beforeAll(async () => {
  redis = await startTestRedis();
  dir = await mkdtemp(join(tmpdir(), "gw-redis-"));
});
afterAll(async () => {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("two gateways on one Redis", () => {
  it("share holds, bookings, nonces, idempotency, rate allowances and the booking index; a restart loses nothing", async () => {
    const prefix = uniquePrefix("gw");
    const clock = new TestClock(NOW);
    const logger = new RecordingLogger();
    const common = {
      dataDir: dir,
      redisUrl: redis.url,
      redisKeyPrefix: prefix,
      clock,
      availabilityRate: { capacity: 3, refillPerSec: 0.001 },
    };
    const a = await startGateway({
      ...common,
      logger,
      workers: { sweepMs: 50, reconcileMs: 50, approvalsMs: 50 },
    });
    const b = await startGateway(common);
    let c: TestGateway | undefined;
    try {
      const agent = newKey();
      const m = await mandateFor({ principal: newKey(), agent, aud: "maple-street-auto", nowSec: clock.sec });

      const slots = await agentFetch(a, agent, {
        method: "POST",
        path: `${MAPLE}/availability`,
        body: { service_id: "oil-change", window: WINDOW },
      });
      expect(slots.status, JSON.stringify(slots.json)).toBe(200);
      const start = (slots.json as { slots: Array<{ start: string }> }).slots[0]?.start;

      const holdBody = { service_id: "oil-change", start, idempotency_key: `k-${prefix}` };
      const hold = await agentFetch(a, agent, {
        method: "POST",
        path: `${MAPLE}/holds`,
        mandate: m,
        body: holdBody,
      });
      expect(hold.status, JSON.stringify(hold.json)).toBe(201);
      const h = hold.json as { hold_id: string; offer: string };

      // B sees A's hold with the same offer bytes, and replays A's stored answer (§9.1).
      const seen = await agentFetch(b, agent, {
        method: "GET",
        path: `${MAPLE}/holds/${h.hold_id}`,
        mandate: m,
      });
      expect(seen.status).toBe(200);
      expect((seen.json as { offer: string }).offer).toBe(h.offer);
      const replay = await agentFetch(b, agent, {
        method: "POST",
        path: `${MAPLE}/holds`,
        mandate: m,
        body: holdBody,
      });
      expect(replay.json).toEqual(hold.json);

      // A nonce spent at A is spent at B (§3.2).
      const nonce = "c2hhcmVkLW5vbmNlLXNoYXJlZA";
      expect(
        (
          await agentFetch(a, agent, {
            method: "GET",
            path: `${MAPLE}/holds/${h.hold_id}`,
            mandate: m,
            nonce,
          })
        ).status,
      ).toBe(200);
      const replayed = await agentFetch(b, agent, {
        method: "GET",
        path: `${MAPLE}/holds/${h.hold_id}`,
        mandate: m,
        nonce,
      });
      expect(replayed.json).toMatchObject({ error: { reason: "replayed_nonce" } });

      // Confirm at B, read at A, list at B (the shared booking index).
      const confirm = await agentFetch(b, agent, {
        method: "POST",
        path: `${MAPLE}/holds/${h.hold_id}/confirm`,
        mandate: m,
        body: { idempotency_key: `c-${prefix}`, offer_sha256: offerSha256(h.offer) },
      });
      expect(confirm.status, JSON.stringify(confirm.json)).toBe(201);
      const bookingId = (confirm.json as { booking: { booking_id: string } }).booking.booking_id;
      const read = await agentFetch(a, agent, {
        method: "GET",
        path: `${MAPLE}/bookings/${bookingId}`,
        mandate: m,
      });
      expect(read.status).toBe(200);
      const listed = await fetch(`${b.url}/operator/v0/maple-street-auto/bookings`, {
        headers: { authorization: `Bearer ${b.runtime.operatorToken}` },
      });
      const ids = (
        (await listed.json()) as { bookings: Array<{ booking: { booking_id: string } }> }
      ).bookings.map((x) => x.booking.booking_id);
      expect(ids).toContain(bookingId);
      // Both processes read the same operator credential and host keys from the shared data dir.
      expect(a.runtime.operatorToken).toBe(b.runtime.operatorToken);

      // One availability allowance per agent key across processes (§7.2): 1 spent above, 2 more.
      const ask = (gw: TestGateway) =>
        agentFetch(gw, agent, {
          method: "POST",
          path: `${MAPLE}/availability`,
          body: { service_id: "oil-change", window: WINDOW },
        });
      expect((await ask(b)).status).toBe(200);
      expect((await ask(a)).status).toBe(200);
      expect((await ask(b)).status).toBe(429);

      // Restart: both close, a new process reads the booking and the same keys.
      const keys = a.runtime.documents.host("maple-street-auto") as { keys: unknown };
      await a.close();
      await b.close();
      c = await startGateway(common);
      const after = await agentFetch(c, agent, {
        method: "GET",
        path: `${MAPLE}/bookings/${bookingId}`,
        mandate: m,
      });
      expect(after.status).toBe(200);
      expect(after.json).toMatchObject({ booking: { booking_id: bookingId, status: "confirmed" } });
      expect((c.runtime.documents.host("maple-street-auto") as { keys: unknown }).keys).toEqual(keys.keys);
      // The workers ran against Redis without a failure.
      expect(logger.lines.filter((l) => l.level === "error")).toEqual([]);
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await c?.close();
    }
  });
});
