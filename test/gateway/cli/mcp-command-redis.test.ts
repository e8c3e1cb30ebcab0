/**
 * serve on Redis, and the MCP command its start banner prints run as a client would run it
 * (from another working directory, on stand-in stdio streams, in process): the booking the MCP
 * server makes over OSBP is one serve's operator API lists, since the command carries serve's
 * REDIS_URL and REDIS_KEY_PREFIX (src/gateway/cli/mcp-command.ts).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningMcp, RunningServer } from "../../../src/gateway/cli/cli.js";
import {
  CONFORMANCE_HOST_CONFIG,
  CONFORMANCE_HOST_ID,
  conformanceHost as fx,
} from "../../../src/gateway/osbp-conformance/index.js";
import { extractApprovalToken, type Slot, type ToolResult } from "../../../src/protocol/osbp/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

const TOKEN = "operator-token-for-the-test-0123456789";
const prefix = uniquePrefix("mcp-banner");
let redis: TestRedis;
let admin: Redis;
let dir: string;
beforeAll(async () => {
  redis = await startTestRedis();
  admin = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), "gw-mcp-banner-"));
});
afterAll(async () => {
  await dropPrefix(admin, prefix);
  admin.disconnect();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

it("the banner's MCP command books on serve's Redis: serve's operator API lists the booking", async () => {
  await writeFile(join(dir, "hosts.json"), JSON.stringify({ hosts: [CONFORMANCE_HOST_CONFIG] }));
  const out: string[] = [];
  const started = await runCli(["serve", "--config", "hosts.json"], {
    env: {
      PORT: "0",
      GATEWAY_DATA_DIR: "data",
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      OPERATOR_TOKEN: TOKEN,
    },
    out: (l) => out.push(l),
    err: () => undefined,
    cwd: dir,
  });
  if (typeof started === "number") throw new Error(`serve exited ${started}`);
  const server = started as RunningServer;
  try {
    const line = out.find((l) => l.includes('{"booking-gateway":'));
    const entry = (
      JSON.parse(line!.slice(line!.indexOf("{"))) as {
        "booking-gateway": { args: string[]; env: Record<string, string> };
      }
    )["booking-gateway"];
    expect(entry.args.slice(1)).toEqual([
      "mcp",
      "--host",
      CONFORMANCE_HOST_ID,
      "--config",
      join(dir, "hosts.json"),
    ]);
    expect(entry.env).toMatchObject({
      GATEWAY_DATA_DIR: join(dir, "data"),
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
    });

    const elsewhere = join(dir, "client-cwd");
    await mkdir(elsewhere);
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const err: string[] = [];
    const mcp = await runCli(entry.args.slice(1), {
      env: entry.env,
      out: () => undefined,
      err: (l) => err.push(l),
      cwd: elsewhere,
      stdin: toServer,
      stdout: fromServer,
    });
    if (typeof mcp === "number") throw new Error(`mcp exited ${mcp}: ${err.join("\n")}`);
    const client = new Client({ name: "banner-test-agent", version: "0.0.0" });
    // The stdio line framing is symmetric: the server transport class reads and writes it for a client too.
    await client.connect(new StdioServerTransport(fromServer, toServer));
    const call = async (name: string, args: unknown) =>
      (await client.callTool({ name, arguments: args as Record<string, unknown> }))
        .structuredContent as ToolResult<unknown>;
    try {
      const service_id = fx.services.fixed_usd.service_id;
      const found = await call("osbp_availability_find", {
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
      const challenge = await call("osbp_booking_create", input);
      const token = challenge.ok ? undefined : extractApprovalToken(challenge.problem.message);
      const booked = await call("osbp_booking_create", { ...input, approval: { confirmed: true, token } });
      expect(booked, JSON.stringify(booked)).toMatchObject({ ok: true });
    } finally {
      toServer.end();
      await (mcp as RunningMcp).done;
      await client.close();
    }

    const listed = await fetch(`${server.url}/operator/v0/${CONFORMANCE_HOST_ID}/bookings`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { bookings: unknown[] };
    expect(body.bookings).toHaveLength(1);
  } finally {
    await server.close();
  }
});
