/**
 * npm run bench:schcp — signed SchCP hold + confirm round trips over loopback against the
 * embedded default, and, as the baseline measured in the same run on the same server,
 * unsigned GETs of the operator document. Prints one JSON object on stdout:
 *   {"requests", "ok", "p50_ms", "p99_ms", "per_s", "baseline_per_s", "ratio", "floor_per_s",
 *    "floor_ratio"}
 * requests = signed requests sent (each hold and each confirm is one round trip); ok = those
 * answered with success (201, or 202 pending); p50/p99 = latency of one signed request;
 * per_s = signed requests per second; baseline_per_s = operator-document GETs per second at
 * the same concurrency, measured before and after the timed requests (the higher is used, so
 * drift can only lower the ratio); ratio = per_s / baseline_per_s (target ≥ 0.25);
 * floor_per_s = signed requests per second on the floor route below; floor_ratio = per_s /
 * floor_per_s (target ≥ 0.6): the share of the floor the whole booking path keeps. Pairs per
 * second and other progress go to stderr.
 *
 * Each worker is one agent with its own principal (new guests share the unproven pool, so
 * the concurrency stays under max_active_unproven) and books distinct starts taken from
 * availability beforehand, so every pair exercises the whole path: signature and mandate
 * verification, the §5.2 rules, atomic allocation, offer signing, the two-phase confirm
 * against the synthetic upstream and the signed receipt.
 *
 *   --pairs N (default 200)   --concurrency C (default 4); 50 untimed warm-up pairs and 3,000
 *                             GETs first; each baseline is at least 3,000 GETs
 *   --profile FILE            write a V8 CPU profile of the timed pairs (open in Chrome DevTools)
 *
 * The floor is measured in the same run: a second server in the same process
 * whose only route does the least any signed SchCP request costs the host, with no booking at
 * all: read the body, verify the request signature (§3.2, nonce included), parse the JSON and
 * answer 201 with one Ed25519-signed JWS (an offer or a receipt). Sent by the same agent client
 * at the same concurrency, so its ratio to the baseline bounds what the whole path can reach.
 * The route answers a Hold around its JWS, and its client reads each answer with the agent's own
 * reader (strict JSON, the Hold schema) and hashes the offer, as an agent does with a hold.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import { KeyApp, SchcpClient, createAgentKey, describeAgentError } from "../src/agent/index.js";
import { readSchcpAnswer } from "../src/agent/http.js";
import type { AgentKey, DiscoveredHost } from "../src/agent/index.js";
import { embeddedDefaultHosts } from "../src/booking/hosts/index.js";
import { createHttpApp } from "../src/gateway/app/app.js";
import { createGatewayRuntime } from "../src/gateway/runtime/runtime.js";
import { readBoundedBody } from "../src/edges/http/body.js";
import { DEFAULT_MAX_BODY_BYTES } from "../src/gateway/app/types.js";
import { DEFAULT_ORIGIN_RATE } from "../src/edges/http/origin-limit.js";
import { MemoryNonceMemory, verifySchcpRequest } from "../src/protocol/http-signatures/index.js";
import { signCompactJws } from "../src/protocol/jose/jws.js";
import { offerSha256 } from "../src/protocol/schcp/offer/index.js";
import { generateKeyPairSync } from "node:crypto";
import { formatInstant } from "../src/protocol/time/index.js";

const DAY_MS = 86_400_000;
const { values } = parseArgs({
  options: {
    pairs: { type: "string", default: "200" },
    concurrency: { type: "string", default: "4" },
    profile: { type: "string" },
  },
});
const PAIRS = Number(values.pairs);
const CONCURRENCY = Number(values.concurrency);
const WARMUP = 50;
/**
 * GETs per baseline measurement, at least: the GET path keeps getting faster for the first
 * thousand or so requests (JIT, connection reuse), and a short baseline would flatter the ratio.
 */
const MIN_BASELINE_GETS = 3000;
const log = (line: string): void => void process.stderr.write(`bench:schcp: ${line}\n`);
const quiet = { info: () => {}, warn: () => {}, error: (m: string) => log(`gateway error: ${m}`) };

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-schcp-"));
  const route: { fetch?: (req: Request, env?: unknown) => Response | Promise<Response> } = {};
  const server = serve({
    // As `serve` does: env carries the Node request the app reads bodies from.
    fetch: (req: Request, env: unknown) =>
      route.fetch?.(req, env) ?? new Response("starting", { status: 503 }),
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The benchmark's workload is bookings, not new-guest abuse: widen the caps it would hit.
  const hosts = embeddedDefaultHosts().map((h) => ({
    ...h,
    policies: {
      ...h.policies,
      holds: { ...h.policies.holds, maxActiveUnproven: 1000 },
      // The newcomers' pool (SchCP §7.2): every bench agent is a new guest.
      publicBooking: { perHost: 1_000_000, perOrigin: 1_000_000 },
    },
  }));
  const runtime = await createGatewayRuntime({
    hosts,
    publicOrigin: origin,
    dataDir,
    logger: quiet,
    workers: false,
    // As in production (NODE_ENV=production): the edge does not re-validate its own responses.
    validateResponses: false,
    // Every agent here is 127.0.0.1, one §7.2 network origin. The limiter stays in the path, as
    // in production, but its burst is at least the whole run's SchCP requests (the default
    // 2,000 already covers the default ~550), so no --pairs meets it: the bench measures the
    // booking path, not the limiter, and a 429 would only show up as ok < requests.
    originRate: {
      ...DEFAULT_ORIGIN_RATE,
      capacity: Math.max(DEFAULT_ORIGIN_RATE.capacity, 2 * (WARMUP + PAIRS) + 100),
    },
  });
  route.fetch = createHttpApp(runtime).fetch;
  const floor = await startFloorServer();

  try {
    const scoutKey = createAgentKey();
    const scout = new SchcpClient({ agentKey: scoutKey });
    const op = await scout.discoverOperator(origin);
    if (!op.ok) throw new Error(describeAgentError(op.error));
    const listing = op.value.document.hosts.find((h) => h.id === "fades-on-queen");
    if (listing === undefined) throw new Error("fades-on-queen is not listed");
    const disc = await scout.discoverHost(listing.discovery);
    if (!disc.ok) throw new Error(describeAgentError(disc.error));
    const host = disc.value;
    const all = await freeStarts(scout, scoutKey, host, WARMUP + PAIRS);
    if (all.length < WARMUP + PAIRS) throw new Error(`only ${all.length} free starts`);
    log(`${PAIRS} pairs at concurrency ${CONCURRENCY}, after ${WARMUP} warm-up pairs`);
    // Warm-up: schema compilation, key imports and the JIT, so both sides are measured warm.
    await runPairs(host, all.slice(0, WARMUP), () => {});
    await baselinePerSecond(`${origin}/.well-known/scheduling.json`, MIN_BASELINE_GETS);

    const latencies: number[] = [];
    let ok = 0;
    let sent = 0;
    const gets = Math.max(MIN_BASELINE_GETS, PAIRS * 2);
    const before = await baselinePerSecond(`${origin}/.well-known/scheduling.json`, gets);
    const profiler = values.profile === undefined ? undefined : new Session();
    if (profiler !== undefined) {
      profiler.connect();
      await profiler.post("Profiler.enable");
      // 100 µs, not the default 1 ms: 200 pairs are about a second of CPU.
      await profiler.post("Profiler.setSamplingInterval", { interval: 100 });
      await profiler.post("Profiler.start");
    }
    const t0 = performance.now();
    let booked = 0;
    await runPairs(
      host,
      all.slice(WARMUP),
      (ms, success) => {
        sent += 1;
        latencies.push(ms);
        if (success) ok += 1;
      },
      () => (booked += 1),
    );
    const elapsed = (performance.now() - t0) / 1000;
    if (profiler !== undefined && values.profile !== undefined) {
      const { profile } = await profiler.post("Profiler.stop");
      writeFileSync(values.profile, JSON.stringify(profile));
      profiler.disconnect();
      log(`CPU profile of the timed pairs written to ${values.profile}`);
    }
    const floorPerS = await floorPerSecond(floor.url, host.hostId, Math.max(1000, PAIRS * 2));
    const after = await baselinePerSecond(`${origin}/.well-known/scheduling.json`, gets);
    const baseline = Math.max(before, after);
    latencies.sort((a, b) => a - b);
    const perS = sent / elapsed;
    log(
      `${booked}/${PAIRS} pairs booked, ${round(PAIRS / elapsed)} pairs/s; ` +
        `baseline ${round(before)} GET/s before, ${round(after)} GET/s after`,
    );
    log(
      `floor (signature verified, one JWS signed, no booking): ${round(floorPerS)} signed req/s, ` +
        `ratio ${Math.round((floorPerS / baseline) * 1000) / 1000}; the booking path reaches ` +
        `${Math.round((perS / floorPerS) * 100)} % of it`,
    );
    process.stdout.write(
      `${JSON.stringify({
        requests: sent,
        ok,
        p50_ms: round(percentile(latencies, 0.5)),
        p99_ms: round(percentile(latencies, 0.99)),
        per_s: round(perS),
        baseline_per_s: round(baseline),
        ratio: Math.round((perS / baseline) * 1000) / 1000,
        floor_per_s: round(floorPerS),
        floor_ratio: Math.round((perS / floorPerS) * 1000) / 1000,
      })}\n`,
    );
  } finally {
    await floor.close();
    await runtime.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Hold + confirm for each start, CONCURRENCY agents at a time, each with its own principal.
 * `request` is told of every signed request (latency, success); `booked` of every pair whose
 * confirm succeeded.
 */
async function runPairs(
  host: DiscoveredHost,
  starts: readonly string[],
  request: (ms: number, ok: boolean) => void,
  booked: () => void = () => {},
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const agentKey = createAgentKey();
      const client = new SchcpClient({ agentKey });
      const keyApp = new KeyApp({ principalKey: createAgentKey() });
      const mandate = await keyApp.issueMandate({
        agent: agentKey,
        audience: host.hostId,
        scope: ["hold", "book"],
        constraints: { max_bookings: starts.length + 1 },
        ttlSec: 3600,
      });
      for (let i = next++; i < starts.length; i = next++) {
        const start = starts[i];
        if (start === undefined) break;
        let began = performance.now();
        const held = await client.hold(
          host,
          { service_id: "haircut", start, ttl: "PT5M" },
          { mandate: mandate.compact },
        );
        request(performance.now() - began, held.ok);
        if (!held.ok) {
          log(`hold ${start}: ${describeAgentError(held.error)}`);
          continue;
        }
        began = performance.now();
        const confirmed = await client.confirm(
          host,
          held.value.body.hold_id,
          { offer_sha256: offerSha256(held.value.body.offer) },
          { mandate: mandate.compact },
        );
        request(performance.now() - began, confirmed.ok);
        if (confirmed.ok) booked();
        else log(`confirm ${start}: ${describeAgentError(confirmed.error)}`);
      }
    }),
  );
}

/** Distinct free haircut starts, a day at a time, from tomorrow on (one per barber slot). */
async function freeStarts(
  client: SchcpClient,
  agentKey: AgentKey,
  host: DiscoveredHost,
  wanted: number,
): Promise<string[]> {
  const keyApp = new KeyApp({ principalKey: createAgentKey() });
  const out: string[] = [];
  const day0 = Math.ceil(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
  for (let d = 0; d < 30 && out.length < wanted; d++) {
    const mandate = await keyApp.issueMandate({
      agent: agentKey,
      audience: host.hostId,
      scope: ["hold"],
      ttlSec: 600,
    });
    const window = {
      start: formatInstant(day0 + d * DAY_MS, host.document.host.timezone),
      end: formatInstant(day0 + (d + 1) * DAY_MS, host.document.host.timezone),
    };
    const r = await client.availability(
      host,
      { service_id: "haircut", window, limit: 100 },
      { mandate: mandate.compact },
    );
    if (!r.ok) throw new Error(describeAgentError(r.error));
    // Starts are on a finer grid than the 30-minute service: keep only non-overlapping ones,
    // each twice (two barbers).
    let lastEnd = -Infinity;
    for (const s of r.value.body.slots) {
      const start = Date.parse(s.start);
      if (start < lastEnd) continue;
      lastEnd = Date.parse(s.end ?? s.start);
      out.push(s.start, s.start);
    }
  }
  return out.slice(0, wanted);
}

/**
 * The floor server (see the header): its one route authenticates a signed POST exactly as the
 * host endpoint does and answers with one signed JWS carrying the request back, nothing else.
 */
async function startFloorServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const nonces = new MemoryNonceMemory();
  const { privateKey } = generateKeyPairSync("ed25519");
  let url = "";
  let served = 0;
  const server = serve({
    fetch: async (req: Request, env: unknown) => {
      const bytes = await readBoundedBody(req, DEFAULT_MAX_BODY_BYTES, env);
      if (!bytes.ok) return new Response(null, { status: 413 });
      const verified = await verifySchcpRequest({
        method: req.method,
        targetUri: url,
        headers: (name) => req.headers.get(name) ?? undefined,
        body: bytes.value,
        nowSec: Math.floor(Date.now() / 1000),
        nonces,
      });
      if (!verified.ok) return new Response(JSON.stringify(verified.error), { status: 401 });
      const request = JSON.parse(new TextDecoder().decode(bytes.value)) as Record<string, unknown>;
      const signed = await signCompactJws(
        { kid: "floor", typ: "schcp-offer+jws" },
        { ...request, agent: verified.value.keyid, issued_at: new Date().toISOString() },
        privateKey,
      );
      // Answered as a Hold (fixed terms around the signed offer), so the agent's client can
      // read it exactly as it reads a real hold: strict JSON, the Hold schema, the offer hash.
      const hold = {
        hold_id: `floor-${(served += 1)}`,
        status: "held",
        service_id: "haircut",
        start: "2026-12-03T10:00:00-05:00",
        end: "2026-12-03T10:30:00-05:00",
        expires_at: new Date(Date.now() + 300_000).toISOString(),
        party_size: 1,
        offer: signed,
      };
      return new Response(JSON.stringify(hold), {
        status: 201,
        headers: { "content-type": "application/json", "schcp-version": "0.4" },
      });
    },
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/floor`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Signed POSTs (a hold's body, with a mandate) to the floor server, as the agents send them. */
async function floorPerSecond(url: string, audience: string, count: number): Promise<number> {
  const agentKey = createAgentKey();
  const client = new SchcpClient({ agentKey });
  const keyApp = new KeyApp({ principalKey: createAgentKey() });
  const mandate = await keyApp.issueMandate({ agent: agentKey, audience, scope: ["hold"], ttlSec: 600 });
  const send = async (i: number): Promise<void> => {
    const res = await client.signedFetch({
      method: "POST",
      url,
      body: {
        service_id: "haircut",
        start: "2026-12-03T10:00:00-05:00",
        ttl: "PT5M",
        idempotency_key: `k${i}`,
      },
      mandate: mandate.compact,
    });
    if (!res.ok) throw new Error(`floor: ${describeAgentError(res.error)}`);
    // The same client-side work as an agent's hold: the answer read by the agent's own reader
    // (strict JSON, the Hold schema) and the signed offer hashed for its confirm. The floor's
    // client used to read only text, so the ratio charged the server for the booking client's
    // parsing, schema check and hashing. Confirms answer a BookingResponse, a larger schema
    // than Hold, so the floor's client still does a little less: the ratio stays on the low side.
    const hold = await readSchcpAnswer(res.value, "Hold");
    if (!hold.ok) throw new Error(`floor: ${describeAgentError(hold.error)}`);
    if (hold.value.status !== 201) throw new Error(`floor: ${hold.value.status}`);
    offerSha256(hold.value.body.offer);
  };
  for (let i = 0; i < 200; i++) await send(-1 - i); // warm
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) await send(i);
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

/** Unsigned GETs of the operator document at the same concurrency, on the same server. */
async function baselinePerSecond(url: string, count: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const res = await fetch(url);
        await res.arrayBuffer();
      }
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

const round = (n: number): number => Math.round(n * 10) / 10;

main().catch((e: unknown) => {
  log(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
