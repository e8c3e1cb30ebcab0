/**
 * A hostile calendar upstream against a running gateway (createGatewayRuntime + createHttpApp
 * on a loopback socket, its calendar sync started as `serve` starts it): a CalDAV server that
 * answers 300 MB (streamed lazily, never allocated), one that drips its answer a byte at a
 * time, one that answers XML whose parse is pathological, and a JSON upstream (Google Calendar,
 * its requests led to a loopback fake) that answers 300 MB, or JSON under the byte cap whose
 * parse would hold the event loop for most of a second. Throughout, /healthz answers within
 * 100 ms (polled every 50 ms), the process's memory stays bounded, and the sync ends
 * incomplete with the reason on the host's health and its calendar report (the bounds:
 * src/connectors/http/limits.ts, read-body.ts, json-cost.ts, caldav/off-thread.ts). The CalDAV connect check
 * answers such a server at once with a clear message.
 *
 * What is measured is the hostile answer, not the gateway's start: the fake holds the sync's
 * first request until the gateway is up and has answered a few warm-up requests (its first
 * answers load code and open connections), then answers it in the hostile way while /healthz
 * is polled. Beside the wall-clock latency (which a loaded machine stretches), the event loop's
 * own delay is measured in process (monitorEventLoopDelay), and the same poll against the same
 * gateway with the upstream silent is the run's baseline, reported with every failure.
 */
import { serve } from "@hono/node-server";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHostsConfig } from "../../../src/booking/hosts/parse-config.js";
import { checkCaldav } from "../../../src/edges/console/connect/caldav.js";
import { caldavDiscovery } from "../../../src/gateway/runtime/connect-wiring.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
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

type Mode = "hold" | "caldavHuge" | "googleHuge" | "googleCostly" | "drip" | "pathological";

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
  /** The slowest /healthz answer (ms, wall clock, from request to its body read). */
  maxLatencyMs: number;
  /** The longest the event loop was late for a timer (ms; monitorEventLoopDelay, 10 ms resolution). */
  maxLoopDelayMs: number;
  maxRssGrowth: number;
  polls: number;
}

const POLL_EVERY_MS = 50;

/** Polls /healthz every POLL_EVERY_MS until `done` answers true (or `polls` polls, when given). */
async function poll(
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
      expect(res.status).toBe(200);
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

interface Seen {
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
async function watchSync(
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
    expect((await calendarNow()).calendars.every((c) => c.last_sync === undefined)).toBe(true);
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
  owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
  timezone: "Europe/Madrid",
  connector: { type: "caldav", settings: { serverUrl: caldav.url, calendarPath: "/cal/" } },
  calendar: { ...calendarSection("/cal/"), sync_every: "PT1H" },
});

/**
 * The bounds: /healthz within 100 ms, memory bounded. The baseline and the event loop's own
 * delay are in the message: a failure whose baseline is as slow is the machine's, not the
 * gateway's. The loop delay is not asserted: on a loaded machine (a shared CI runner) it
 * reaches 100 ms with the gateway idle, as the baseline then shows.
 */
function expectBounded({ watch, baseline }: Seen): void {
  const seen = `hostile ${JSON.stringify(round(watch))}; same gateway, upstream silent ${JSON.stringify(round(baseline))}`;
  if (process.env["BOUNDED_DEBUG"]) console.log(seen);
  expect(watch.polls).toBeGreaterThan(0);
  expect(watch.maxLatencyMs, `the slowest /healthz answer (ms): ${seen}`).toBeLessThan(100);
  expect(watch.maxRssGrowth, `RSS growth (bytes): ${seen}`).toBeLessThan(200 * MiB);
}

const round = (w: Watch) => ({
  maxLatencyMs: Math.round(w.maxLatencyMs),
  maxLoopDelayMs: Math.round(w.maxLoopDelayMs),
  rssGrowthMiB: Math.round(w.maxRssGrowth / MiB),
  polls: w.polls,
});

/**
 * One wall-clock bound is asserted (/healthz within 100 ms), and a loaded machine can stretch one
 * poll past it with the gateway blameless: each case is run again once before it fails. A gateway
 * that blocks on a hostile answer (the parse of an 8 MiB body holds the loop for most of a
 * second, a 300 MB one for minutes) fails both runs.
 */
const ONCE_MORE = { retry: 1 } as const;

describe("a hostile CalDAV server, while the gateway syncs it", ONCE_MORE, () => {
  it("300 MB of answer: refused at the cap, the host degraded with upstream_too_large", async () => {
    const seen = await watchSync(dir, caldavHost(), caldav, "caldavHuge");
    const { health, calendar } = seen;
    expectBounded(seen);
    expect(health).toMatchObject({ health: "degraded", last_error: { reason: "upstream_too_large" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { reason: "upstream_too_large" } } }],
    });
  }, 60_000);

  it("an answer that drips in: ended by the timeout, the host degraded", async () => {
    // 8 s rather than the default 20: the held first request counts the warm-up and the
    // baseline (about 2.5 s) against it, and a drip lasts the rest; a timeout is a timeout.
    const seen = await watchSync(dir, caldavHost(), caldav, "drip", undefined, 8_000);
    const { health, calendar } = seen;
    expectBounded(seen);
    expect(health).toMatchObject({ health: "degraded", last_error: { code: "timeout" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { code: "timeout" } } }],
    });
  }, 60_000);

  it("pathological XML: parsed off the event loop and ended at its deadline (upstream_too_costly)", async () => {
    const seen = await watchSync(dir, caldavHost(), caldav, "pathological");
    const { health, calendar } = seen;
    expectBounded(seen);
    expect(health).toMatchObject({ health: "degraded", last_error: { reason: "upstream_too_costly" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { reason: "upstream_too_costly" } } }],
    });
  }, 60_000);

  it("the connect check: a 300 MB discovery answer is a clear error within seconds", async () => {
    await caldav.mode("caldavHuge");
    const started = Date.now();
    const checked = await checkCaldav(
      { serverUrl: caldav.url, username: "ana", password: "pw" },
      { discovery: caldavDiscovery, policy: { allowPrivate: true } },
    );
    expect(checked).toMatchObject({ ok: false, error: { kind: "not_caldav" } });
    expect(!checked.ok && checked.error.message).toMatch(/far more data/);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 30_000);
});

describe("a hostile JSON upstream (Google Calendar), while the gateway syncs it", ONCE_MORE, () => {
  // Google's requests go to the loopback fake; the connector sees a real streamed answer.
  const toFake: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return fetch(`${google.url}${url.pathname}${url.search}`, init);
  };
  const googleHost = () => ({
    id: "ana",
    name: "Ana",
    kind: "person",
    owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
    timezone: "Europe/Madrid",
    connector: { type: "google", settings: { accessTokenFile: "google-token" } },
    calendar: { ...calendarSection("alice@example.com"), sync_every: "PT1H" },
  });

  it("300 MB of events list: refused at the cap, the host degraded with upstream_too_large", async () => {
    const seen = await watchSync(dir, googleHost(), google, "googleHuge", toFake);
    const { health, calendar } = seen;
    expectBounded(seen);
    expect(health).toMatchObject({ health: "degraded", last_error: { reason: "upstream_too_large" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { reason: "upstream_too_large" } } }],
    });
  }, 60_000);

  it("JSON under the byte cap whose parse would hold the loop: measured first, refused unparsed (upstream_too_costly)", async () => {
    const seen = await watchSync(dir, googleHost(), google, "googleCostly", toFake);
    const { health, calendar } = seen;
    expectBounded(seen);
    // The poll shares the gateway's process, so a parse that holds the loop between two polls
    // only shows in the loop's own delay: parsed whole, this answer holds it 0.7–2 s; measured
    // in turns of the loop, tens of ms. 300 ms is far from both, even on a loaded machine.
    expect(
      seen.watch.maxLoopDelayMs,
      `event loop delay (ms); same gateway, upstream silent: ${Math.round(seen.baseline.maxLoopDelayMs)}`,
    ).toBeLessThan(300);
    expect(health).toMatchObject({ health: "degraded", last_error: { reason: "upstream_too_costly" } });
    expect(calendar).toMatchObject({
      calendars: [{ last_sync: { outcome: "incomplete", error: { reason: "upstream_too_costly" } } }],
    });
  }, 60_000);
});
