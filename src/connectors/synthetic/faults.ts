/**
 * Upstream faults on demand: what a real platform does to a gateway on a bad day, for the
 * next N calls of an operation or for calls matching a predicate. A fault replaces the
 * platform's answer the way the network or the platform's edge would: nothing runs, or
 * (afterCommit) the work is done and the answer lost, the case reconciliation exists for.
 *
 * A plan belongs to one connector instance (one gateway process's view of the network);
 * the appointments behind it may be shared.
 */
import type { AvailabilityQuery, UpstreamCreate, UpstreamStatus } from "../port.js";

export type SyntheticOperation =
  | "catalog"
  | "findAvailability"
  | "readBusy"
  | "createBooking"
  | "findBookingByIdempotencyKey"
  | "getBooking"
  | "setStatus"
  | "moveBooking"
  | "cancelBooking"
  | "sendVerification"
  | "verifyCode";

export type FaultKind =
  /** HTTP 409: someone took the time outside the gateway (create and move only). */
  | "slot_taken"
  /** HTTP 429 with Retry-After. */
  | "rate_limited"
  /** HTTP 5xx. */
  | "unavailable"
  /** No answer: the call gives up after the delay. */
  | "timeout"
  /** The platform wants the customer verified first (create only). */
  | "verification_required"
  /**
   * HTTP 401: the business revoked the gateway's access (or its token expired and cannot be
   * refreshed). With times: Infinity, a revoked credential: every call fails until cleared.
   */
  | "unauthorized";

/** What a predicate sees of a call. */
export interface SyntheticCall {
  readonly operation: SyntheticOperation;
  readonly upstreamId?: string;
  readonly create?: UpstreamCreate;
  readonly query?: AvailabilityQuery;
  readonly status?: UpstreamStatus;
  readonly idempotencyKey?: string;
}

export interface FaultRule {
  /** The operation it applies to, or "*" for any. */
  readonly operation: SyntheticOperation | "*";
  readonly fault: FaultKind;
  /** How many matching calls fail (default 1); Infinity for all of them. */
  readonly times?: number;
  /** Only calls for which this is true match (and use up a time). */
  readonly when?: (call: SyntheticCall) => boolean;
  /** rate_limited: Retry-After in whole seconds (default 2). */
  readonly retryAfterSeconds?: number;
  /** unavailable: the status, 500–599 (default 503). */
  readonly status?: number;
  /** timeout: how long the call hangs first (default: the connector's timeoutMs). */
  readonly delayMs?: number;
  /**
   * unavailable or timeout on a write: the platform did the work, then the answer was lost
   * (a crash between the upstream create and the gateway's record).
   */
  readonly afterCommit?: boolean;
}

const ONLY_ON: Partial<Record<FaultKind, readonly SyntheticOperation[]>> = {
  slot_taken: ["createBooking", "moveBooking"],
  verification_required: ["createBooking"],
};

export class FaultPlan {
  private readonly rules: Array<{ rule: FaultRule; left: number }> = [];

  constructor(rules: readonly FaultRule[] = []) {
    for (const rule of rules) this.add(rule);
  }

  /** Adds a rule after the existing ones (the first matching rule fires). Throws on a bad rule. */
  add(rule: FaultRule): this {
    const times = rule.times ?? 1;
    if (!(times >= 1) || (!Number.isInteger(times) && times !== Infinity))
      throw new TypeError("times is a whole number ≥ 1, or Infinity");
    const only = ONLY_ON[rule.fault];
    if (only !== undefined && rule.operation !== "*" && !only.includes(rule.operation))
      throw new TypeError(`${rule.fault} is not a fault of ${rule.operation}`);
    if (
      rule.status !== undefined &&
      !(Number.isInteger(rule.status) && rule.status >= 500 && rule.status <= 599)
    )
      throw new TypeError("status is a 5xx code");
    if (rule.afterCommit === true && rule.fault !== "unavailable" && rule.fault !== "timeout")
      throw new TypeError("afterCommit applies to unavailable and timeout");
    this.rules.push({ rule, left: times });
    return this;
  }

  /** Shorthand: the next `times` calls of `operation` fail with `fault`. */
  next(
    operation: SyntheticOperation | "*",
    fault: FaultKind,
    times = 1,
    options: Omit<FaultRule, "operation" | "fault" | "times"> = {},
  ): this {
    return this.add({ ...options, operation, fault, times });
  }

  clear(): void {
    this.rules.length = 0;
  }

  /** Faults still armed, with how many calls each has left. */
  pending(): ReadonlyArray<{ readonly rule: FaultRule; readonly left: number }> {
    return this.rules.map(({ rule, left }) => ({ rule, left }));
  }

  /** The fault for this call, if any, using up one of its times. */
  take(call: SyntheticCall): FaultRule | undefined {
    const i = this.rules.findIndex(({ rule }) => {
      if (rule.operation !== "*" && rule.operation !== call.operation) return false;
      const only = ONLY_ON[rule.fault];
      if (only !== undefined && !only.includes(call.operation)) return false;
      return rule.when === undefined || rule.when(call);
    });
    const entry = this.rules[i];
    if (entry === undefined) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) this.rules.splice(i, 1);
    return entry.rule;
  }
}
