/**
 * Operator console sessions, kept server-side: the browser holds only a random id (32 bytes
 * from node:crypto, base64url) in a cookie; the record — when it began, when it was last
 * used, its CSRF token and a one-shot flash message — stays here. The store is keyed by the
 * id's SHA-256, so a copy of the store (a Redis dump) holds no usable session id.
 *
 * A session ends after `idleMs` without a request (30 min) or `absoluteMs` after sign-in
 * (12 h), whichever comes first; both are measured on the gateway's clock, so tests move time.
 * Memory in the embedded default; Redis (a key per session with a TTL, under the gateway's
 * prefix) when the gateway has Redis, so every replica knows every session.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import type { ConsoleViewer } from "./managed-hosts.js";
import { type Clock, systemClock } from "../../protocol/clock.js";

export interface SessionPolicy {
  readonly idleMs: number;
  readonly absoluteMs: number;
}

const DEFAULT_SESSION_POLICY: SessionPolicy = { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 };

export interface Session {
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** The synchronizer token every console form carries (compared with csrfMatches). */
  readonly csrf: string;
  /** Shown once on the next page (after an approve or decline), then dropped. */
  readonly flash?: { readonly text: string; readonly error?: boolean };
  /** Who signed in; absent is the operator (sessions from before owner accounts have none). */
  readonly viewer?: ConsoleViewer;
}

const OPERATOR: ConsoleViewer = { kind: "operator" };

/** Who a live session belongs to: an owner when it names one, else the operator. */
export const viewerOf = (session: Pick<Session, "viewer">): ConsoleViewer => session.viewer ?? OPERATOR;

/** Raw records by key; expiry is decided by Sessions on the gateway clock, the TTL only cleans up. */
export interface SessionStore {
  get(key: string): Promise<Session | undefined>;
  set(key: string, session: Session, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
}

const newSecret = () => randomBytes(32).toString("base64url");
const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
const keyOf = (id: string) => digest(id).toString("base64url");

/** Constant time whatever the lengths (both sides hashed first, as operator-auth.ts does). */
export function secretsMatch(given: string | undefined, expected: string): boolean {
  if (given === undefined || given === "" || expected === "") return false;
  return timingSafeEqual(digest(given), digest(expected));
}

export class Sessions {
  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    readonly policy: SessionPolicy = DEFAULT_SESSION_POLICY,
  ) {}

  /**
   * A new session (always a new id: a session id known before sign-in is never promoted) for
   * an owner, or for the operator when `viewer` is absent.
   */
  async create(viewer?: ConsoleViewer): Promise<{ id: string; session: Session }> {
    const at = this.clock.now();
    const id = newSecret();
    const session: Session = {
      createdAt: at,
      lastSeenAt: at,
      csrf: newSecret(),
      ...(viewer !== undefined && viewer.kind === "owner" && { viewer }),
    };
    await this.store.set(keyOf(id), session, this.ttl(session, at));
    return { id, session };
  }

  /** The live session for an id, its idle clock restarted; undefined (and forgotten) once expired. */
  async use(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined || id === "" || id.length > 128) return undefined;
    const key = keyOf(id);
    const found = await this.store.get(key);
    if (found === undefined) return undefined;
    const at = this.clock.now();
    if (this.expired(found, at)) {
      await this.store.delete(key);
      return undefined;
    }
    const session: Session = { ...found, lastSeenAt: at };
    await this.store.set(key, session, this.ttl(session, at));
    return session;
  }

  /** Sets (or with undefined, clears) the flash message of a live session. */
  async flash(id: string, session: Session, flash: Session["flash"]): Promise<void> {
    const { flash: _old, ...rest } = session;
    const next: Session = flash === undefined ? rest : { ...rest, flash };
    await this.store.set(keyOf(id), next, this.ttl(next, this.clock.now()));
  }

  async end(id: string): Promise<void> {
    await this.store.delete(keyOf(id));
  }

  private expired(s: Session, at: number): boolean {
    return at - s.lastSeenAt >= this.policy.idleMs || at - s.createdAt >= this.policy.absoluteMs;
  }

  private ttl(s: Session, at: number): number {
    return Math.max(1, Math.min(this.policy.idleMs, s.createdAt + this.policy.absoluteMs - at));
  }
}

export class MemorySessionStore implements SessionStore {
  private readonly records = new Map<string, { session: Session; until: number }>();

  constructor(private readonly wallClock: Clock = systemClock) {}

  get(key: string): Promise<Session | undefined> {
    const r = this.records.get(key);
    if (r !== undefined && this.wallClock.now() >= r.until) this.records.delete(key);
    return Promise.resolve(this.records.get(key)?.session);
  }

  set(key: string, session: Session, ttlMs: number): Promise<void> {
    if (this.records.size >= 4096) this.sweep();
    this.records.set(key, { session, until: this.wallClock.now() + ttlMs });
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.records.delete(key);
    return Promise.resolve();
  }

  private sweep(): void {
    const at = this.wallClock.now();
    for (const [k, r] of this.records) if (at >= r.until) this.records.delete(k);
  }
}

export class RedisSessionStore implements SessionStore {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async get(key: string): Promise<Session | undefined> {
    const raw = await this.redis.get(this.#key(key));
    return raw === null ? undefined : (JSON.parse(raw) as Session);
  }

  async set(key: string, session: Session, ttlMs: number): Promise<void> {
    await this.redis.set(this.#key(key), JSON.stringify(session), "PX", Math.max(1, Math.ceil(ttlMs)));
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.#key(key));
  }

  #key(key: string): string {
    return this.#keys.key("console", "session", key);
  }
}
