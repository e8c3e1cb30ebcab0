/**
 * The calendar state stores' per-event methods, the same contract on memory, a real Redis
 * (REDIS_URL, else one of the test's own) and a real Redis Cluster (REDIS_CLUSTER_NODES, else
 * one of the test's own): a sync's changes in one commit (a MULTI over one slot on the
 * cluster), events/series/days read by key, own events found by id, and state of the earlier
 * format (one JSON value per calendar) migrated on first read and then synced as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MemoryCalendarStateStore,
  RedisCalendarStateStore,
  type CalendarStateStore,
  type CalendarSyncState,
  type OwnEvent,
} from "../../../src/booking/calendar/state.js";
import { syncCalendarHost, type CalendarHostPlan } from "../../../src/booking/calendar/sync.js";
import { unitsFor } from "../../../src/booking/calendar/units.js";
import type { RawCalendarEvent } from "../../../src/connectors/port.js";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import type { RedisClient } from "../../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";
import { MemoryCalendar } from "./support/memory-calendar.js";

const H = 3_600_000;
const now = Date.parse("2026-12-07T06:00:00Z");
const unversioned = (id: string, uid = id): Omit<RawCalendarEvent, "etag"> => ({
  eventId: id,
  uid,
  start: { dateTime: "2026-12-08T09:00:00Z" },
  end: { dateTime: "2026-12-08T10:00:00Z" },
  status: "confirmed",
  transparency: "opaque",
});
const event = (id: string): RawCalendarEvent => ({ ...unversioned(id), etag: `v-${id}` });
const own = (eventId: string, upstreamEventId?: string): OwnEvent => ({
  calendarId: "main",
  eventId,
  ...(upstreamEventId !== undefined && { upstreamEventId }),
  idempotencyKey: `k-${eventId}`,
  serviceId: "cut",
  start: 0,
  end: 1,
  resourceIds: ["chair-1"],
  summary: "x",
  status: "confirmed",
  written: "confirmed",
  attempts: 0,
});

interface Backend {
  readonly name: string;
  /** A store with nothing in it, and a way to write the earlier format's value. */
  open(): Promise<{
    state: CalendarStateStore;
    legacy: (host: string, cal: string, s: CalendarSyncState) => Promise<void>;
    legacyGone?: (host: string, cal: string) => Promise<boolean>;
  }>;
}

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

const redisBackend = (name: string, i: number): Backend => ({
  name,
  open: () => {
    const c = clients[i];
    if (c === undefined) throw new Error("no Redis");
    const prefix = uniquePrefix("calstate");
    c.prefixes.push(prefix);
    const key = (host: string, cal: string) =>
      `${prefix}cal:state:${encodeURIComponent(host)}:${encodeURIComponent(cal)}`;
    return Promise.resolve({
      state: new RedisCalendarStateStore(c.client, prefix),
      legacy: async (host: string, cal: string, s: CalendarSyncState) => {
        await c.client.set(key(host, cal), JSON.stringify(s));
      },
      legacyGone: async (host: string, cal: string) => (await c.client.exists(key(host, cal))) === 0,
    });
  },
});

const backends: Backend[] = [
  {
    name: "memory",
    open: () => {
      const state = new MemoryCalendarStateStore();
      return Promise.resolve({
        state,
        // A file written by the earlier format: one state per calendar under `states`.
        legacy: (host: string, cal: string, s: CalendarSyncState) => {
          state.importState({
            ...state.exportState(),
            states: new Map([[`${host}\u0000${cal}`, s]]),
          });
          return Promise.resolve();
        },
      });
    },
  },
  redisBackend("redis", 0),
  redisBackend("redis cluster", 1),
];

describe.each(backends)("calendar state on $name", (backend) => {
  it("commits a sync's changes in one step; reads events, series and days by key", async () => {
    const { state } = await backend.open();
    const hosts = ["h1", "h2", "h3", "h4"];
    for (const host of hosts) {
      await state.commit(host, "main", {
        meta: { cursor: "c1", readUntil: 10, fullSyncAt: 1, events: 2, busy: 1, zone: "UTC" },
        reset: true,
        events: new Map([
          ["a", [event("a")]],
          ["b", [event("b")]],
        ]),
        series: new Map([["a", { ids: ["a"], busy: [[1, 2]] }]]),
        days: new Map([[20_000, [[1, 2, "a"]]]]),
      });
      await state.commit(host, "main", {
        meta: { cursor: "c2", readUntil: 10, fullSyncAt: 1, events: 1, busy: 1, skipped: 1 },
        reset: false,
        events: new Map([["b", null]]),
        series: new Map([["b", { ids: [], busy: [], skipped: 1 }]]),
        days: new Map([
          [20_000, null],
          [20_001, [[3, 4, "a"]]],
        ]),
      });
      expect(await state.getMeta(host, "main")).toMatchObject({ cursor: "c2", skipped: 1 });
      expect([...(await state.getEvents(host, "main", ["a", "b", "zz"])).keys()]).toEqual(["a"]);
      expect(await state.eventIds(host, "main")).toEqual(["a"]);
      expect((await state.getSeries(host, "main", ["a", "b", "c"])).get("b")).toEqual({
        ids: [],
        busy: [],
        skipped: 1,
      });
      expect([...(await state.getDays(host, "main", [20_000, 20_001]))]).toEqual([[20_001, [[3, 4, "a"]]]]);
      expect((await state.get(host, "main"))?.events).toEqual({ a: [event("a")] });
    }
    // A full sync's reset drops what it does not write.
    await state.commit("h1", "main", {
      meta: { readUntil: 10, fullSyncAt: 2 },
      reset: true,
      events: new Map([["c", [event("c")]]]),
      series: new Map(),
      days: new Map(),
    });
    expect(await state.eventIds("h1", "main")).toEqual(["c"]);
    expect(await state.getDays("h1", "main", [20_001])).toEqual(new Map());
    expect(await state.eventIds("h2", "main")).toEqual(["a"]);
  });

  it("finds own events among ids, by the gateway's id and by the upstream's", async () => {
    const { state } = await backend.open();
    await state.putOwn("h", own("bg-1"));
    await state.putOwn("h", own("bg-2", "AAMk-2"));
    expect([...(await state.ownAmong("h", ["bg-1", "AAMk-2", "other"]))].sort()).toEqual(["AAMk-2", "bg-1"]);
    expect(await state.ownAmong("h", [])).toEqual(new Set());
    expect(await state.ownAmong("other-host", ["bg-1"])).toEqual(new Set());
    await state.putOwn("h", own("bg-3"));
    expect([...(await state.ownAmong("h", ["bg-3"]))]).toEqual(["bg-3"]);
  });

  it("migrates a calendar of the earlier format on first read; the next sync indexes and lays it", async () => {
    const { state, legacy, legacyGone } = await backend.open();
    const cal = new MemoryCalendar();
    cal.put(unversioned("old"));
    // The cursor the earlier format kept: the calendar's first change is past it.
    const first = await cal
      .connector()
      .calendar.sync({ calendarId: "main", window: { start: now, end: now + 31 * 24 * H } });
    if (!first.ok) throw new Error("memory calendar");
    await legacy("host", "main", {
      ...(first.value.nextCursor !== undefined && { cursor: first.value.nextCursor }),
      readUntil: now + 31 * 24 * H,
      fullSyncAt: now,
      events: { old: [event("old")] },
    });
    const meta = await state.getMeta("host", "main");
    expect(meta).toMatchObject({ rebuild: true, readUntil: now + 31 * 24 * H });
    expect(await state.eventIds("host", "main")).toEqual(["old"]);
    if (legacyGone !== undefined) expect(await legacyGone("host", "main")).toBe(true);

    cal.put({
      ...unversioned("new"),
      start: { dateTime: "2026-12-09T09:00:00Z" },
      end: { dateTime: "2026-12-09T10:00:00Z" },
    });
    const store = new MemoryHoldStore();
    const plan: CalendarHostPlan = {
      hostId: "host",
      timezone: "UTC",
      units: unitsFor({ resourceType: "chair", units: 1 }),
      calendars: [{ calendarId: "main" }],
      horizonMs: 31 * 24 * H,
    };
    const [r] = await syncCalendarHost(
      { sync: cal.connector().calendar, state, store, clock: { now: () => now } },
      plan,
    );
    expect(r).toMatchObject({ outcome: "complete", kind: "incremental", events: 2, busy: 2 });
    expect((await state.getMeta("host", "main"))?.rebuild).toBeUndefined();
    const occ = await store.listOccupancy("host", ["chair-1"], { start: now, end: now + 31 * 24 * H }, now);
    expect((occ.get("chair-1") ?? []).map((o) => new Date(o.start).toISOString())).toEqual([
      "2026-12-08T09:00:00.000Z",
      "2026-12-09T09:00:00.000Z",
    ]);
  });
});
