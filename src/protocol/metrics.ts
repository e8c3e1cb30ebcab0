/**
 * What the gateway counts, as one neutral port every layer may call (docs/ARCHITECTURE.md,
 * Metrics): the core counts holds and bookings, the host's watched connector counts upstream
 * calls, the composition root counts its rate limits and calendar syncs. The Prometheus
 * implementation is the composition root's (src/gateway/metrics); `noMetrics` stands in where
 * nothing is counted (tests, tools).
 *
 * Every label value a caller passes comes from a closed list (an edge's name, a status, a
 * refusal code and reason of src/booking/errors.ts, a connector error code, a port operation
 * such as "bookings.create", a vendor, a configured host id), never from a request: no booking
 * ids, no URLs, no addresses, so the number of series stays bounded.
 */

/** One upstream call through a host's connector port. */
export interface UpstreamCallSample {
  /** The connector's platform vendor ("square", "google_calendar", "synthetic"…). */
  readonly vendor: string;
  /** The port operation, a fixed name: "bookings.create", "slots.find", "calendar.sync"… */
  readonly endpoint: string;
  /** "ok", or the connector error code (src/connectors/ports/result.ts), or "error" for a throw. */
  readonly outcome: string;
  readonly seconds: number;
}

export interface Metrics {
  /** A hold was placed. */
  holdGranted(): void;
  /** A hold was refused, with the core's refusal code and reason (src/booking/errors.ts). */
  holdRefused(code: string, reason: string): void;
  /**
   * A booking attempt ended, by the edge it came through ("schcp", "osbp", "a2a"): `status` is
   * the booking's status when made ("confirmed", "pending_host"), or "refused".
   */
  booking(edge: string, status: string): void;
  upstreamCall(sample: UpstreamCallSample): void;
  /** A request refused by one of the gateway's own rate limits (by the limit's name). */
  rateLimited(limit: string): void;
  /** One calendar sync of a host ended: "complete", or the error code that stopped it. */
  calendarSync(hostId: string, outcome: string): void;
}

/** Counts nothing. */
export const noMetrics: Metrics = {
  holdGranted: () => undefined,
  holdRefused: () => undefined,
  booking: () => undefined,
  upstreamCall: () => undefined,
  rateLimited: () => undefined,
  calendarSync: () => undefined,
};
