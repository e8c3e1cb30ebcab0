/** Shared helpers for the synthetic connector's tests. */
import type { UpstreamCreate, UpstreamMeta } from "../../../src/connectors/port.js";
import {
  createSyntheticConnector,
  type SyntheticConnector,
  type SyntheticConnectorOptions,
  type SyntheticScenario,
} from "../../../src/connectors/synthetic/index.js";
import { mapleStreetAuto } from "../../../src/connectors/synthetic/index.js";

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

/** Epoch ms of an RFC 3339 time with its offset. */
export const t = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad time ${iso}`);
  return ms;
};

export interface TestClock {
  now(): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start: number): TestClock {
  let now = start;
  return {
    now: () => now,
    set: (ms) => void (now = ms),
    advance: (ms) => void (now += ms),
  };
}

/** Sunday 18 October 2026, noon in Toronto: before the Monday the tests book. */
export const BEFORE_MONDAY = t("2026-10-18T12:00:00-04:00");
/** Monday 19 October 2026 (EDT, UTC−4). */
export const MONDAY = "2026-10-19";

export function maple(overrides: Partial<SyntheticConnectorOptions> = {}): {
  connector: SyntheticConnector;
  clock: TestClock;
} {
  const clock = testClock(BEFORE_MONDAY);
  const connector = createSyntheticConnector({ scenario: mapleStreetAuto, clock, ...overrides });
  return { connector, clock };
}

export function connectorFor(
  scenario: SyntheticScenario,
  overrides: Partial<SyntheticConnectorOptions> = {},
): { connector: SyntheticConnector; clock: TestClock } {
  const clock = testClock(BEFORE_MONDAY);
  return { connector: createSyntheticConnector({ scenario, clock, ...overrides }), clock };
}

/** An oil change at Maple Street Auto (PT45M + PT15M buffer). */
export function oilChange(
  key: string,
  startIso: string,
  resourceIds: readonly string[] = [],
): UpstreamCreate {
  const start = t(startIso);
  return {
    idempotencyKey: key,
    serviceId: "oil-change",
    start,
    end: start + 45 * MIN,
    resourceIds,
    tentative: false,
  };
}

/** The metadata a result carries (every result has its own). */
export function meta(r: { readonly upstream?: UpstreamMeta }): UpstreamMeta | undefined {
  return r.upstream;
}

/** Unwraps an ok result or fails the test with the error. */
export function value<T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

/** The error of a failed result, with the metadata the result carried as `upstream`. */
export function failure<E>(
  r: ({ ok: true; value: unknown } | { ok: false; error: E }) & { readonly upstream?: UpstreamMeta },
): E & { readonly upstream?: UpstreamMeta } {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return { ...r.error, ...(r.upstream === undefined ? {} : { upstream: r.upstream }) };
}

/** Local wall-clock "HH:MM" of an instant in a zone. */
export function hhmm(ms: number, zone: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(ms);
}
