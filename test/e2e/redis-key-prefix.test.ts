/**
 * Every key a gateway writes starts with REDIS_KEY_PREFIX (README, Redis key prefix;
 * docs/ARCHITECTURE.md, Redis layout and scale), so `<prefix>*` finds all of a deployment's
 * data. A gateway on Redis with its own prefix runs a representative workload: holds and
 * bookings over SchCP, A2A and OSBP, a booking its host approves (the webhook queued on BullMQ
 * and delivered by its worker), a calendar host synced (its BullMQ schedule, its state) whose
 * booking sends the approver a message (the host-messages queue, delivered), and the periodic
 * jobs, which take their Redis leases at start. Then SCAN over the whole database: every key
 * that was not there before the run must start with the prefix.
 *
 * The run uses a database of its own on the shared server (db 11; one server's other tests use
 * db 0), so keys other tests write meanwhile are not mistaken for this gateway's; a key that
 * was there before the run (a crashed earlier run's) is left out all the same.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  embeddedCalendarHost,
  embeddedDefaultHosts,
  seedEmbeddedCalendar,
} from "../../src/booking/hosts/index.js";
import { EMBEDDED_CALENDAR_HOST } from "../../src/booking/hosts/embedded-default.js";
import {
  legacyBullmqPrefix,
  legacyQueues,
  warnOfLegacyQueues,
} from "../../src/gateway/runtime/legacy-keys.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import {
  DAY_MS,
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  operator,
} from "./support/agents.js";
import { startGateway, type E2eGateway, type LogLine } from "./support/gateway.js";
import { osbpBook, osbpSession } from "./support/osbp-in-process.js";
import { CALLBACK_ORIGIN, startWebhookSink, type WebhookSink } from "./support/webhooks.js";

const DB = 11;
const P = uniquePrefix("key-prefix");

let server: TestRedis;
let url: string;
let raw: RedisClient;
let sink: WebhookSink;
let dataDir: string;
let gw: E2eGateway | undefined;
let before: ReadonlySet<string>;

/** The server's URL on database DB (the URL's own database when it names one). */
function onDatabase(base: string, db: number): string {
  const u = new URL(base);
  if (u.pathname === "" || u.pathname === "/") u.pathname = `/${db}`;
  return u.toString();
}

async function allKeys(): Promise<Set<string>> {
  const keys = new Set<string>();
  let cursor = "0";
  do {
    const [next, batch] = await raw.scan(cursor, "COUNT", "1000");
    cursor = next;
    for (const k of batch) keys.add(k);
  } while (cursor !== "0");
  return keys;
}

beforeAll(async () => {
  server = await startTestRedis();
  url = onDatabase(server.url, DB);
  raw = openRedis(url);
  before = await allKeys();
  sink = await startWebhookSink();
  dataDir = mkdtempSync(join(tmpdir(), "e2e-key-prefix-"));
  await seedEmbeddedCalendar(dataDir, Date.now());
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await sink?.close();
  // Whatever this run wrote: under the prefix, and (if the test failed) any key outside it.
  await dropPrefix(raw, P);
  for (const key of await allKeys()) if (!before.has(key)) await raw.del(key);
  await raw.quit();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe("every Redis key under REDIS_KEY_PREFIX", { timeout: 120_000 }, () => {
  it("a workload over every edge, the queues and the periodic jobs writes no key outside the prefix", async () => {
    gw = await startGateway({
      redisUrl: url,
      redisKeyPrefix: P,
      runtime: {
        dataDir,
        hosts: [...embeddedDefaultHosts(), embeddedCalendarHost()],
        webhookFetch: sink.transport,
      },
    });
    const g = gw;

    // Holds and bookings: SchCP, A2A, OSBP.
    const agent = newAgent(g);
    const maple = await discover(agent, g, "maple-street-auto");
    const [slot] = await freeSlots(agent, g, maple, "oil-change", { fromDays: 2 });
    await holdAndBook(agent, maple, "oil-change", slot!.start);
    const date = new Date(g.clock.now() + 3 * DAY_MS).toISOString().slice(0, 10);
    const api = `${g.origin}/api/servicialo/fades-on-queen`;
    const listed = (await (await fetch(`${api}/availability?serviceId=haircut&date=${date}`)).json()) as {
      available_slots: Array<{ start: string }>;
    };
    const a2a = await fetch(`${api}/book`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        clientEmail: "ana@mail.example",
        serviceId: "haircut",
        scheduledAt: listed.available_slots[0]!.start,
      }),
    });
    expect(a2a.status).toBe(201);
    const osbp = await osbpSession(g, "maple-street-auto");
    try {
      await osbpBook(osbp, g, {
        serviceId: "oil-change",
        timezone: "America/Toronto",
        daysAhead: 5,
        key: "prefix-1",
      });
    } finally {
      await osbp.close();
    }

    // A job enqueued and processed: the host approves, the guest's webhook goes through BullMQ.
    const dental = await discover(agent, g, "harbourview-dental");
    const [later] = await freeSlots(agent, g, dental, "cleaning", { fromDays: 3 });
    const m = await openMandate(agent, dental.hostId);
    const hold = must(
      await agent.client.hold(
        dental,
        { service_id: "cleaning", start: later!.start, callback_url: `${CALLBACK_ORIGIN}/hooks/prefix` },
        { mandate: m.compact },
      ),
      "hold",
    );
    const confirmed = must(
      await agent.client.confirm(
        dental,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: m.compact },
      ),
      "confirm",
    );
    const id = confirmed.body.booking.booking_id;
    expect((await operator(g, dental.hostId, `/bookings/${id}/approve`, {})).status).toBe(200);
    await sink.waitFor((e) => e.type === "booking.confirmed" && e.booking?.booking_id === id);

    // A calendar host: its sync (state, the BullMQ schedule), and a booking whose approver is
    // messaged through the host-messages queue.
    expect(await g.runtime.syncCalendarNow(EMBEDDED_CALENDAR_HOST)).toBe(true);
    const tutor = await discover(agent, g, EMBEDDED_CALENDAR_HOST);
    const [lesson] = await freeSlots(agent, g, tutor, "lesson", { fromDays: 2 });
    const tentative = await holdAndBook(agent, tutor, "lesson", lesson!.start);
    expect(tentative.reply.status).toBe(202);
    await g.runtime.messenger.idle();

    const written = [...(await allKeys())].filter((k) => !before.has(k));
    expect(written.filter((k) => !k.startsWith(P))).toEqual([]);
    // The workload reached what used to escape the prefix: every queue, and the jobs' leases.
    const group = (name: string) => `${P}{${P}${name}}:`;
    for (const queue of ["webhooks", "host-messages", "calendar-sync"]) {
      expect(
        written.some((k) => k.startsWith(`${group("bullmq")}${queue}:`)),
        queue,
      ).toBe(true);
    }
    expect(written.some((k) => k.startsWith(`${group("jobs")}lock:`))).toBe(true);
    expect(written.some((k) => k.startsWith(`${P}{maple-street-auto}:`))).toBe(true);
  });

  it("a start warns while queues of the earlier layout (outside the prefix) remain", async () => {
    expect(await legacyQueues(raw, P)).toEqual([]);
    const old = `${legacyBullmqPrefix(P)}:webhooks:wait`;
    expect(old.startsWith("{")).toBe(true);
    await raw.rpush(old, "1");
    try {
      expect(await legacyQueues(raw, P)).toEqual(["webhooks"]);
      const logs: LogLine[] = [];
      await warnOfLegacyQueues(raw, P, {
        warn: (message, fields) => void logs.push({ level: "warn", message, ...(fields && { fields }) }),
      });
      expect(logs).toHaveLength(1);
      expect(logs[0]?.fields).toEqual({ legacy_prefix: `{${P}bullmq}`, queues: ["webhooks"] });
    } finally {
      await raw.del(old);
    }
  });
});
