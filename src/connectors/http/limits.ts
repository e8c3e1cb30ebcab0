/**
 * How much of an upstream answer the gateway reads (read-body.ts), per kind of upstream. The
 * defaults fit every platform's documented page sizes with room to spare; an operator may
 * change them at the edge (UPSTREAM_MAX_* in the environment, docs/connectors.md "Upstream answer limits"),
 * and a connector's deps may set its own.
 */
import type { Result } from "../../protocol/result.js";

const MiB = 1024 * 1024;

export interface UpstreamLimits {
  /** A JSON API's answer (Google, Microsoft Graph, Square, Openings, Servicialo). */
  readonly jsonBytes: number;
  /** A CalDAV answer (a calendar-query or multiget with every event's data). */
  readonly caldavBytes: number;
  /** A CalDAV discovery answer (PROPFIND of principals and homes: small by nature). */
  readonly discoveryBytes: number;
  /** One file of a local calendar directory (ics-dir). */
  readonly icsFileBytes: number;
  /** All files of a local calendar directory, read in one sync. */
  readonly icsTotalBytes: number;
  /**
   * Structural tokens a JSON answer may have (json-cost.ts): what bounds the time its parse
   * holds the event loop, since that follows the number of values, not bytes.
   */
  readonly jsonTokens: number;
}

export const DEFAULT_UPSTREAM_LIMITS: UpstreamLimits = {
  jsonBytes: 8 * MiB,
  caldavBytes: 16 * MiB,
  discoveryBytes: 1 * MiB,
  icsFileBytes: 1 * MiB,
  icsTotalBytes: 64 * MiB,
  // About 3 MiB of calendar events (~50 tokens an event) and at most ~30 ms of JSON.parse for the
  // costliest shape measured on the CI machine (`npm run bench:json`).
  jsonTokens: 200_000,
};

/** Nesting and members per object that no platform's answer comes near (json-cost.ts). */
export const JSON_DEPTH = 64;
export const JSON_KEYS = 10_000;

let current: UpstreamLimits = DEFAULT_UPSTREAM_LIMITS;

/** The limits in force (read on each call, so the edge's settings apply to every connector). */
export function upstreamLimits(): UpstreamLimits {
  return current;
}

/** Set by the edge once, from its configuration; absent members keep their defaults. */
export function setUpstreamLimits(limits: Partial<UpstreamLimits>): void {
  current = { ...DEFAULT_UPSTREAM_LIMITS, ...limits };
}

type ByteLimit = Exclude<keyof UpstreamLimits, "jsonTokens">;

const ENV: Readonly<Record<ByteLimit, string>> = {
  jsonBytes: "UPSTREAM_MAX_JSON_BYTES",
  caldavBytes: "UPSTREAM_MAX_CALDAV_BYTES",
  discoveryBytes: "UPSTREAM_MAX_DISCOVERY_BYTES",
  icsFileBytes: "ICS_MAX_FILE_BYTES",
  icsTotalBytes: "ICS_MAX_TOTAL_BYTES",
};

/** The limits the environment sets, or the message naming the variable that is not a size. */
export function limitsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<Partial<UpstreamLimits>, string> {
  const out: Partial<Record<keyof UpstreamLimits, number>> = {};
  const tokens = env["UPSTREAM_MAX_JSON_TOKENS"];
  if (tokens !== undefined && tokens.trim() !== "") {
    const n = Number(tokens);
    if (!/^\d+$/.test(tokens.trim()) || n < 1_000 || n > 100_000_000)
      return {
        ok: false,
        error: `UPSTREAM_MAX_JSON_TOKENS must be a number from 1000 to 100000000, got "${tokens}"`,
      };
    out.jsonTokens = n;
  }
  for (const [key, name] of Object.entries(ENV) as Array<[ByteLimit, string]>) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n < 1024 || n > 1024 * MiB)
      return {
        ok: false,
        error: `${name} must be a number of bytes from 1024 to 1073741824, got "${raw}"`,
      };
    out[key] = n;
  }
  return { ok: true, value: out };
}
