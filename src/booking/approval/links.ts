/**
 * Approval links (SchCP §10 calendar fallback, §5.7 host approval): a calendar host
 * approves or declines a pending booking from a link it receives by mail or SMS.
 *
 * A link is signed, expiring and single-use:
 * - the token is `<payload>.<mac>`: base64url JSON {h: host, b: booking, x: expiry (epoch s),
 *   n: nonce} and its HMAC-SHA256 under the gateway's link secret, compared in constant time.
 *   Nothing in it is secret; the MAC is what makes it a credential. An HMAC over our own
 *   payload needs no JOSE library: there is no header, algorithm choice or key lookup to get
 *   wrong, and node:crypto is the well-kept library;
 * - it expires with the approval deadline (the booking lapses then anyway);
 * - GET shows the booking and asks; only POST acts, and the first POST consumes the nonce, so
 *   a mail scanner that follows links cannot approve, and a second use is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { err, ok, type Result } from "../../protocol/result.js";
import { type Clock, systemClock } from "../../protocol/clock.js";

export interface ApprovalLinkClaims {
  readonly hostId: string;
  readonly bookingId: string;
  /** Epoch ms after which the link is refused. */
  readonly expiresAt: number;
  /** Single-use marker. */
  readonly nonce: string;
}

export type LinkRefusal = "malformed" | "bad_signature" | "expired";

const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64url");

function mac(secret: Uint8Array, payload: string): Buffer {
  return createHmac("sha256", secret).update(payload).digest();
}

export function issueApprovalToken(
  secret: Uint8Array,
  claims: Omit<ApprovalLinkClaims, "nonce"> & { readonly nonce?: string },
): string {
  const nonce = claims.nonce ?? randomBytes(16).toString("base64url");
  const payload = b64(
    JSON.stringify({
      h: claims.hostId,
      b: claims.bookingId,
      x: Math.ceil(claims.expiresAt / 1000),
      n: nonce,
    }),
  );
  return `${payload}.${b64(mac(secret, payload))}`;
}

/** Checks a token's form, MAC and expiry (not its use: see LinkUseStore). */
export function readApprovalToken(
  secret: Uint8Array,
  token: string,
  now: number,
): Result<ApprovalLinkClaims, LinkRefusal> {
  const parts = token.split(".");
  if (
    parts.length !== 2 ||
    !/^[A-Za-z0-9_-]{10,2048}$/.test(parts[0] ?? "") ||
    !/^[A-Za-z0-9_-]{43}$/.test(parts[1] ?? "")
  ) {
    return err("malformed");
  }
  const [payload, given] = parts as [string, string];
  const expected = mac(secret, payload);
  const actual = Buffer.from(given, "base64url");
  // One spelling per MAC: base64url's last character has two unused bits.
  const canonical = actual.toString("base64url") === given;
  if (!canonical || actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    return err("bad_signature");
  }
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return err("malformed");
  }
  const c = claims as { h?: unknown; b?: unknown; x?: unknown; n?: unknown };
  if (
    typeof c.h !== "string" ||
    typeof c.b !== "string" ||
    typeof c.x !== "number" ||
    typeof c.n !== "string"
  ) {
    return err("malformed");
  }
  const expiresAt = c.x * 1000;
  if (now >= expiresAt) return err("expired");
  return ok({ hostId: c.h, bookingId: c.b, expiresAt, nonce: c.n });
}

/** Remembers used nonces until their link expires: the first `consume` wins. */
export interface LinkUseStore {
  /** True for the first use of this nonce; false when it was used before. */
  consume(nonce: string, expiresAt: number): Promise<boolean>;
}

export class MemoryLinkUseStore implements LinkUseStore {
  readonly #used = new Map<string, number>();
  constructor(private readonly clock: Clock = systemClock) {}
  /** Used nonces and their expiry, for a process that keeps them in a file between runs. */
  exportState(): ReadonlyMap<string, number> {
    return this.#used;
  }
  importState(state: ReadonlyMap<string, number>): void {
    this.#used.clear();
    for (const [k, v] of state) this.#used.set(k, v);
  }
  consume(nonce: string, expiresAt: number): Promise<boolean> {
    const t = this.clock.now();
    for (const [n, until] of this.#used) if (until <= t) this.#used.delete(n);
    if (this.#used.has(nonce)) return Promise.resolve(false);
    this.#used.set(nonce, expiresAt);
    return Promise.resolve(true);
  }
}

/** SET NX with the link's remaining life: one winner across processes. */
export class RedisLinkUseStore implements LinkUseStore {
  readonly #keys: RedisKeyspace;
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly clock: Clock = systemClock,
  ) {
    this.#keys = redisKeys(prefix);
  }
  async consume(nonce: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, expiresAt - this.clock.now());
    const set = await this.redis.set(this.#keys.key("approval-link", nonce), "1", "PX", ttl, "NX");
    return set === "OK";
  }
}
