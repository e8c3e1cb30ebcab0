/**
 * Pending authorization requests, keyed by their `state` (RFC 6749 §10.12): what the callback
 * needs (PKCE verifier, host, provider, the operator session that started it) kept server-side
 * for ten minutes. `take` removes as it reads, so a state works once: a replayed callback finds
 * nothing. Redis does that in one command (GETDEL, Redis ≥ 6.2), so two gateway replicas cannot
 * both accept the same callback.
 *
 * The record holds the PKCE verifier, a short-lived secret: it lives only as long as the TTL,
 * under the gateway's key prefix, and never appears in a log line or an error.
 */
import type { RedisClient } from "../../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../../redis/keys.js";
import type { OAuthProvider } from "../../../gateway/credentials/record.js";
import { type Clock, systemClock } from "../../../protocol/clock.js";

export const STATE_TTL_MS = 10 * 60_000;

export interface PendingConnect {
  readonly provider: OAuthProvider;
  readonly hostId: string;
  readonly sessionId: string;
  /** Absent when the provider runs without PKCE (Square's code flow). */
  readonly codeVerifier?: string;
  /** Epoch ms after which the state is refused even if a store still holds it. */
  readonly expiresAt: number;
}

export interface ConnectStateStore {
  put(state: string, pending: PendingConnect, ttlMs: number): Promise<void>;
  /** The pending request, removed in the same step; undefined when unknown or already taken. */
  take(state: string): Promise<PendingConnect | undefined>;
}

export class MemoryConnectStateStore implements ConnectStateStore {
  private readonly pending = new Map<string, PendingConnect>();
  constructor(private readonly clock: Clock = systemClock) {}

  put(state: string, pending: PendingConnect): Promise<void> {
    // Drop what has expired so an abandoned flow does not stay in memory.
    const now = this.clock.now();
    for (const [k, v] of this.pending) if (v.expiresAt <= now) this.pending.delete(k);
    this.pending.set(state, pending);
    return Promise.resolve();
  }

  take(state: string): Promise<PendingConnect | undefined> {
    const found = this.pending.get(state);
    this.pending.delete(state);
    return Promise.resolve(found);
  }

  get size(): number {
    return this.pending.size;
  }
}

export class RedisConnectStateStore implements ConnectStateStore {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    prefix?: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  key(state: string): string {
    return this.#keys.key("connect", "state", state);
  }

  async put(state: string, pending: PendingConnect, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(state), JSON.stringify(pending), "PX", Math.max(1, Math.ceil(ttlMs)));
  }

  async take(state: string): Promise<PendingConnect | undefined> {
    const text = await this.redis.getdel(this.key(state));
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as PendingConnect;
    } catch {
      return undefined;
    }
  }
}
