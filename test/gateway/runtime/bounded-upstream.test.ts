/**
 * A hostile calendar upstream against a running gateway (createGatewayRuntime + createHttpApp
 * on a loopback socket, its calendar sync started as `serve` starts it): a CalDAV server that
 * answers 300 MB (streamed lazily, never allocated), one that drips its answer a byte at a
 * time, one that answers XML whose parse is pathological, and a JSON upstream (Google Calendar,
 * its requests led to a loopback fake) that answers 300 MB. Throughout, /healthz answers within
 * 100 ms (polled every 50 ms), the process's memory stays bounded, and the sync ends
 * incomplete with the reason on the host's health and its calendar report (the bounds:
 * src/connectors/http/limits.ts, read-body.ts, caldav/off-thread.ts). The CalDAV connect check
 * answers such a server at once with a clear message.
 */
import { serve } from "@hono/node-server";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHostsConfig } from "../../../src/booking/hosts/parse-config.js";
import { checkCaldav } from "../../../src/gateway/connect/caldav.js";
import { createHttpApp } from "../../../src/gateway/http/app.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";

const MiB = 1024 * 1024;
const OPERATOR = "operator-token-bounded-upstream-test";

/**
 * The fakes run in a worker thread of their own: writing 300 MB is work, and it must not be
 * counted against the gateway's event loop, which is what the test measures.
 */
const FAKE = String.raw`
const { createServer } = require("node:http");
const { parentPort } = require("node:worker_threads");
const MiB = 1024 * 1024;
let mode = "drip";
const lazily = (status, type, head, total, filler) => (_req, res) => {
  res.writeHead(status, { "content-type": type });
  const chunk = Buffer.from(filler.repeat(Math.ceil(65536 / filler.length)).slice(0, 65536));
  let sent = head.length;
  let closed = false;
  res.on("close", () => (closed = true));
  res.write(head);
  const more = () => {
    while (!closed && sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    if (!closed) res.end();
  };
  more();
};
const modes = {
  caldavHuge: lazily(207, "application/xml", "<a/>", 300 * MiB, "x"),
  googleHuge: lazily(200, "application/json", '{"kind":"calendar#events","items":[', 300 * MiB, '{"id":"e"},'),
  drip: (_req, res) => {
    res.writeHead(207, { "content-type": "application/xml; charset=utf-8" });
    res.write('<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:">');
    const timer = setInterval(() => res.write(" "), 100);
    res.on("close", () => clearInterval(timer));
  },
  // Under the CalDAV cap, but text outside the root element costs sax ~5 us a byte: ~40 s here.
  pathological: (_req, res) => {
    res.writeHead(207, { "content-type": "application/xml; charset=utf-8" });
    res.end('<d:multistatus xmlns:d="DAV:"/>' + "x".repeat(8 * MiB));
  },
};
const server = createServer((req, res) => modes[mode](req, res));
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (m) => {
  mode = m.mode;
  parentPort.postMessage({ mode });
});
`;

type Mode = "caldavHuge" | "googleHuge" | "drip" | "pathological";

class Fake {
  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {}

  static async start(): Promise<Fake> {
    const worker = new Worker(FAKE, { eval: true });
    const { port } = await new Promise<{ port: number }>((done) => worker.once("message", done));
    return new Fake(worker, `http://127.0.0.1:${port}`);
  }

  async mode(mode: Mode): Promise<void> {
    const set = new Promise((done) => this.worker.once("message", done));
    this.worker.postMessage({ mode });
    await set;
  }

  stop(): Promise<number> {
    return this.worker.terminate();
  }
}

const calendarSection = (id: string) => ({
  capacity: "me",
  hours: [{ day: 1, open: "09:00", close: "14:00" }],
  services: [{ id: "session", name: "Session", duration: "PT45M" }],
  calendars: [{ id }],
  approver: { email: "ana@example.com" },
});

interface Watch {
  maxLatencyMs: number;
  maxRssGrowth: number;
  polls: number;
}

/**
 * Starts a gateway with one calendar host, polls /healthz every 50 ms until the host's first
 * sync has reported, and answers what was seen.
 */
async function watchSync(
  dataDir: string,
  host: Record<string, unknown>,
  connectorFetch?: typeof fetch,
): Promise<{ watch: Watch; health: Record<string, unknown>; calendar: Record<string, unknown> }> {
  const parsed = parseHostsConfig({ hosts: [host] });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const quiet = () => undefined;
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const runtime = await createGatewayRuntime({
    hosts: parsed.value,
    publicOrigin: "https://gw.example",
    dataDir,
    operatorToken: OPERATOR,
    logger: { info: quiet, warn: quiet, error: quiet },
    ...(connectorFetch !== undefined && { connectorFetch }),
  });
  const app = createHttpApp(runtime);
  const server = await new Promise<ReturnType<typeof serve>>((done) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => done(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { headers: { authorization: `Bearer ${OPERATOR}` } };
  const watch: Watch = { maxLatencyMs: 0, maxRssGrowth: 0, polls: 0 };
  try {
    for (let i = 0; i < 1200; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      const took = performance.now() - started;
      if (process.env["BOUNDED_DEBUG"]) console.log(i, took.toFixed(0));
      watch.maxLatencyMs = Math.max(watch.maxLatencyMs, took);
      watch.maxRssGrowth = Math.max(watch.maxRssGrowth, process.memoryUsage().rss - rss0);
      watch.polls += 1;
      expect(res.status).toBe(200);
      const calendar = (await (await fetch(`${base}/operator/v0/ana/calendar`, auth)).json()) as {
        calendars: Array<{ last_sync?: { outcome: string } }>;
      };
      if (calendar.calendars.some((c) => c.last_sync !== undefined)) {
        const health = (await (await fetch(`${base}/operator/v0/ana/health`, auth)).json()) as Record<
          string,
          unknown
        >;
        return { watch, health, calendar };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("the sync never reported");
  } finally {
    server.close();
    await runtime.close();
  }
}

let dir = "";
let caldav: Fake;
let google: Fake;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-bounded-"));
  await writeFile(join(dir, "google-token"), "ya29.bounded-test-token");
  caldav = await Fake.start();
  google = await Fake.start();
});
afterAll(async () => {
  await caldav.stop();
  await google.stop();
  await rm(dir, { recursive: true, force: true });
});

const caldavHost = () => ({
  id: "ana",
  name: "Ana",
  kind: "person",
  timezone: "Europe/Madrid",
  connector: { type: "caldav", settings: { serverUrl: caldav.url, calendarPath: "/cal/" } },
  calendar: { ...calendarSection("/cal/"), sync_every: "PT1H" },
});

function expectBounded(watch: Watch): void {
  expect(watch.polls).toBeGreaterThan(0);
  expect(watch.maxLatencyMs, "the slowest /healthz answer (ms)").toBeLessThan(100);
  expect(watch.maxRssGrowth, "RSS growth (bytes)").toBeLessThan(200 * MiB);
}

describe("a hostile CalDAV server, while the gateway syncs it", () => {
  it("300 MB of answer: refused at the cap, the host degraded with upstream_too_large", async () => {
    await caldav.mode("caldavHuge");
    const { watch, health, calendar } = await watchSync(dir, caldavHost());
    expectBounded(watch);
    expect(health).toMatchObject({ health: "degraded", last_error: { reason: "upstream_too_large" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { reason: "upstream_too_large" } } }],
    });
  }, 60_000);

  it("an answer that drips in: ended by the timeout, the host degraded", async () => {
    await caldav.mode("drip");
    const { watch, health, calendar } = await watchSync(dir, caldavHost());
    expectBounded(watch);
    expect(health).toMatchObject({ health: "degraded", last_error: { code: "timeout" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { code: "timeout" } } }],
    });
  }, 60_000);

  it("pathological XML: parsed off the event loop and ended at its deadline (upstream_too_costly)", async () => {
    await caldav.mode("pathological");
    const { watch, health, calendar } = await watchSync(dir, caldavHost());
    expectBounded(watch);
    expect(health).toMatchObject({ health: "degraded", last_error: { reason: "upstream_too_costly" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { reason: "upstream_too_costly" } } }],
    });
  }, 60_000);

  it("the connect check: a 300 MB discovery answer is a clear error within seconds", async () => {
    await caldav.mode("caldavHuge");
    const started = Date.now();
    const checked = await checkCaldav({ serverUrl: caldav.url, username: "ana", password: "pw" });
    expect(checked).toMatchObject({ ok: false, kind: "not_caldav" });
    expect(!checked.ok && checked.message).toMatch(/far more data/);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 30_000);
});

describe("a hostile JSON upstream (Google Calendar), while the gateway syncs it", () => {
  // Google's requests go to the loopback fake; the connector sees a real streamed answer.
  const toFake: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return fetch(`${google.url}${url.pathname}${url.search}`, init);
  };
  const googleHost = () => ({
    id: "ana",
    name: "Ana",
    kind: "person",
    timezone: "Europe/Madrid",
    connector: { type: "google", settings: { accessTokenFile: "google-token" } },
    calendar: { ...calendarSection("alice@example.com"), sync_every: "PT1H" },
  });

  it("300 MB of events list: refused at the cap, the host degraded with upstream_too_large", async () => {
    await google.mode("googleHuge");
    const { watch, health, calendar } = await watchSync(dir, googleHost(), toFake);
    expectBounded(watch);
    expect(health).toMatchObject({ health: "degraded", last_error: { reason: "upstream_too_large" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { reason: "upstream_too_large" } } }],
    });
  }, 60_000);
});
