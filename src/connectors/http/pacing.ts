/**
 * "Not before" times per upstream account: after an upstream answers 429 (RFC 6585 §4) or a
 * 503 with Retry-After (RFC 9110 §10.2.3), nothing more is sent to that account until the time
 * it named, by any caller in the process (availability, sync, confirm, an operator's action)
 * and, with a shared gate (Redis), by any process. A call before it is answered `rate_limited`
 * with the remaining wait, and sends nothing.
 *
 * The gate is keyed by the caller (`vendor:account`); connectors only carry it, the runtime
 * decides what an account is and which gate is shared.
 */
export interface PacingGate {
  /** Epoch ms before which nothing may be sent under `key`, or undefined when calls may go. */
  notBefore(key: string, now: number): Promise<number | undefined>;
  /** Nothing may be sent under `key` before `until` (epoch ms). Only ever moves a time later. */
  defer(key: string, until: number, now: number): Promise<void>;
}

/** The gate and the account a client's calls count against. */
export interface UpstreamPacing {
  readonly gate: PacingGate;
  /** Who the upstream limits: a merchant, a calendar account, an organisation. */
  readonly account: string;
}

/** When an upstream names no time, a 429 still holds calls back this long. */
export const DEFAULT_PACING_MS = 1_000;
/** An upstream cannot stop the gateway calling for longer than this (a Retry-After of days). */
export const MAX_PACING_MS = 15 * 60_000;

/** A process-wide gate: a bounded map of keys to times, forgetting those that have passed. */
export class MemoryPacingGate implements PacingGate {
  readonly #until = new Map<string, number>();

  constructor(private readonly maxKeys = 10_000) {}

  notBefore(key: string, now: number): Promise<number | undefined> {
    const until = this.#until.get(key);
    if (until === undefined) return Promise.resolve(undefined);
    if (until <= now) {
      this.#until.delete(key);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(until);
  }

  defer(key: string, until: number, now: number): Promise<void> {
    const current = this.#until.get(key);
    if (current !== undefined && current >= until) return Promise.resolve();
    if (current === undefined && this.#until.size >= this.maxKeys) this.#sweep(now);
    // Still full of live times: the oldest entry goes (Map keeps insertion order).
    if (current === undefined && this.#until.size >= this.maxKeys) {
      const oldest = this.#until.keys().next();
      if (oldest.done !== true) this.#until.delete(oldest.value);
    }
    this.#until.set(key, Math.min(until, now + MAX_PACING_MS));
    return Promise.resolve();
  }

  #sweep(now: number): void {
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key);
  }
}
