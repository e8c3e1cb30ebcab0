/**
 * A caching MandateStatusPort (§3.3 check 7). The fetch itself (GET {status} under
 * the outbound policy of §5.8) is another module's port; this only remembers answers.
 *
 * §3.3 "Ids are per link": a result is cached per link, keyed by its own status URL
 * with its iss and jti, never by jti alone. Otherwise a delegate could give its child
 * its parent's jti and a status URL it controls, and the child's "active" would stand
 * in for the revoked root.
 */
import type { MandateStatusPort, MandateStatusValue } from "./types.js";
import type { Clock } from "../../clock.js";

export interface CachingMandateStatusOptions {
  /** Answers the status of one link, e.g. by fetching its status URL. */
  readonly fetcher: MandateStatusPort;
  /** How long an "active" or "revoked" answer is reused. */
  readonly ttlMs: number;
  /**
   * How long an "unknown" answer (key app down, no answer) is reused. Default 0: ask
   * again next time, so a revocation is seen as soon as the key app answers.
   */
  readonly unknownTtlMs?: number;
  /** Injected clock, epoch ms. */
  readonly clock: Clock;
  /** Bound on cached links; the oldest entry goes first. Status URLs come from callers. */
  readonly maxEntries?: number;
}

interface Entry {
  readonly value: MandateStatusValue;
  readonly until: number;
}

export class CachingMandateStatus implements MandateStatusPort {
  readonly #opts: Required<CachingMandateStatusOptions>;
  readonly #cache = new Map<string, Entry>();

  constructor(opts: CachingMandateStatusOptions) {
    this.#opts = { unknownTtlMs: 0, maxEntries: 10_000, ...opts };
  }

  async status(link: { iss: string; jti: string; statusUrl?: string }): Promise<MandateStatusValue> {
    // No status URL, nothing to consult: revocation is best effort.
    if (link.statusUrl === undefined) return "unknown";
    const key = JSON.stringify([link.statusUrl, link.iss, link.jti]);
    const now = this.#opts.clock.now();
    const hit = this.#cache.get(key);
    if (hit !== undefined && now < hit.until) return hit.value;

    let value: MandateStatusValue;
    try {
      value = await this.#opts.fetcher.status(link);
    } catch {
      value = "unknown";
    }
    const ttl = value === "unknown" ? this.#opts.unknownTtlMs : this.#opts.ttlMs;
    this.#cache.delete(key);
    if (ttl > 0) {
      this.#cache.set(key, { value, until: now + ttl });
      if (this.#cache.size > this.#opts.maxEntries) {
        const oldest = this.#cache.keys().next();
        if (oldest.done !== true) this.#cache.delete(oldest.value);
      }
    }
    return value;
  }
}
