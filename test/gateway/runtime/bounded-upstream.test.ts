/**
 * A hostile calendar upstream against a running gateway (createGatewayRuntime + createHttpApp
 * on a loopback socket, its calendar sync started as `serve` starts it): a CalDAV server that
 * answers 300 MB (streamed lazily, never allocated), one that drips its answer a byte at a
 * time, one that answers XML whose parse is pathological, and a JSON upstream (Google Calendar,
 * its requests led to a loopback fake) that answers 300 MB, or JSON under the byte cap whose
 * parse would hold the event loop for most of a second. Throughout, /healthz keeps answering
 * (polled every 50 ms; how fast is bench:hostile's), the process's memory stays bounded, and the sync ends
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
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCaldav } from "../../../src/edges/console/connect/caldav.js";
import { caldavDiscovery } from "../../../src/gateway/runtime/connect-wiring.js";
import {
  caldavHost as caldavHostAt,
  Fake,
  googleHost,
  MiB,
  toFake as toFakeAt,
  watchSync,
  type Seen,
  type Watch,
} from "../../support/hostile-upstream.js";

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

const caldavHost = () => caldavHostAt(caldav.url);

/**
 * The bounds: the gateway kept answering while the hostile answer came in, and its memory
 * stayed bounded. How fast it answered is measured against a same-run baseline by
 * `npm run bench:hostile` (target: /healthz within 100 ms); here the bound is only that no poll
 * waited far longer than the baseline's slowest (4×, at least 500 ms): a gateway that parses
 * such an answer on its event loop blocks it for seconds (300 MB, or 8 MiB of pathological XML)
 * or most of one (7 MiB of costly JSON), which no load on the machine excuses.
 */
function expectBounded({ watch, baseline }: Seen): void {
  const seen = `hostile ${JSON.stringify(round(watch))}; same gateway, upstream silent ${JSON.stringify(round(baseline))}`;
  if (process.env["BOUNDED_DEBUG"]) console.log(seen);
  expect(watch.polls).toBeGreaterThan(0);
  expect(watch.maxLatencyMs, `the slowest /healthz answer (ms): ${seen}`).toBeLessThan(
    Math.max(500, 4 * baseline.maxLatencyMs),
  );
  expect(watch.maxRssGrowth, `RSS growth (bytes): ${seen}`).toBeLessThan(200 * MiB);
}

const round = (w: Watch) => ({
  maxLatencyMs: Math.round(w.maxLatencyMs),
  maxLoopDelayMs: Math.round(w.maxLoopDelayMs),
  rssGrowthMiB: Math.round(w.maxRssGrowth / MiB),
  polls: w.polls,
});

/**
 * A loaded machine can stretch one poll far past the baseline with the gateway blameless: each
 * case is run again once before it fails. A gateway that blocks on a hostile answer fails both.
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
  const toFake: typeof fetch = (input, init) => toFakeAt(google.url)(input, init);

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
