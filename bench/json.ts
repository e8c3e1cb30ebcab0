/**
 * npm run bench:json — what parsing an upstream's JSON answer holds the event loop for, by the
 * answer's shape, and what the gateway's measure before the parse (src/connectors/http/json-cost.ts)
 * costs. The evidence behind the default token budget (src/connectors/http/limits.ts jsonTokens)
 * and Square's smaller one (its SDK parses with its own JavaScript parser and then converts every
 * field). Prints one JSON object on stdout:
 *   {"machine", "budget_tokens", "shapes": [{ "shape", "bytes", "tokens", "json_parse_ms",
 *    "scan_total_ms", "scan_longest_turn_ms", "ns_per_token" }], "square": { "tokens",
 *    "json_parse_ms", "sdk_ms", "sdk_ns_per_token", "sdk_over_json_parse" }}
 * Each shape is made at 8 MiB (what the byte cap lets through) and at the budget (as many tokens
 * as the budget allows): json_parse_ms is the fastest of --rounds JSON.parse runs (one piece on
 * the loop); scan_* is jsonCost over the same text (total, and the longest stretch between two
 * turns of the loop); the SDK row times the Square SDK's SearchAvailability on a fetch that
 * answers from memory (its parse and conversion, one piece on the loop).
 *
 *   --rounds N (default 5)
 */
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { SquareClient } from "square";
import { jsonCost } from "../src/connectors/http/json-cost.js";
import { DEFAULT_UPSTREAM_LIMITS, JSON_DEPTH, JSON_KEYS } from "../src/connectors/http/limits.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const rounds = Number(values.rounds);
const MiB = 1024 * 1024;
const budgetTokens = DEFAULT_UPSTREAM_LIMITS.jsonTokens;
const unbounded = {
  maxTokens: Number.MAX_SAFE_INTEGER,
  maxDepth: JSON_DEPTH,
  maxKeys: Number.MAX_SAFE_INTEGER,
};
const log = (m: string) => process.stderr.write(`${m}\n`);

/** A realistic Square SearchAvailability answer with `n` availabilities (its documented shape). */
function squareAvailability(n: number): string {
  const a = [];
  for (let i = 0; i < n; i++)
    a.push({
      start_at: new Date(1_796_000_000_000 + i * 900_000).toISOString(),
      location_id: "L8Q4Y2R3K5",
      appointment_segments: [
        {
          duration_minutes: 60,
          service_variation_id: "GUJ2GZ2B4YW5NXQ3XT3AZQ3P",
          team_member_id: "TMa8Ab3dJ9zP1QmY",
          service_variation_version: 1_715_000_000_000,
        },
      ],
    });
  return JSON.stringify({ availabilities: a, errors: [] });
}

/** Repeats `unit` (which adds `perUnit` tokens) inside `[…]` up to `bytes` or `tokens`. */
const repeated = (unit: string, perUnit: number) => (limit: { bytes?: number; tokens?: number }) => {
  const n = Math.floor(
    limit.bytes !== undefined ? limit.bytes / (unit.length + 1) : (limit.tokens ?? 0) / perUnit,
  );
  return `[${Array(n).fill(unit).join(",")}]`;
};

const shapes: Record<string, (limit: { bytes?: number; tokens?: number }) => string> = {
  empty_arrays: repeated("[]", 2),
  numbers: repeated("1", 1),
  small_objects: repeated('{"a":"x"}', 3),
  calendar_events: (limit) => {
    const event = JSON.stringify({
      kind: "calendar#event",
      id: "7cbh8rpc10lrc0ckih9tafss99",
      status: "confirmed",
      summary: "Cut and colour",
      start: { dateTime: "2026-12-08T09:00:00-05:00", timeZone: "America/Toronto" },
      end: { dateTime: "2026-12-08T10:00:00-05:00", timeZone: "America/Toronto" },
      transparency: "opaque",
      attendees: [
        { email: "ana@example.com", responseStatus: "accepted", self: true },
        { email: "guest@example.com", responseStatus: "needsAction" },
      ],
      etag: '"3181161784712000"',
      sequence: 0,
    });
    return repeated(event, 36)(limit);
  },
  one_object_distinct_keys: (limit) => {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; ; i++) {
      if (limit.bytes !== undefined && size >= limit.bytes) break;
      if (limit.tokens !== undefined && i * 2 >= Math.min(limit.tokens, JSON_KEYS * 2)) break;
      const p = `"key${i}":${i}`;
      parts.push(p);
      size += p.length + 1;
    }
    return `{${parts.join(",")}}`;
  },
};

function fastest(run: () => void): number {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    run();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

/** jsonCost's total time and its longest stretch without a turn of the event loop. */
async function scan(text: string): Promise<{ total: number; longest: number; tokens: number }> {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const t = performance.now();
    longest = Math.max(longest, t - last);
    last = t;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  const cost = await jsonCost(text, unbounded);
  const total = performance.now() - started;
  running = false;
  return { total, longest, tokens: cost.ok ? cost.value : -1 };
}

const round = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const rows = [];
  for (const [shape, make] of Object.entries(shapes)) {
    for (const limit of [{ bytes: 8 * MiB }, { tokens: budgetTokens }]) {
      const text = make(limit);
      log(`${shape} at ${limit.bytes !== undefined ? "8 MiB" : "the budget"}`);
      const parse = fastest(() => void JSON.parse(text));
      const s = await scan(text);
      rows.push({
        shape,
        at: limit.bytes !== undefined ? "8 MiB" : "budget",
        bytes: text.length,
        tokens: s.tokens,
        json_parse_ms: round(parse),
        scan_total_ms: round(s.total),
        scan_longest_turn_ms: round(s.longest),
        ns_per_token: Math.round((parse * 1e6) / Math.max(1, s.tokens)),
      });
    }
  }

  // Square: its SDK's parse and conversion of a realistic answer at the default budget.
  let body = "";
  const client = new SquareClient({
    baseUrl: "https://connect.squareup.invalid",
    token: "bench",
    maxRetries: 0,
    logging: { silent: true },
    fetch: () =>
      Promise.resolve(new Response(body, { status: 200, headers: { "content-type": "application/json" } })),
  });
  body = squareAvailability(Math.floor(budgetTokens / 12));
  const tokens = (await scan(body)).tokens;
  const call = () =>
    client.bookings.searchAvailability({
      query: { filter: { startAtRange: { startAt: "2026-12-01T00:00:00Z", endAt: "2026-12-08T00:00:00Z" } } },
    });
  await call();
  let sdk = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await call();
    sdk = Math.min(sdk, performance.now() - t);
  }
  const parse = fastest(() => void JSON.parse(body));
  const cpu = cpus();
  process.stdout.write(
    `${JSON.stringify({
      machine: { cpu: cpu[0]?.model ?? "unknown", cores: cpu.length, node: process.version },
      budget_tokens: budgetTokens,
      shapes: rows,
      square: {
        bytes: body.length,
        tokens,
        json_parse_ms: round(parse),
        sdk_ms: round(sdk),
        sdk_ns_per_token: Math.round((sdk * 1e6) / tokens),
        sdk_over_json_parse: round(sdk / parse),
      },
    })}\n`,
  );
}

await main();
