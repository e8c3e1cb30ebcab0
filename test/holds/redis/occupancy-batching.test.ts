/**
 * Occupancy reads of one host gathered into one script call (src/holds/redis/occupancy.ts):
 * each read still sees every write that completed before it was asked (this process's own
 * placeHold and release included), overlapping reads scanned once answer what each would
 * alone, a gathered read may only show more occupied (offer less, §5.1), never less, and
 * nothing is kept per host once its reads are answered. Also the reply's reading.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { PlaceHoldRequest, OccupancyEntry, OccupancyMap } from "../../../src/holds/port.js";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import { StoreContext } from "../../../src/holds/redis/context.js";
import { RedisKeys } from "../../../src/holds/redis/keys.js";
import { hostsReading, listOccupancy, entriesOf } from "../../../src/holds/redis/occupancy.js";
import { RedisHoldStore } from "../../../src/holds/redis/redis-store.js";
import { readScripts, ScriptRunner } from "../../../src/holds/redis/scripts.js";
import type { RedisClient } from "../../../src/redis/client.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = T0 - HOUR;
const TTL = 5 * MINUTE;

let redis: TestRedis | undefined;
let client: RedisClient | undefined;
const prefix = uniquePrefix("occbatch");
let store: RedisHoldStore;
let ctx: StoreContext;

beforeAll(async () => {
  redis = await startTestRedis();
  client = createClient({ url: redis.url });
  await connectClient(client, redis.url);
  // The store and the reads share one connection, as in the gateway.
  store = new RedisHoldStore(client, { keyPrefix: prefix });
  await store.loadScripts();
  ctx = new StoreContext(client, new RedisKeys(prefix), new ScriptRunner(client, readScripts()), {
    retentionMs: DAY,
    pruneAfterMs: DAY,
  });
});
afterAll(async () => {
  if (client !== undefined) await dropPrefix(client, prefix);
  client?.disconnect();
  await redis?.stop();
});

let hosts = 0;
const newHost = () => `host-${++hosts}-${Math.random().toString(36).slice(2, 8)}`;

function hold(hostId: string, start: number, end: number, resourceId = "bay-1"): PlaceHoldRequest {
  return {
    hostId,
    holdId: `h-${Math.random().toString(36).slice(2)}`,
    serviceId: "svc",
    interval: { start, end },
    requirements: [{ type: "bay", candidates: [{ id: resourceId, capacity: 1 }], units: 1 }],
    ttlMs: TTL,
    now: NOW,
    owner: { agentKey: "agent", principal: "p", mandates: [] },
    caps: { principalProven: true, maxActiveUnproven: 99, maxActivePerAgent: 99 },
    payload: "{}",
  };
}

async function placed(request: PlaceHoldRequest): Promise<void> {
  const outcome = await store.placeHold(request);
  if (!outcome.ok) throw new Error(`hold refused: ${JSON.stringify(outcome)}`);
}

const sorted = (entries: readonly OccupancyEntry[] | undefined) =>
  [...(entries ?? [])].sort((a, b) => a.start - b.start || a.end - b.end);

/** Counts script calls on the shared connection. */
function countCalls(): { readonly calls: () => number; restore(): void } {
  const spy = vi.spyOn(client as RedisClient & { evalsha: (...a: unknown[]) => unknown }, "evalsha");
  return { calls: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
}

/** The next script call runs at once, but its answer is held back until `answer()`. */
function holdNextAnswer(): { readonly sent: Promise<void>; answer(): void; restore(): void } {
  const target = client as RedisClient & { evalsha: (...a: unknown[]) => Promise<unknown> };
  const original = target.evalsha.bind(client);
  let answer!: () => void;
  const held = new Promise<void>((resolve) => (answer = resolve));
  let sent!: () => void;
  const sentP = new Promise<void>((resolve) => (sent = resolve));
  const spy = vi.spyOn(target, "evalsha").mockImplementationOnce(async (...a: unknown[]) => {
    const reply = original(...a);
    sent();
    await held;
    return reply;
  });
  return { sent: sentP, answer, restore: () => spy.mockRestore() };
}

describe("occupancy reads of a host, gathered", () => {
  it("answers concurrent reads in one call after the first, each as it would alone", async () => {
    const hostId = newHost();
    await store.replaceBusy(hostId, "bay-1", "cal", [
      { start: T0, end: T0 + HOUR },
      { start: T0 + DAY, end: T0 + DAY + 2 * HOUR },
      { start: T0 + 3 * DAY, end: T0 + 3 * DAY + HOUR },
    ]);
    await store.replaceBusy(hostId, "bay-2", "cal", [{ start: T0 + DAY + HOUR, end: T0 + DAY + 3 * HOUR }]);
    await placed(hold(hostId, T0 + 2 * HOUR, T0 + 3 * HOUR));
    await placed(hold(hostId, T0 + DAY + 4 * HOUR, T0 + DAY + 5 * HOUR, "bay-2"));
    const asks = [
      { ids: ["bay-1", "bay-2"], range: { start: T0, end: T0 + DAY } },
      { ids: ["bay-1", "bay-2"], range: { start: T0 + DAY - HOUR, end: T0 + 2 * DAY } },
      { ids: ["bay-1", "bay-2"], range: { start: T0 + DAY + HOUR, end: T0 + DAY + 90 * MINUTE } },
      { ids: ["bay-2"], range: { start: T0, end: T0 + 4 * DAY } },
      { ids: ["bay-1", "bay-9"], range: { start: T0 + 3 * DAY, end: T0 + 4 * DAY } },
      { ids: ["bay-1", "bay-2"], range: { start: T0 + 3 * DAY + HOUR, end: T0 + 4 * DAY } },
    ];
    // Alone, one at a time.
    const alone: OccupancyMap[] = [];
    for (const a of asks) alone.push(await listOccupancy(ctx, hostId, a.ids, a.range, NOW));
    const counter = countCalls();
    try {
      const together = await Promise.all(asks.map((a) => listOccupancy(ctx, hostId, a.ids, a.range, NOW)));
      // Asked in one turn of the event loop, they go together in one call.
      expect(counter.calls()).toBe(1);
      together.forEach((answer, i) => {
        expect([...answer.keys()]).toEqual(asks[i]!.ids);
        for (const id of asks[i]!.ids) expect(sorted(answer.get(id))).toEqual(sorted(alone[i]!.get(id)));
      });
    } finally {
      counter.restore();
    }
    expect(sorted(alone[1]!.get("bay-1"))).toEqual([
      { start: T0 + DAY, end: T0 + DAY + 2 * HOUR, units: Number.POSITIVE_INFINITY, agent: false },
    ]);
    expect(sorted(alone[1]!.get("bay-2"))).toEqual([
      { start: T0 + DAY + HOUR, end: T0 + DAY + 3 * HOUR, units: Number.POSITIVE_INFINITY, agent: false },
      { start: T0 + DAY + 4 * HOUR, end: T0 + DAY + 5 * HOUR, units: 1, agent: true },
    ]);
    // Half-open: a range ending where an entry starts does not see it.
    expect(alone[2]!.get("bay-1")).toEqual([
      { start: T0 + DAY, end: T0 + DAY + 2 * HOUR, units: Number.POSITIVE_INFINITY, agent: false },
    ]);
    expect(alone[4]!.get("bay-9")).toEqual([]);
    expect(hostsReading(ctx)).toBe(0);
  });

  it("a hold committed while a gathered call is in flight is seen by a read asked after it (never joins the older call)", async () => {
    const hostId = newHost();
    const range = { start: T0, end: T0 + DAY };
    // The first read's call runs on the server at once, but its answer is held back until the
    // hold below has been committed and the second read asked.
    const held = holdNextAnswer();
    const counter = countCalls();
    try {
      const before = listOccupancy(ctx, hostId, ["bay-1"], range, NOW);
      await held.sent;
      await placed(hold(hostId, T0 + HOUR, T0 + 2 * HOUR));
      const after = listOccupancy(ctx, hostId, ["bay-1"], range, NOW);
      held.answer();
      expect((await before).get("bay-1")).toEqual([]);
      expect((await after).get("bay-1")).toEqual([
        { start: T0 + HOUR, end: T0 + 2 * HOUR, units: 1, agent: true },
      ]);
      // The first read's call, the hold's, and the second read's own: it joined no older call.
      expect(counter.calls()).toBe(3);
    } finally {
      counter.restore();
      held.restore();
    }
    expect(hostsReading(ctx)).toBe(0);
  });

  it("concurrent reads go in fewer calls: those asked in one turn in one, those asked while two calls are out together after one", async () => {
    const hostId = newHost();
    await store.replaceBusy(hostId, "bay-1", "cal", [{ start: T0, end: T0 + HOUR }]);
    const counter = countCalls();
    try {
      const ask = (d: number) =>
        listOccupancy(ctx, hostId, ["bay-1"], { start: T0 + d * DAY, end: T0 + (d + 1) * DAY }, NOW);
      const first = Array.from({ length: 10 }, (_, d) => ask(d));
      await new Promise((resolve) => setImmediate(resolve));
      expect(counter.calls()).toBe(1);
      const second = Array.from({ length: 10 }, (_, d) => ask(d));
      await new Promise((resolve) => setImmediate(resolve));
      expect(counter.calls()).toBe(2);
      const third = Array.from({ length: 10 }, (_, d) => ask(d));
      const answers = await Promise.all([...first, ...second, ...third]);
      // 30 reads, 3 calls: the third turn's reads went together once a call was answered.
      expect(counter.calls()).toBe(3);
      answers.forEach((a, i) =>
        expect(a.get("bay-1")).toEqual(
          i % 10 === 0 ? [{ start: T0, end: T0 + HOUR, units: Number.POSITIVE_INFINITY, agent: false }] : [],
        ),
      );
    } finally {
      counter.restore();
    }
    expect(hostsReading(ctx)).toBe(0);
  });

  it("under steady reads of the host, the next read after a write of this process sees it, and after a release does not", async () => {
    const hostId = newHost();
    const range = { start: T0, end: T0 + DAY };
    let reading = true;
    const readers = Array.from({ length: 4 }, async () => {
      while (reading) await listOccupancy(ctx, hostId, ["bay-1"], range, NOW);
    });
    try {
      for (let k = 0; k < 5; k++) {
        const request = hold(hostId, T0 + k * HOUR, T0 + (k + 1) * HOUR);
        await placed(request);
        const seen = (await listOccupancy(ctx, hostId, ["bay-1"], range, NOW)).get("bay-1") ?? [];
        expect(seen).toContainEqual({
          start: T0 + k * HOUR,
          end: T0 + (k + 1) * HOUR,
          units: 1,
          agent: true,
        });
        const released = await store.releaseHold(hostId, request.holdId, NOW);
        expect(released.ok).toBe(true);
        const gone = (await listOccupancy(ctx, hostId, ["bay-1"], range, NOW)).get("bay-1") ?? [];
        expect(gone).toEqual([]);
      }
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    expect(hostsReading(ctx)).toBe(0);
  });

  it("overlapping reads scanned once at the earliest now: a hold lapsing in between still shows (less offered, never more)", async () => {
    const hostId = newHost();
    await placed(hold(hostId, T0, T0 + HOUR));
    const lapsed = NOW + TTL + MINUTE;
    // Alone, the later read does not see the lapsed hold.
    expect(
      (await listOccupancy(ctx, hostId, ["bay-1"], { start: T0, end: T0 + DAY }, lapsed)).get("bay-1"),
    ).toEqual([]);
    // While a first call is out, the two go together in one call.
    const held = holdNextAnswer();
    const first = listOccupancy(ctx, hostId, ["bay-1"], { start: T0 - DAY, end: T0 }, NOW);
    await held.sent;
    const early = listOccupancy(ctx, hostId, ["bay-1"], { start: T0 - HOUR, end: T0 + DAY }, NOW);
    const late = listOccupancy(ctx, hostId, ["bay-1"], { start: T0, end: T0 + DAY }, lapsed);
    held.restore();
    const counter = countCalls();
    await new Promise((resolve) => setImmediate(resolve));
    expect(counter.calls()).toBe(1);
    counter.restore();
    held.answer();
    await first;
    const entry = { start: T0, end: T0 + HOUR, units: 1, agent: true };
    expect((await early).get("bay-1")).toEqual([entry]);
    // Gathered with the earlier read, it is judged at the earlier now: more occupied, not less.
    expect((await late).get("bay-1")).toEqual([entry]);
  });

  it("a failed call fails every read it carried, and the host is let go", async () => {
    const hostId = newHost();
    const range = { start: T0, end: T0 + DAY };
    const spy = vi
      .spyOn(client as RedisClient & { evalsha: (...a: unknown[]) => unknown }, "evalsha")
      .mockRejectedValue(new Error("connection lost"));
    try {
      const reads = [1, 2, 3].map(() => listOccupancy(ctx, hostId, ["bay-1"], range, NOW));
      for (const r of reads) await expect(r).rejects.toThrow(/listOccupancy|list-occupancy|connection lost/);
    } finally {
      spy.mockRestore();
    }
    expect(hostsReading(ctx)).toBe(0);
    expect((await listOccupancy(ctx, hostId, ["bay-1"], range, NOW)).get("bay-1")).toEqual([]);
  });
});

describe("the occupancy reply", () => {
  const all = { start: -1e15, end: 1e15 };
  it("reads entries, busy blocks (units 0) as filling any capacity, and keeps those overlapping the range", () => {
    expect(entriesOf([], all).entries).toEqual([]);
    expect(entriesOf([10, 20, 0, 15, 30, 2, -5, 40, 1], all).entries).toEqual([
      { start: 10, end: 20, units: Number.POSITIVE_INFINITY, agent: false },
      { start: 15, end: 30, units: 2, agent: true },
      { start: -5, end: 40, units: 1, agent: true },
    ]);
    const { entries, longest } = entriesOf([10, 20, 0, 15, 30, 2, 40, 50, 0, 60, 70, 0], {
      start: 20,
      end: 45,
    });
    expect(entries).toEqual([
      { start: 15, end: 30, units: 2, agent: true },
      { start: 40, end: 50, units: Number.POSITIVE_INFINITY, agent: false },
    ]);
    expect(longest).toBe(15);
  });
  it("reads a score Redis wrote with an exponent, and refuses anything not whole numbers", () => {
    expect(entriesOf(JSON.parse("[1791795600000,1.7917992e+12,0]"), all).entries).toEqual([
      { start: 1791795600000, end: 1791799200000, units: Number.POSITIVE_INFINITY, agent: false },
    ]);
    expect(() => entriesOf([10, 20.5, 0], all)).toThrow(/not whole numbers/);
    expect(() => entriesOf([10, "20", 0], all)).toThrow(/not whole numbers/);
    expect(() => entriesOf([1e17, 2e17, 0], all)).toThrow(/not whole numbers/);
    expect(() => entriesOf([10, 20], all)).toThrow(/expected \[start, end, units/);
    expect(() => entriesOf("10,20,0", all)).toThrow(/expected \[start, end, units/);
  });
});
