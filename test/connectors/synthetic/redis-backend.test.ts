/**
 * RedisSyntheticBackend on a real Redis: the backend contract, and two connector instances
 * on separate clients (two gateway processes) sharing one synthetic upstream (SchCP §10,
 * docs/ARCHITECTURE.md, Redis layout and scale). Every key is under a unique prefix; nothing is flushed.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bayviewReferenceStudio,
  createSyntheticConnector,
  fadesOnQueen,
  mapleStreetAuto,
  RedisSyntheticBackend,
  type SyntheticConnector,
  type SyntheticScenario,
} from "../../../src/connectors/synthetic/index.js";
import { startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";
import { backendContract } from "./backend-contract.js";
import { BEFORE_MONDAY, failure, MIN, oilChange, t, testClock, value } from "./support.js";

let redis: TestRedis | undefined;
const clients: Redis[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  // Leave a shared server as it was: delete only our own prefixes' keys.
  const admin = clients[0];
  if (admin !== undefined && admin.status === "ready") {
    for (const prefix of prefixes) {
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length > 0) await admin.del(...keys);
    }
  }
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  await redis?.stop();
});

function client(): Redis {
  if (redis === undefined) throw new Error("no test Redis");
  const c = new Redis(redis.url, { lazyConnect: false, maxRetriesPerRequest: 0, enableOfflineQueue: true });
  c.on("error", () => undefined);
  clients.push(c);
  return c;
}

function prefix(label: string): string {
  const p = uniquePrefix(label);
  prefixes.push(p);
  return p;
}

backendContract("RedisSyntheticBackend", () =>
  Promise.resolve({
    backend: new RedisSyntheticBackend({ client: client(), keyPrefix: prefix("syn-contract") }),
    cleanup: () => Promise.resolve(),
  }),
);

/** Two "gateway processes": separate clients, one key prefix, one synthetic platform. */
function twoProcesses(
  scenario: SyntheticScenario = mapleStreetAuto,
): [SyntheticConnector, SyntheticConnector, string] {
  const keyPrefix = prefix("syn-shared");
  const make = () =>
    createSyntheticConnector({
      scenario,
      clock: testClock(BEFORE_MONDAY),
      backend: new RedisSyntheticBackend({ client: client(), keyPrefix }),
    });
  return [make(), make(), keyPrefix];
}

const TEN = "2026-10-19T10:00:00-04:00";
const monday = { start: t("2026-10-19T00:00:00-04:00"), end: t("2026-10-20T00:00:00-04:00") };

describe("two connector instances sharing one Redis-backed platform", () => {
  it("a booking made through one is seen by the other: get, key lookup, busy time, availability", async () => {
    const [a, b, keyPrefix] = twoProcesses();
    const booked = value(
      await a.bookings.create(oilChange("maple-street-auto:h_1", TEN, ["bay-1", "tech-alex"])),
    );
    expect(value(await b.bookings.get(booked.upstreamId))).toEqual(booked);
    expect(value(await b.bookings.findByIdempotencyKey("maple-street-auto:h_1"))).toEqual(booked);
    expect(value(await b.readBusy(monday, ["bay-1"])).busy).toHaveLength(1);
    const slots = value(await b.slots.find({ serviceId: "oil-change", range: monday }));
    expect(slots.find((s) => s.start === t(TEN))?.resourceIds).toEqual(["bay-2", "tech-sam", "tech-priya"]);
    // Every key lives under the prefix, tagged with the host for Redis Cluster.
    const keys = await clients[0]!.keys(`${keyPrefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith(`${keyPrefix}{maple-street-auto}:`))).toBe(true);
  });

  it("the same idempotency key through both at once makes one appointment", async () => {
    const [a, b] = twoProcesses();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? a : b).bookings.create(oilChange("same-key", TEN, ["bay-1", "tech-alex"])),
      ),
    );
    expect(new Set(results.map((r) => value(r).upstreamId)).size).toBe(1);
    expect(value(await a.readBusy(monday, ["bay-1"])).busy).toHaveLength(1);
  });

  it("different keys racing for one bay and technician through both: exactly one wins each time", async () => {
    const [a, b] = twoProcesses();
    for (let round = 0; round < 5; round++) {
      const at = `2026-10-19T${String(9 + round).padStart(2, "0")}:00:00-04:00`;
      const results = await Promise.all([
        a.bookings.create(oilChange(`a-${round}`, at, ["bay-2", "tech-priya"])),
        b.bookings.create(oilChange(`b-${round}`, at, ["bay-2", "tech-priya"])),
        a.bookings.create(oilChange(`c-${round}`, at, ["bay-2", "tech-priya"])),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok).map((r) => (r.ok ? "" : r.error.code))).toEqual([
        "slot_taken",
        "slot_taken",
      ]);
    }
    expect(value(await b.readBusy(monday, ["bay-2"])).busy).toHaveLength(5);
  });

  it("moves, status changes and cancels made through one are seen by the other", async () => {
    const [a, b] = twoProcesses();
    const booked = value(
      await a.bookings.create({ ...oilChange("k", TEN, ["bay-1", "tech-alex"]), tentative: true }),
    );
    value(await b.bookings.setStatus(booked.upstreamId, "confirmed"));
    value(
      await a.bookings.move(booked.upstreamId, {
        start: t(TEN) + 60 * MIN,
        resourceIds: ["bay-1", "tech-alex"],
      }),
    );
    expect(value(await b.bookings.get(booked.upstreamId))).toMatchObject({
      status: "confirmed",
      start: t(TEN) + 60 * MIN,
    });
    value(await b.bookings.cancel(booked.upstreamId));
    expect(value(await a.bookings.get(booked.upstreamId)).status).toBe("cancelled");
    expect(value(await a.readBusy(monday, [])).busy).toEqual([]);
  });

  it("a verification code sent through one verifies a create through the other", async () => {
    const scenario: SyntheticScenario = {
      ...fadesOnQueen,
      services: fadesOnQueen.services.map((s) => ({ ...s, requiresVerification: true })),
    };
    const [a, b] = twoProcesses(scenario);
    const phone = "+14165550177";
    value(await a.verification.send({ phone }, "booking"));
    const code = await b.lastCodeFor(phone);
    expect(code).toMatch(/^\d{6}$/);
    const start = t("2026-10-20T11:00:00-04:00");
    const create = {
      idempotencyKey: "v",
      serviceId: "haircut",
      start,
      end: start + 30 * MIN,
      resourceIds: [],
      customer: { phone },
      tentative: false,
    };
    value(await b.bookings.create({ ...create, verificationCode: code! }));
    expect(await a.lastCodeFor(phone)).toBeUndefined();
  });

  it("the verification send limit is one platform-wide count: 6 concurrent sends through both admit 3", async () => {
    const [a, b] = twoProcesses(bayviewReferenceStudio);
    const phone = "+15555550100";
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).verification.send({ phone }, "booking")),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    for (const r of results.filter((x) => !x.ok)) {
      const e = failure(r);
      expect(e).toMatchObject({ code: "rate_limited", retryAfterMs: 10 * MIN });
      expect(e.upstream).toMatchObject({ status: 429, ratelimit: { "retry-after": "600" } });
    }
    value(await b.verification.send({ phone: "+15555550101" }, "booking"));
  });

  it("Redis going away is the platform answering 503, never a throw", async () => {
    if (redis === undefined) throw new Error("no test Redis");
    const broken = new Redis(redis.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    broken.on("error", () => undefined);
    const connector = createSyntheticConnector({
      scenario: mapleStreetAuto,
      clock: testClock(BEFORE_MONDAY),
      backend: new RedisSyntheticBackend({ client: broken, keyPrefix: prefix("syn-down") }),
    });
    const e = failure(await connector.bookings.create(oilChange("k", TEN)));
    expect(e.code).toBe("unavailable");
    expect(e.upstream).toMatchObject({ call: "POST /v2/bookings", status: 503 });
    broken.disconnect();
  });

  it("connect() owns its client and close() quits it", async () => {
    if (redis === undefined) throw new Error("no test Redis");
    const backend = await RedisSyntheticBackend.connect(redis.url, prefix("syn-own"));
    const connector = createSyntheticConnector({
      scenario: mapleStreetAuto,
      clock: testClock(BEFORE_MONDAY),
      backend,
    });
    value(await connector.bookings.create(oilChange("k", TEN)));
    await backend.close();
    expect(failure(await connector.bookings.get("syn_x")).code).toBe("unavailable");
  });
});
