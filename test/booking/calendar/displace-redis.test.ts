/**
 * Displacement (SchCP §5.8) against a real Redis (REDIS_URL, else a redis-server of the test's
 * own): the unit move is the store's Lua allocation and move scripts, so two syncs racing on
 * one host still never put two bookings on a unit's time, and what was offered is remembered
 * in Redis so a repeated sync does not offer again. Keys live under the test's own prefix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisCalendarStateStore } from "../../../src/booking/calendar/state.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../../src/holds/redis/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { busy, displaceWorld, tue } from "./support/displace-world.js";

let redis: TestRedis | undefined;
const opened: Array<{ store: RedisHoldStore; prefix: string }> = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  for (const { store, prefix } of opened) {
    await dropPrefix(store.redis, prefix);
    await store.close();
  }
  await redis?.stop();
});

async function redisWorld(opts: { units: number; mapped: string[] }) {
  if (redis === undefined) throw new Error("no test Redis");
  const prefix = uniquePrefix("displace");
  const store = await createRedisGatewayStore({ url: redis.url, keyPrefix: prefix });
  opened.push({ store, prefix });
  const state = new RedisCalendarStateStore(store.redis, prefix);
  return displaceWorld({ ...opts, store, state, hostId: `cal-${prefix.split(":").at(-2) ?? "x"}` });
}

describe("calendar displacement on Redis (SchCP §5.8)", () => {
  it("moves a booking to the free chair atomically; two syncs at once never double book", async () => {
    const w = await redisWorld({ units: 3, mapped: ["chair-1", "chair-2"] });
    await w.start();
    const a = await w.book(tue("10:00"));
    const b = await w.book(tue("10:00"));
    w.calendar("chair-1-cal").put(busy("x1", "10:00", "11:00"));
    w.calendar("chair-2-cal").put(busy("x2", "10:00", "11:00"));
    const [first, second] = await Promise.all([w.sync(), w.sync()]);
    expect(await w.doubleBooked()).toEqual([]);
    const units = [
      (await w.bookingState(a.bookingId)).record.allocations,
      (await w.bookingState(b.bookingId)).record.allocations,
    ]
      .flat()
      .map((x) => x.resourceId);
    expect(units).toContain("chair-3");
    expect(new Set(units).size).toBe(2);
    // Between them the two syncs moved one booking and offered the other a new time.
    const outcomes = [...(first.conflicts ?? []), ...(second.conflicts ?? [])].map((c) => c.outcome);
    expect(outcomes).toContain("moved");
    expect(outcomes).toContain("change_offered");
  });

  it("a repeated sync finds the offer it made in Redis and makes no second one", async () => {
    const w = await redisWorld({ units: 2, mapped: ["chair-1"] });
    await w.start();
    const { bookingId } = await w.book(tue("10:00"), "chair-1");
    w.calendar("chair-1-cal").put(busy("walk-in", "09:30", "11:30"));
    const first = (await w.sync()).conflicts?.[0];
    expect(first).toMatchObject({ bookingId, outcome: "change_offered" });
    expect(first?.proposal?.start).toBe(tue("11:30"));
    w.clock.advance(5 * 60_000);
    expect((await w.sync()).conflicts?.[0]).toEqual(first);
    expect(w.outbox.events.filter((e) => e.event.type === "booking.change_proposed")).toHaveLength(1);
    expect(Object.keys(await w.state.displacements(w.hostId))).toEqual([bookingId]);
  });
});
