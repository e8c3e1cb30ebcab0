/**
 * How much of an upstream answer the gateway reads (read-body.ts), per kind of upstream. The
 * defaults fit every platform's documented page sizes with room to spare; an operator may
 * change them at the edge (UPSTREAM_MAX_* in the environment, README "Upstream answer limits"),
 * and a connector's deps may set its own.
 */
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
}

export const DEFAULT_UPSTREAM_LIMITS: UpstreamLimits = {
  jsonBytes: 8 * MiB,
  caldavBytes: 16 * MiB,
  discoveryBytes: 1 * MiB,
  icsFileBytes: 1 * MiB,
  icsTotalBytes: 64 * MiB,
};

let current: UpstreamLimits = DEFAULT_UPSTREAM_LIMITS;

/** The limits in force (read on each call, so the edge's settings apply to every connector). */
export function upstreamLimits(): UpstreamLimits {
  return current;
}

/** Set by the edge once, from its configuration; absent members keep their defaults. */
export function setUpstreamLimits(limits: Partial<UpstreamLimits>): void {
  current = { ...DEFAULT_UPSTREAM_LIMITS, ...limits };
}

const ENV: Readonly<Record<keyof UpstreamLimits, string>> = {
  jsonBytes: "UPSTREAM_MAX_JSON_BYTES",
  caldavBytes: "UPSTREAM_MAX_CALDAV_BYTES",
  discoveryBytes: "UPSTREAM_MAX_DISCOVERY_BYTES",
  icsFileBytes: "ICS_MAX_FILE_BYTES",
  icsTotalBytes: "ICS_MAX_TOTAL_BYTES",
};

/** The limits the environment sets, or the message naming the variable that is not a size. */
export function limitsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; value: Partial<UpstreamLimits> } | { ok: false; message: string } {
  const out: Partial<Record<keyof UpstreamLimits, number>> = {};
  for (const [key, name] of Object.entries(ENV) as Array<[keyof UpstreamLimits, string]>) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n < 1024 || n > 1024 * MiB)
      return {
        ok: false,
        message: `${name} must be a number of bytes from 1024 to 1073741824, got "${raw}"`,
      };
    out[key] = n;
  }
  return { ok: true, value: out };
}
