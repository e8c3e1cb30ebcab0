/**
 * The gateway's metrics in Prometheus form (docs/ARCHITECTURE.md, Metrics): the Metrics port
 * (src/protocol/metrics.ts) recorded into prom-client counters and histograms, and the gauges
 * read at scrape time from the runtime's queues and stores. One Registry per gateway runtime,
 * never prom-client's global one, so several gateways in one process (tests) keep their own.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Logger } from "../../protocol/logger.js";
import type { Metrics } from "../../protocol/metrics.js";

/** Every metric's name starts with this. */
const METRIC_PREFIX = "booking_gateway_";

/** One queue's jobs by state ("waiting", "active", "delayed", "failed"…), now. */
export interface QueueDepth {
  readonly queue: string;
  readonly jobs: Readonly<Record<string, number>>;
}

/** How long since a calendar host's busy time was last read through (a complete sync). */
export interface CalendarLag {
  readonly hostId: string;
  readonly seconds: number;
}

/** What the gauges read at scrape time; each is optional (a memory gateway has no queues to count). */
export interface ScrapeSources {
  readonly queues?: () => Promise<readonly QueueDepth[]>;
  /** Bookings waiting for their host's approval (pending_host), over every host served. */
  readonly pendingApprovals?: () => Promise<number>;
  readonly calendarLag?: () => Promise<readonly CalendarLag[]>;
}

export interface PrometheusMetrics {
  readonly registry: Registry;
  /** The port the core, the connectors' watcher and the root record through. */
  readonly metrics: Metrics;
  /** Sets what the scrape-time gauges read (once the runtime has built it). */
  collectFrom(sources: ScrapeSources): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/** Upstream latency buckets, in seconds: a cached read to a slow platform's write. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createPrometheusMetrics(logger: Pick<Logger, "warn">): PrometheusMetrics {
  const registry = new Registry();
  const registers = [registry];
  const name = (n: string) => `${METRIC_PREFIX}${n}`;
  let sources: ScrapeSources = {};

  const holdsGranted = new Counter({ name: name("holds_granted_total"), help: "Holds placed.", registers });
  const holdsRefused = new Counter({
    name: name("holds_refused_total"),
    help: "Holds refused, by the core's refusal code and reason.",
    labelNames: ["code", "reason"] as const,
    registers,
  });
  const bookings = new Counter({
    name: name("bookings_total"),
    help: 'Booking attempts by edge, and the status the booking was made in (or "refused").',
    labelNames: ["edge", "status"] as const,
    registers,
  });
  const upstreamCalls = new Counter({
    name: name("upstream_calls_total"),
    help: 'Calls to an upstream through its connector, by vendor, operation and outcome ("ok" or the error code).',
    labelNames: ["vendor", "endpoint", "outcome"] as const,
    registers,
  });
  const upstreamSeconds = new Histogram({
    name: name("upstream_call_duration_seconds"),
    help: "How long an upstream call took, by vendor and operation.",
    labelNames: ["vendor", "endpoint"] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const rateLimited = new Counter({
    name: name("rate_limited_total"),
    help: "Requests refused by one of the gateway's own rate limits, by limit.",
    labelNames: ["limit"] as const,
    registers,
  });
  const calendarSyncs = new Counter({
    name: name("calendar_syncs_total"),
    help: 'Calendar syncs run by this process, by host and outcome ("complete" or the error code).',
    labelNames: ["host", "outcome"] as const,
    registers,
  });

  /** Reads one source for a gauge; a source that fails leaves the gauge empty for this scrape. */
  async function read<T>(what: string, source: (() => Promise<T>) | undefined): Promise<T | undefined> {
    if (source === undefined) return undefined;
    try {
      return await source();
    } catch (e) {
      logger.warn("a metrics source failed during a scrape", {
        source: what,
        error: e instanceof Error ? e.message : String(e),
      });
      return undefined;
    }
  }

  new Gauge({
    name: name("queue_jobs"),
    help: "Jobs in the gateway's queues by state, read at scrape time.",
    labelNames: ["queue", "state"] as const,
    registers,
    async collect() {
      this.reset();
      for (const { queue, jobs } of (await read("queues", sources.queues)) ?? []) {
        for (const [state, n] of Object.entries(jobs)) this.set({ queue, state }, n);
      }
    },
  });
  new Gauge({
    name: name("pending_approvals"),
    help: "Bookings waiting for their host's approval, read at scrape time.",
    registers,
    async collect() {
      this.reset();
      const pending = await read("pending approvals", sources.pendingApprovals);
      if (pending !== undefined) this.set(pending);
    },
  });
  new Gauge({
    name: name("calendar_sync_lag_seconds"),
    help: "Seconds since a calendar host's calendars were last read through, read at scrape time.",
    labelNames: ["host"] as const,
    registers,
    async collect() {
      this.reset();
      for (const { hostId, seconds } of (await read("calendar lag", sources.calendarLag)) ?? []) {
        this.set({ host: hostId }, seconds);
      }
    },
  });

  const metrics: Metrics = {
    holdGranted: () => holdsGranted.inc(),
    holdRefused: (code, reason) => holdsRefused.inc({ code, reason }),
    booking: (edge, status) => bookings.inc({ edge, status }),
    upstreamCall: ({ vendor, endpoint, outcome, seconds }) => {
      upstreamCalls.inc({ vendor, endpoint, outcome });
      upstreamSeconds.observe({ vendor, endpoint }, seconds);
    },
    rateLimited: (limit) => rateLimited.inc({ limit }),
    calendarSync: (hostId, outcome) => calendarSyncs.inc({ host: hostId, outcome }),
  };

  return {
    registry,
    metrics,
    collectFrom: (next) => {
      sources = next;
    },
    scrape: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
