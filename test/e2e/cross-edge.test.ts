/**
 * One core, every edge: a `serve` process (SchCP over HTTP) and an `mcp`
 * process (OSBP over real stdio, driven by the official MCP client) on ONE Redis share the
 * hosts' holds, bookings and synthetic platform, so:
 *
 * - a live SchCP hold binds OSBP: availability.find no longer offers the held technician at that
 *   time, a booking.create for that technician is slot_taken, and another technician is booked
 *   on the other bay;
 * - an OSBP booking binds SchCP: a new SchCP hold of that time, with both bays now taken, is
 *   SLOT_UNAVAILABLE with alternatives; the first SchCP hold still confirms;
 * - the platform never has two appointments on one resource's time;
 * - on a host_approval host, OSBP booking.create answers "pending", the operator approves
 *   through the `serve` process's operator API, and booking.status then answers "booked".
 *
 * All of it on one Redis server and again on a Redis Cluster.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentKey, verifyHoldOffer } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { RedisSyntheticBackend } from "../../src/connectors/synthetic/index.js";
import {
  extractApprovalToken,
  type BookingMandate,
  type Problem,
  type Slot as OsbpSlot,
  type ToolResult,
} from "../../src/protocol/osbp/index.js";
import { instantToWallClock } from "../../src/protocol/time/index.js";
import { startMcpServer, type McpSession } from "../support/mcp.js";
import { openRedis } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix } from "../support/redis.js";
import { startTestRedisCluster } from "../support/redis-cluster.js";
import { DAY_MS, must, refusalOf } from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { startGatewayProcess, startProxy } from "./support/processes.js";
import type { BalancingProxy, GatewayProcess, ProcessEnv } from "./support/processes.js";
import { KeyApp, SchcpClient } from "../../src/agent/index.js";

let redis: { url: string; stop(): Promise<void> } | undefined;
let proxy: BalancingProxy;
let env: ProcessEnv;
let serve: GatewayProcess;
const sessions: McpSession[] = [];

/** `booking-gateway mcp --host <id>` on the same Redis, prefix and data dir as `serve`. */
async function mcp(hostId: string): Promise<McpSession> {
  const session = await startMcpServer({
    host: hostId,
    env: {
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisKeyPrefix,
      GATEWAY_DATA_DIR: env.dataDir,
      PUBLIC_ORIGIN: env.publicOrigin,
    },
  });
  sessions.push(session);
  return session;
}

function agent(): E2eAgent {
  const key = createAgentKey();
  return {
    key,
    keyApp: new KeyApp({ principalKey: createAgentKey() }),
    client: new SchcpClient({ agentKey: key }),
  };
}

async function call<T>(session: McpSession, tool: string, args: unknown): Promise<ToolResult<T>> {
  const res = await session.call(tool, args);
  return res.envelope as ToolResult<T>;
}

function problemOf(r: ToolResult<unknown>): Problem {
  if (r.ok) throw new Error(`expected a problem, got ${JSON.stringify(r.value)}`);
  return r.problem;
}

function valueOf<T>(r: ToolResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.problem)}`);
  return r.value;
}

/** A BookingMandate for one organization over one local day. */
function mandateFor(orgId: string, date: string, maxMinor: number, currency: string): BookingMandate {
  return {
    id: `mnd_${Math.random().toString(36).slice(2)}`,
    expires_at: new Date(Date.now() + 2 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
    allowed_actions: ["booking.create"],
    organization_id: orgId,
    earliest_start: `${date}T00:00:00`,
    latest_end: `${date}T23:59:00`,
    max_price: { amount_minor: maxMinor, currency },
  };
}

/** booking.create: the approval challenge, then the approved retry (OSBP "booking.create"). */
async function bookOsbp(session: McpSession, input: Record<string, unknown>): Promise<ToolResult<unknown>> {
  const challenge = problemOf(await call(session, "osbp_booking_create", input));
  if (challenge.code !== "requires_user_confirmation")
    return { ok: false, problem: challenge } as ToolResult<unknown>;
  const token = extractApprovalToken(challenge.message);
  return call(session, "osbp_booking_create", { ...input, approval: { confirmed: true, token } });
}

const pad = (n: number) => String(n).padStart(2, "0");
function localDateTime(ms: number, zone: string): { date: string; time: string } {
  const w = instantToWallClock(ms, zone);
  return { date: `${w.year}-${pad(w.month)}-${pad(w.day)}`, time: `${pad(w.hour)}:${pad(w.minute)}` };
}

async function operator(path: string, init: RequestInit = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${proxy.origin}/operator/v0${path}`, {
    ...init,
    headers: { authorization: `Bearer ${env.operatorToken}`, "content-type": "application/json" },
  });
  return { status: res.status, json: await res.json() };
}

async function discover(a: E2eAgent, hostId: string): Promise<DiscoveredHost> {
  return must(await a.client.discoverHost(`${proxy.origin}/hosts/${hostId}/scheduling.json`), "discover");
}

/** The whole suite on one Redis server, then on a Redis Cluster: one core either way. */
function crossEdgeSuite(target: {
  label: string;
  start(): Promise<{ url: string; stop(): Promise<void> }>;
}): void {
  describe(`serve (SchCP) and mcp (OSBP) on one ${target.label}: one core`, { timeout: 120_000 }, () => {
    beforeAll(async () => {
      redis = await target.start();
      proxy = await startProxy();
      env = {
        publicOrigin: proxy.origin,
        redisUrl: redis.url,
        redisKeyPrefix: uniquePrefix("xedge"),
        dataDir: mkdtempSync(join(tmpdir(), "e2e-xedge-")),
        operatorToken: `op-${createAgentKey().thumbprint}`,
      };
      serve = await startGatewayProcess("serve", env);
      proxy.backends.set("serve", serve.url);
    }, 90_000);

    afterAll(async () => {
      for (const s of sessions.splice(0)) await s.close();
      await serve?.stop();
      await proxy?.close();
      if (redis !== undefined) {
        const admin = openRedis(redis.url);
        await dropPrefix(admin, env.redisKeyPrefix);
        await dropPrefix(admin, `{${env.redisKeyPrefix}`);
        admin.disconnect();
        await redis.stop();
        redis = undefined;
      }
      rmSync(env.dataDir, { recursive: true, force: true });
    }, 60_000);

    it("a SchCP hold binds OSBP, an OSBP booking binds SchCP, and no resource's time is taken twice", async () => {
      const HOST = "maple-street-auto";
      const zone = "America/Toronto";
      const first = agent();
      const maple = await discover(first, HOST);
      const now = Date.now();
      const slots = must(
        await first.client.availability(maple, {
          service_id: "oil-change",
          window: {
            start: new Date(now + 9 * DAY_MS).toISOString(),
            end: new Date(now + 16 * DAY_MS).toISOString(),
          },
          limit: 5,
        }),
        "availability",
      ).body.slots;
      const start = slots[0]!.start;
      const at = Date.parse(start);
      const { date, time } = localDateTime(at, zone);

      const osbp = await mcp(HOST);
      const offered = async () =>
        valueOf(
          await call<OsbpSlot[]>(osbp, "osbp_availability_find", { service_id: "oil-change", date }),
        ).filter((s) => s.starts_at_local === `${date}T${time}:00`);
      const before = await offered();
      expect(before.map((s) => s.provider_id).sort()).toEqual(["tech-alex", "tech-priya", "tech-sam"]);

      // 1. A SchCP hold at that time: one bay and one technician.
      const m1 = await first.keyApp.issueMandate({
        agent: first.key,
        audience: HOST,
        scope: ["hold", "book"],
      });
      const hold = must(
        await first.client.hold(maple, { service_id: "oil-change", start }, { mandate: m1.compact }),
        "hold",
      );
      const held = must(await verifyHoldOffer(hold.body, maple), "offer");

      // OSBP is offered what SchCP would offer: the held technician is gone at that time.
      const during = await offered();
      expect(during).toHaveLength(2);
      const free = new Set(during.map((s) => s.provider_id));
      const heldTech = ["tech-alex", "tech-priya", "tech-sam"].find((t) => !free.has(t))!;
      const base = {
        idempotency_key: `idem-${env.redisKeyPrefix}-1`,
        service_id: "oil-change",
        schedule_id: HOST,
        date,
        time,
        customer: { display_name: "Jane", phone: "+14165550123" },
        mandate: mandateFor(HOST, date, 20_000, "CAD"),
      };
      // Booking the held technician: slot_taken, nothing made.
      expect(problemOf(await bookOsbp(osbp, { ...base, provider_id: heldTech })).code).toBe("slot_taken");
      // Another technician: booked, on the other bay.
      const other = [...free][0]!;
      const receipt = valueOf(
        await bookOsbp(osbp, {
          ...base,
          idempotency_key: `idem-${env.redisKeyPrefix}-2`,
          provider_id: other,
        }),
      ) as { booking_id: string };
      expect(receipt.booking_id).toMatch(/^b_/);
      expect(await offered()).toEqual([]);

      // 2. Both bays are taken at that time now: a second SchCP hold there is refused, with
      // alternatives; the first SchCP hold was never taken and confirms.
      const second = agent();
      const m2 = await second.keyApp.issueMandate({ agent: second.key, audience: HOST, scope: ["hold"] });
      const refused = refusalOf(
        await second.client.hold(maple, { service_id: "oil-change", start }, { mandate: m2.compact }),
      );
      expect(refused).toMatchObject({ code: "SLOT_UNAVAILABLE", reason: "slot_taken" });
      expect(JSON.stringify(refused)).toContain("alternative");
      const confirmed = must(
        await first.client.confirm(
          maple,
          hold.body.hold_id,
          { offer_sha256: held.offer.sha256 },
          { mandate: m1.compact },
        ),
        "confirm",
      );
      expect(confirmed.status).toBe(201);

      // 3. The operator sees both bookings, from both edges.
      const list = (await operator(`/${HOST}/bookings`)).json as {
        bookings: { booking: { booking_id: string; start: string } }[];
      };
      const there = list.bookings
        .filter((b) => Date.parse(b.booking.start) === at)
        .map((b) => b.booking.booking_id);
      expect(there.sort()).toEqual([confirmed.body.booking.booking_id, receipt.booking_id].sort());

      // 4. The platform: two appointments at that time, no resource used twice.
      const platform = await RedisSyntheticBackend.connect(env.redisUrl, `${env.redisKeyPrefix}synthetic:`);
      try {
        const snap = await platform.read(HOST, { range: { start: at, end: at + 60_000 } });
        expect(snap.occupying).toHaveLength(2);
        const used = snap.occupying.flatMap((a) => a.allocations.map((x) => x.resourceId));
        expect(new Set(used).size).toBe(used.length);
      } finally {
        await platform.close();
      }
    });

    it("host_approval over OSBP: booking.create is pending, the operator approves through serve, booking.status is booked", async () => {
      const HOST = "harbourview-dental";
      const zone = "America/Vancouver";
      const osbp = await mcp(HOST);
      // The first day with a cleaning slot, a week or more ahead.
      let slot: OsbpSlot | undefined;
      for (let d = 7; d < 14 && slot === undefined; d++) {
        const { date } = localDateTime(Date.now() + d * DAY_MS, zone);
        const found = valueOf(
          await call<OsbpSlot[]>(osbp, "osbp_availability_find", { service_id: "cleaning", date }),
        );
        slot = found[0];
      }
      if (slot === undefined) throw new Error("no cleaning slot in a week");
      const [date, clock] = slot.starts_at_local.split("T") as [string, string];
      const receipt = valueOf(
        await bookOsbp(osbp, {
          idempotency_key: `idem-${env.redisKeyPrefix}-dental`,
          service_id: "cleaning",
          schedule_id: slot.schedule_id,
          ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
          date,
          time: clock.slice(0, 5),
          customer: { display_name: "Sam", email: "sam@example.org" },
          mandate: mandateFor(HOST, date, 50_000, "CAD"),
        }),
      ) as { booking_id: string; text: string };
      expect(receipt.text).toContain("pending");
      const pending = valueOf(
        await call<{ status: string }>(osbp, "osbp_booking_status", { booking_id: receipt.booking_id }),
      );
      expect(pending.status).toBe("pending");

      const listed = (await operator(`/${HOST}/bookings`)).json as {
        bookings: { booking: { booking_id: string; status: string } }[];
      };
      expect(listed.bookings.find((b) => b.booking.booking_id === receipt.booking_id)?.booking.status).toBe(
        "pending_host",
      );
      const approved = await operator(`/${HOST}/bookings/${receipt.booking_id}/approve`, {
        method: "POST",
        body: "{}",
      });
      expect(approved.status).toBe(200);

      const booked = valueOf(
        await call<{ status: string }>(osbp, "osbp_booking_status", { booking_id: receipt.booking_id }),
      );
      expect(booked.status).toBe("booked");
    });
  });
}

crossEdgeSuite({ label: "Redis", start: startTestRedis });
crossEdgeSuite({ label: "Redis Cluster", start: startTestRedisCluster });
