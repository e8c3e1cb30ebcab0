/**
 * npm run bench:hostile — how responsive the gateway stays while a calendar upstream answers
 * in a hostile way, against the same gateway with the upstream silent, in one run. Prints one
 * JSON object on stdout:
 *   {"machine": {"cpu", "cpus", "os", "load"}, "cases": {"<case>": {"max_ms", "baseline_max_ms",
 *    "loop_delay_ms", "baseline_loop_delay_ms", "rss_growth_mib", "polls", "outcome"}},
 *    "target_ms": 100, "ok"}
 * max_ms = the slowest /healthz answer (wall clock, polled every 50 ms) while the host's first
 * sync takes the hostile answer in; baseline_max_ms = the same poll, 40 times, just before,
 * with the upstream holding the request (test/support/hostile-upstream.ts). loop_delay_ms = the
 * event loop's own longest delay meanwhile (monitorEventLoopDelay). outcome = the sync's error
 * reason or code, as the operator API reports it. ok = every case's max_ms under target_ms.
 * The cases are those of test/gateway/runtime/bounded-upstream.test.ts, which checks their
 * outcomes; this measures their latency, which a loaded machine stretches (machine.load).
 * Progress to stderr.
 *
 *   --only <case>   run that case alone
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import {
  caldavHost,
  Fake,
  googleHost,
  MiB,
  toFake,
  watchSync,
  type Mode,
  type Seen,
} from "../test/support/hostile-upstream.js";

const TARGET_MS = 100;

interface Case {
  readonly upstream: "caldav" | "google";
  readonly mode: Mode;
  /** A drip ends at the connector's timeout: 8 s rather than 20 keeps the run short. */
  readonly caldavTimeoutMs?: number;
}

const CASES: Readonly<Record<string, Case>> = {
  caldav_300mb: { upstream: "caldav", mode: "caldavHuge" },
  caldav_drip: { upstream: "caldav", mode: "drip", caldavTimeoutMs: 8_000 },
  caldav_pathological_xml: { upstream: "caldav", mode: "pathological" },
  google_300mb: { upstream: "google", mode: "googleHuge" },
  google_costly_json: { upstream: "google", mode: "googleCostly" },
};

const round = (n: number) => Math.round(n * 10) / 10;

function outcomeOf(seen: Seen): string {
  const calendars = (
    seen.calendar as { calendars?: Array<{ last_sync?: { error?: Record<string, unknown> } }> }
  ).calendars;
  const error = calendars?.[0]?.last_sync?.error;
  const named = error?.["reason"] ?? error?.["code"];
  return typeof named === "string" ? named : error === undefined ? "complete" : "error";
}

async function main(): Promise<void> {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  if (only !== undefined && !(only in CASES))
    throw new Error(`no case "${only}" (${Object.keys(CASES).join(", ")})`);
  const dir = await mkdtemp(join(tmpdir(), "bench-hostile-"));
  await writeFile(join(dir, "google-token"), "ya29.bench-token");
  const caldav = await Fake.start();
  const google = await Fake.start();
  const cases: Record<string, unknown> = {};
  let ok = true;
  try {
    for (const [name, c] of Object.entries(CASES)) {
      if (only !== undefined && name !== only) continue;
      process.stderr.write(`${name}…\n`);
      const seen =
        c.upstream === "caldav"
          ? await watchSync(dir, caldavHost(caldav.url), caldav, c.mode, undefined, c.caldavTimeoutMs)
          : await watchSync(dir, googleHost(), google, c.mode, toFake(google.url));
      cases[name] = {
        max_ms: round(seen.watch.maxLatencyMs),
        baseline_max_ms: round(seen.baseline.maxLatencyMs),
        loop_delay_ms: round(seen.watch.maxLoopDelayMs),
        baseline_loop_delay_ms: round(seen.baseline.maxLoopDelayMs),
        rss_growth_mib: round(seen.watch.maxRssGrowth / MiB),
        polls: seen.watch.polls,
        outcome: outcomeOf(seen),
      };
      ok &&= seen.watch.maxLatencyMs < TARGET_MS;
    }
  } finally {
    await caldav.stop();
    await google.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const cpu = cpus();
  process.stdout.write(
    `${JSON.stringify({
      machine: {
        cpu: cpu[0]?.model ?? "unknown",
        cpus: cpu.length,
        os: `${platform()} ${release()}`,
        load: loadavg().map(round),
      },
      cases,
      target_ms: TARGET_MS,
      ok,
    })}\n`,
  );
}

await main();
