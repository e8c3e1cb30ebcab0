/**
 * Host health: whether a host's upstream can be relied on right now, kept per host and per
 * gateway process (each process reads its own catalog and sees its own upstream answers).
 *
 *   ok                   the catalog was read and checked, and no upstream call has failed since
 *   degraded             the upstream fails (unavailable, timeout, rate limited), or its catalog
 *                        could not be read or no longer agrees with the configuration; a host
 *                        with a catalog still serves, one without cannot offer time
 *   needs_reconnection   the upstream answered `unauthorized`: the credential expired or was
 *                        revoked, and only the business reconnecting it helps
 *
 * Transitions: a failing call or catalog read moves ok → degraded; `unauthorized` moves any
 * state → needs_reconnection; only a catalog read that succeeds and checks out moves back to
 * ok (refresh.ts), so recovery has one path. A 503 while needs_reconnection keeps it there:
 * it says nothing about the credential. Listeners hear each transition once, not each call.
 *
 * When the next catalog read is due: ok every `refreshMs`; degraded sooner, after `retryMs`
 * doubling per failed read up to `refreshMs` (never before a platform's Retry-After);
 * needs_reconnection every `reconnectMs`, so a fixed credential recovers on its own.
 */
import type {
  Catalog,
  ConnectorError,
  ConnectorErrorCode,
  UpstreamFailureReason,
} from "../../connectors/port.js";
import type { Clock } from "../../protocol/clock.js";

/** The watched connector names a catalog read "catalog.read" (hosts/watched-connector.ts). */
const isCatalogRead = (operation: string): boolean => operation === "catalog" || operation === "catalog.read";

export type HostHealthState = "ok" | "degraded" | "needs_reconnection";

export interface HostHealthError {
  /** A ConnectorErrorCode, or "catalog_invalid" when the catalog no longer fits the config. */
  readonly code: ConnectorErrorCode | "catalog_invalid";
  readonly message: string;
  /** When the upstream's answer broke one of the gateway's bounds (over the byte cap, too costly to parse). */
  readonly reason?: UpstreamFailureReason;
  readonly at: number;
}

export interface HostHealthStatus {
  readonly hostId: string;
  readonly health: HostHealthState;
  /** Since when the host has been in this state (epoch ms). */
  readonly since: number;
  /** The most recent failure, kept after a recovery (since then says when it ended). */
  readonly lastError?: HostHealthError;
  /** When the catalog in use was read; absent while the host has none. */
  readonly catalogReadAt?: number;
  /** When the next catalog read is due. */
  readonly nextCheckAt: number;
}

export interface HostHealthPolicy {
  /** A healthy host's catalog is read again after this long (default 5 minutes). */
  readonly refreshMs: number;
  /** A degraded host's first retry (default 5 s), doubling per failed read up to refreshMs. */
  readonly retryMs: number;
  /** A host that needs reconnection is tried again after this long (default 5 minutes). */
  readonly reconnectMs: number;
}

export const DEFAULT_HEALTH_POLICY: HostHealthPolicy = {
  refreshMs: 5 * 60_000,
  retryMs: 5_000,
  reconnectMs: 5 * 60_000,
};

export interface HealthTransition {
  readonly hostId: string;
  readonly from: HostHealthState | "starting";
  readonly to: HostHealthState;
  readonly error?: HostHealthError;
}

export type HealthListener = (change: HealthTransition) => void;

/** Errors that say the upstream is failing; the others (slot_taken, not_found…) are answers. */
const FAILING: ReadonlySet<ConnectorErrorCode> = new Set(["unavailable", "timeout", "rate_limited"]);

export class HostHealth {
  private state: HostHealthState | "starting" = "starting";
  private sinceMs: number;
  private lastError: HostHealthError | undefined;
  private current: Catalog | undefined;
  private readAt: number | undefined;
  private failedReads = 0;
  private nextCheck: number;
  private readonly listeners: HealthListener[] = [];

  constructor(
    readonly hostId: string,
    private readonly clock: Clock,
    private readonly policy: HostHealthPolicy = DEFAULT_HEALTH_POLICY,
  ) {
    this.sinceMs = clock.now();
    this.nextCheck = this.sinceMs;
  }

  onTransition(listener: HealthListener): void {
    this.listeners.push(listener);
  }

  /** The catalog in use: the last one read and checked, kept through later failures. */
  get catalog(): Catalog | undefined {
    return this.current;
  }

  get health(): HostHealthState {
    return this.state === "starting" ? "degraded" : this.state;
  }

  status(): HostHealthStatus {
    return {
      hostId: this.hostId,
      health: this.health,
      since: this.sinceMs,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
      ...(this.readAt !== undefined && { catalogReadAt: this.readAt }),
      nextCheckAt: this.nextCheck,
    };
  }

  /** Whether a catalog read is due (the refresh job asks every tick). */
  due(now: number): boolean {
    return now >= this.nextCheck;
  }

  /** A catalog was read and agrees with the configuration: the host is ok. */
  catalogRead(catalog: Catalog): void {
    const now = this.clock.now();
    this.current = catalog;
    this.readAt = now;
    this.failedReads = 0;
    this.nextCheck = now + this.policy.refreshMs;
    this.move("ok", undefined, now);
  }

  /** A catalog was read but no longer fits the configuration; the previous one stays in use. */
  catalogRejected(message: string): void {
    const now = this.clock.now();
    this.failedReads += 1;
    this.nextCheck = now + this.backoff();
    this.move("degraded", { code: "catalog_invalid", message, at: now }, now);
  }

  /**
   * An upstream call failed (any operation, the catalog read included). Answers that are not
   * failures (slot_taken, not_found, verification…) change nothing.
   */
  upstreamFailed(error: ConnectorError, operation: string): void {
    const now = this.clock.now();
    const recorded: HostHealthError = {
      code: error.code,
      message: `${operation}: ${error.message}`,
      ...(error.reason !== undefined && { reason: error.reason }),
      at: now,
    };
    if (error.code === "unauthorized") {
      if (isCatalogRead(operation)) this.failedReads += 1;
      this.nextCheck = now + this.policy.reconnectMs;
      this.move("needs_reconnection", recorded, now);
      return;
    }
    // Any failed catalog read leaves the host without a fresh catalog; other calls fail the
    // host only when the upstream itself is failing.
    if (!FAILING.has(error.code) && !isCatalogRead(operation)) return;
    if (isCatalogRead(operation)) this.failedReads += 1;
    if (this.state === "needs_reconnection") {
      this.lastError = recorded;
      return;
    }
    const wait = Math.max(this.backoff(), error.retryAfterMs ?? 0);
    // A failing call brings the next read forward; it never pushes a due read back.
    this.nextCheck = isCatalogRead(operation) ? now + wait : Math.min(this.nextCheck, now + wait);
    this.move("degraded", recorded, now);
  }

  private backoff(): number {
    const doublings = Math.max(0, this.failedReads - 1);
    return Math.min(this.policy.retryMs * 2 ** Math.min(doublings, 30), this.policy.refreshMs);
  }

  private move(to: HostHealthState, error: HostHealthError | undefined, now: number): void {
    if (error !== undefined) this.lastError = error;
    if (this.state === to) return;
    const from = this.state;
    this.state = to;
    this.sinceMs = now;
    const change: HealthTransition = {
      hostId: this.hostId,
      from,
      to,
      ...(error !== undefined && { error }),
    };
    for (const listener of this.listeners) listener(change);
  }
}
