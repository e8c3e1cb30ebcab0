/**
 * A hostile calendar upstream against a running gateway, shared by the test that checks the
 * gateway's bounds on it (test/gateway/runtime/bounded-upstream.test.ts) and the benchmark
 * that measures how responsive it stays meanwhile (bench/hostile-upstream.ts): loopback fakes
 * of a CalDAV server and of Google Calendar's events list, run in a worker thread of their own,
 * that hold the sync's first request until told how to answer it; and a watch of /healthz (its
 * wall-clock latency, the event loop's own delay and the process's RSS) while the gateway
 * syncs, beside the same watch with the upstream silent (the baseline).
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { parseHostsConfig } from "../../src/booking/hosts/parse-config.js";
import { createHttpApp } from "../../src/gateway/app/app.js";
import { createGatewayRuntime } from "../../src/gateway/runtime/runtime.js";

export const MiB = 1024 * 1024;
export const OPERATOR = "operator-token-bounded-upstream-test";

/**
 * The fakes run in a worker thread of their own: writing 300 MB is work, and it must not be
 * counted against the gateway's event loop, which is what the test measures.
 */
export const FAKE = String.raw`
const { createServer } = require("node:http");
const { parentPort } = require("node:worker_threads");
const MiB = 1024 * 1024;
let mode = "hold";
// "hold": requests wait, answered in the next mode once it is set.
const held = [];
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
  // Under the JSON byte cap, but 7 MiB of empty arrays: ~0.7 s of JSON.parse in one piece.
  googleCostly: (_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
    res.end('{"kind":"calendar#events","items":[],"x":[' + "[],".repeat(Math.floor((7 * MiB) / 3)) + "[]]}");
  },
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
const server = createServer((req, res) => {
  if (mode === "hold") held.push([req, res]);
  else modes[mode](req, res);
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (m) => {
  mode = m.mode;
  if (mode !== "hold") for (const [req, res] of held.splice(0)) modes[mode](req, res);
  parentPort.postMessage({ mode });
});
`;

export type Mode = "hold" | "caldavHuge" | "googleHuge" | "googleCostly" | "drip" | "pathological";

export class Fake {
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

export const calendarSection = (id: string) => ({
  capacity: "me",
  hours: [{ day: 1, open: "09:00", close: "14:00" }],
  services: [{ id: "session", name: "Session", duration: "PT45M" }],
  calendars: [{ id }],
  approver: { email: "ana@example.com" },
});

export interface Watch {
  /** The slowest /healthz answer (ms, wall clock, from request to its body read). */
  maxLatencyMs: number;
  /** The longest the event loop was late for a timer (ms; monitorEventLoopDelay, 10 ms resolution). */
  maxLoopDelayMs: number;
  maxRssGrowth: number;
  polls: number;
}

export const POLL_EVERY_MS = 50;

/** Polls /healthz every POLL_EVERY_MS until `done` answers true (or `polls` polls, when given). */
export async function poll(
  base: string,
  until: { done?: () => Promise<boolean>; polls?: number },
  rss0: number,
): Promise<Watch> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const watch: Watch = { maxLatencyMs: 0, maxLoopDelayMs: 0, maxRssGrowth: 0, polls: 0 };
  try {
    for (let i = 0; i < (until.polls ?? 1200); i++) {
      const started = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      const took = performance.now() - started;
      if (process.env["BOUNDED_DEBUG"]) console.log(i, took.toFixed(0));
      if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
      watch.maxLatencyMs = Math.max(watch.maxLatencyMs, took);
      watch.maxRssGrowth = Math.max(watch.maxRssGrowth, process.memoryUsage().rss - rss0);
      watch.polls += 1;
      if (until.done !== undefined && (await until.done())) return watch;
      await new Promise((r) => setTimeout(r, POLL_EVERY_MS));
    }
    if (until.done !== undefined) throw new Error("the sync never reported");
    return watch;
  } finally {
    loop.disable();
    // The histogram counts the timer's resolution in every sample (Node's documentation).
    watch.maxLoopDelayMs = Math.max(0, loop.max / 1e6 - 10);
  }
}

export interface Seen {
  watch: Watch;
  /** The same gateway, its upstream silent (the sync's request held), polled as long. */
  baseline: Watch;
  health: Record<string, unknown>;
  calendar: Record<string, unknown>;
}

/**
 * Starts a gateway with one calendar host whose upstream holds its first request; warms it up
 * and takes the baseline; then lets `upstream` answer in `mode` and polls /healthz every
 * 50 ms until the host's first sync has reported.
 */
export async function watchSync(
  dataDir: string,
  host: Record<string, unknown>,
  upstream: Fake,
  mode: Mode,
  connectorFetch?: typeof fetch,
  caldavTimeoutMs?: number,
): Promise<Seen> {
  const parsed = parseHostsConfig({ hosts: [host] });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const quiet = () => undefined;
  await upstream.mode("hold");
  const runtime = await createGatewayRuntime({
    hosts: parsed.value,
    publicOrigin: "https://gw.example",
    dataDir,
    operatorToken: OPERATOR,
    logger: { info: quiet, warn: quiet, error: quiet },
    // The hostile servers are on loopback: the operator's explicit allowance (src/protocol/net).
    upstreamPolicy: { allowPrivate: true },
    ...(connectorFetch !== undefined && { connectorFetch }),
    ...(caldavTimeoutMs !== undefined && { caldavTimeoutMs }),
  });
  const app = createHttpApp(runtime);
  const server = await new Promise<ReturnType<typeof serve>>((done) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => done(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { headers: { authorization: `Bearer ${OPERATOR}` } };
  const calendarNow = async () =>
    (await (await fetch(`${base}/operator/v0/ana/calendar`, auth)).json()) as {
      calendars: Array<{ last_sync?: { outcome: string } }>;
    };
  try {
    // Warm-up, not measured: the first answers load code and open connections.
    for (let i = 0; i < 5; i++) {
      await (await fetch(`${base}/healthz`)).arrayBuffer();
      await calendarNow();
    }
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const baseline = await poll(base, { polls: 40 }, rss0);
    if (!(await calendarNow()).calendars.every((c) => c.last_sync === undefined))
      throw new Error("the sync reported before its upstream answered");
    await upstream.mode(mode);
    const watch = await poll(
      base,
      { done: async () => (await calendarNow()).calendars.some((c) => c.last_sync !== undefined) },
      rss0,
    );
    const calendar = await calendarNow();
    const health = (await (await fetch(`${base}/operator/v0/ana/health`, auth)).json()) as Record<
      string,
      unknown
    >;
    return { watch, baseline, health, calendar: calendar as unknown as Record<string, unknown> };
  } finally {
    server.close();
    await runtime.close();
  }
}

/** The person whose calendar is synced: one CalDAV calendar on the fake. */
export const caldavHost = (serverUrl: string) => ({
  id: "ana",
  name: "Ana",
  kind: "person",
  owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
  timezone: "Europe/Madrid",
  connector: { type: "caldav", settings: { serverUrl, calendarPath: "/cal/" } },
  calendar: { ...calendarSection("/cal/"), sync_every: "PT1H" },
});

/** The same person on Google Calendar; its token file is `google-token` in the data dir. */
export const googleHost = () => ({
  id: "ana",
  name: "Ana",
  kind: "person",
  owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
  timezone: "Europe/Madrid",
  connector: { type: "google", settings: { accessTokenFile: "google-token" } },
  calendar: { ...calendarSection("alice@example.com"), sync_every: "PT1H" },
});

/** Google's requests led to the loopback fake: the connector sees a real streamed answer. */
export const toFake =
  (fakeUrl: string): typeof fetch =>
  (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return fetch(`${fakeUrl}${url.pathname}${url.search}`, init);
  };
