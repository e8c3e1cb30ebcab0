/**
 * The connector contract on the synthetic platform, with its in-memory store and with its
 * Redis store (several gateway processes sharing one platform). Faults come from its fault
 * plan; the live appointments are counted from its own records.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import {
  createSyntheticConnector,
  FaultPlan,
  mapleStreetAuto,
  MemorySyntheticBackend,
  RedisSyntheticBackend,
  type SyntheticBackend,
  type SyntheticOperation,
} from "../../../src/connectors/synthetic/index.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";
import { connectorContract } from "./connector-contract.js";
import type { ContractOperation, ContractSubject } from "./subject.js";

/** Sunday noon before the Monday the subject books (America/Toronto, EDT). */
const NOW = Date.parse("2026-10-18T12:00:00-04:00");
const MONDAY = {
  start: Date.parse("2026-10-19T09:00:00-04:00"),
  end: Date.parse("2026-10-19T12:00:00-04:00"),
};

const OPERATION: Readonly<Record<ContractOperation, SyntheticOperation>> = {
  catalog: "catalog",
  slots: "findAvailability",
  create: "createBooking",
  get: "getBooking",
  findByKey: "findBookingByIdempotencyKey",
  move: "moveBooking",
  cancel: "cancelBooking",
};

function subject(
  backend: SyntheticBackend,
  close: () => Promise<void> = () => Promise.resolve(),
): ContractSubject {
  const faults = new FaultPlan();
  // The scenario's organization id is the backend namespace; a fresh one per subject.
  const scenario = {
    ...mapleStreetAuto,
    organization: { ...mapleStreetAuto.organization, id: `contract-${randomUUID()}` },
  };
  const connectorWith = (plan: FaultPlan) =>
    createSyntheticConnector({ scenario, clock: { now: () => NOW }, backend, faults: plan, timeoutMs: 30 });
  const connector = connectorWith(faults);
  return {
    connector,
    // Another gateway process: the same platform (backend and organization), nothing in memory.
    fresh: () => connectorWith(new FaultPlan()),
    serviceId: "oil-change",
    range: MONDAY,
    inject(fault) {
      switch (fault.kind) {
        case "rate_limited":
          faults.next(OPERATION[fault.operation], "rate_limited", 1, {
            retryAfterSeconds: fault.retryAfterSeconds,
          });
          return;
        case "timeout":
          faults.next(OPERATION[fault.operation], "timeout");
          return;
        case "lost_response":
          faults.next(OPERATION[fault.operation], "timeout", 1, { afterCommit: true });
          return;
        case "revoked":
          faults.next("*", "unauthorized", Infinity);
          return;
      }
    },
    restore: () => faults.clear(),
    async liveAppointments() {
      const read = await connector.readBusy(
        { start: MONDAY.start - 86_400_000, end: MONDAY.end + 86_400_000 },
        [],
      );
      if (!read.ok) throw new Error(read.error.message);
      // Every oil change takes one bay: bays count appointments.
      return read.value.busy.filter((b) => b.resourceId.startsWith("bay-")).length;
    },
    close,
  };
}

connectorContract("synthetic platform, memory store", () =>
  Promise.resolve(subject(new MemorySyntheticBackend())),
);

let redis: TestRedis | undefined;
let admin: Redis | undefined;
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  admin = new Redis(redis.url, { maxRetriesPerRequest: 0 });
});

afterAll(async () => {
  for (const prefix of prefixes) if (admin !== undefined) await dropPrefix(admin, prefix);
  await admin?.quit();
  await redis?.stop();
});

connectorContract("synthetic platform, Redis store", () => {
  if (redis === undefined) throw new Error("no test Redis");
  const prefix = uniquePrefix("contract");
  prefixes.push(prefix);
  const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  const backend = new RedisSyntheticBackend({ client, keyPrefix: prefix });
  return Promise.resolve(subject(backend, async () => void (await client.quit())));
});
