/**
 * `booking-gateway mcp` with REDIS_URL, in process: the booking.create idempotency cache and
 * the synthetic platform live in Redis under REDIS_KEY_PREFIX, so a second server process
 * replays a settled booking instead of booking again (OSBP "booking.create": "retrying with the
 * same key and payload returns the same receipt without contacting the platform again").
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningMcp } from "../../../src/gateway/cli/cli.js";
import { CONFORMANCE_HOST_ID, conformanceHost as fx } from "../../../src/gateway/osbp-conformance/index.js";
import { extractApprovalToken, type Slot, type ToolResult } from "../../../src/protocol/osbp/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
let admin: Redis;
let dir: string;
const prefix = uniquePrefix("osbp-mcp");

beforeAll(async () => {
  redis = await startTestRedis();
  admin = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), "gw-mcp-redis-"));
});
afterAll(async () => {
  await dropPrefix(admin, prefix);
  admin.disconnect();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

/** One `mcp` command on stand-in streams, and an MCP client on the other ends. */
async function startInProcess() {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const err: string[] = [];
  const result = await runCli(["mcp", "--host", CONFORMANCE_HOST_ID], {
    env: {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      OSBP_AUDIT_LOG_PATH: join(dir, "audit.jsonl"),
      OSBP_IDEMPOTENCY_PATH: join(dir, "unused.json"),
    },
    out: () => undefined,
    err: (l) => err.push(l),
    cwd: dir,
    stdin: toServer,
    stdout: fromServer,
  });
  if (typeof result === "number") throw new Error(`mcp exited ${result}: ${err.join("\n")}`);
  const running = result as RunningMcp;
  const client = new Client({ name: "osbp-test-agent", version: "0.0.0" });
  // The stdio line framing is symmetric: the server transport class reads and writes it for a client too.
  await client.connect(new StdioServerTransport(fromServer, toServer));
  const call = async (name: string, args: unknown) =>
    (await client.callTool({ name, arguments: args as Record<string, unknown> }))
      .structuredContent as ToolResult<unknown>;
  const stop = async () => {
    toServer.end();
    await running.done;
    await client.close();
  };
  return { call, stop, err };
}

describe("booking-gateway mcp on Redis", { timeout: 30_000 }, () => {
  it("keeps idempotency and the synthetic platform in Redis: a second process replays the receipt", async () => {
    const first = await startInProcess();
    expect(first.err.join("\n")).toMatch(
      /holds, bookings, idempotency and the synthetic platform: Redis .* shared with serve/,
    );
    const service_id = fx.services.fixed_usd.service_id;
    const found = await first.call("osbp_availability_find", {
      service_id,
      schedule_id: fx.schedule_id,
      date: fx.bookableDate(Date.now()),
    });
    const slot = found.ok ? (found.value as Slot[])[0] : undefined;
    if (slot === undefined) throw new Error(`no slot: ${JSON.stringify(found)}`);
    const [date, clock] = slot.starts_at_local.split("T") as [string, string];
    const input = {
      mandate: fx.mandateFor(),
      idempotency_key: `idem_${prefix}`,
      service_id,
      schedule_id: slot.schedule_id,
      ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
      date,
      time: clock.slice(0, 5),
      customer: fx.customer,
    };
    const challenge = await first.call("osbp_booking_create", input);
    expect(challenge).toMatchObject({ ok: false, problem: { code: "requires_user_confirmation" } });
    const token = challenge.ok ? undefined : extractApprovalToken(challenge.problem.message);
    const approved = { ...input, approval: { confirmed: true, token } };
    const booked = await first.call("osbp_booking_create", approved);
    expect(booked, JSON.stringify(booked)).toMatchObject({ ok: true });
    await first.stop();

    expect(await admin.keys(`${prefix}osbp:idempotency:*`)).not.toEqual([]);
    expect(await admin.keys(`${prefix}synthetic:*`)).not.toEqual([]);
    // The booking is the gateway core's, in the same Redis a `serve` process uses.
    expect(await admin.keys(`${prefix}{bayview-reference-studio}:*`)).not.toEqual([]);

    const second = await startInProcess();
    const replayed = await second.call("osbp_booking_create", approved);
    expect(replayed).toMatchObject({
      ok: true,
      value: booked.ok ? booked.value : "not booked",
      osbp_runtime: { idempotency: "local_cache_replay" },
    });
    await second.stop();
  });

  it("shares the approval key through Redis: a token issued by one process approves the retry at another", async () => {
    const [one, two] = [await startInProcess(), await startInProcess()];
    const service_id = fx.services.fixed_usd.service_id;
    const found = await one.call("osbp_availability_find", {
      service_id,
      schedule_id: fx.schedule_id,
      date: fx.bookableDate(Date.now()),
    });
    // The first test booked the first slot: take the last one.
    const slots = found.ok ? (found.value as Slot[]) : [];
    const slot = slots[slots.length - 1];
    if (slot === undefined) throw new Error(`no slot: ${JSON.stringify(found)}`);
    const [date, clock] = slot.starts_at_local.split("T") as [string, string];
    const input = {
      mandate: fx.mandateFor(),
      idempotency_key: `idem_shared_${prefix}`,
      service_id,
      schedule_id: slot.schedule_id,
      ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
      date,
      time: clock.slice(0, 5),
      customer: fx.customer,
    };
    const challenge = await one.call("osbp_booking_create", input);
    const token = challenge.ok ? undefined : extractApprovalToken(challenge.problem.message);
    expect(token).toBeDefined();
    const booked = await two.call("osbp_booking_create", { ...input, approval: { confirmed: true, token } });
    expect(booked, JSON.stringify(booked)).toMatchObject({ ok: true });
    await one.stop();
    await two.stop();
  });
});
