/**
 * SchCP §7.2: "Endpoints SHOULD also rate-limit by network origin before verifying
 * signatures". Agent keys are free to mint, so the per-key availability bucket cannot stop
 * one origin sending unbounded signed (or garbage-signed) requests, each of which costs a
 * signature verification. This bucket is keyed by the client's network address and taken
 * before the body is read or any signature checked; over it the answer is 429 RATE_LIMITED
 * with Retry-After (§9.2), in the words of the edge that mounts it.
 *
 * The address is the TCP peer's (the Node socket). Behind a reverse proxy every request
 * would share the proxy's address, so `trustForwardedFor` (off by default, TRUST_PROXY=1)
 * takes instead the last X-Forwarded-For entry: the address the nearest proxy saw, the only
 * entry it vouches for (earlier entries are whatever the client wrote). Enable it only when
 * the gateway is reachable solely through that proxy, or any client can pick its own bucket.
 * An IPv6 client is keyed by its /64, which one subscriber usually has whole.
 */
import { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import type { TokenBucketPolicy } from "./rate-limit.js";
import type { RateLimiter } from "./types.js";
import { systemClock, type Clock } from "../../protocol/clock.js";

/** 2,000 requests at once, then 200 a second, per network origin: far above one honest agent. */
export const DEFAULT_ORIGIN_RATE: TokenBucketPolicy = { capacity: 2_000, refillPerSec: 200 };

export interface OriginRateLimit {
  readonly limiter: RateLimiter;
  /** Key by the last X-Forwarded-For entry instead of the socket's peer (behind a proxy only). */
  readonly trustForwardedFor?: boolean;
  /**
   * The wall clock (default systemClock): a flood is measured in real seconds, not on the
   * gateway's business clock, which tests may hold still (docs/ARCHITECTURE.md, One clock).
   */
  readonly wallClock?: Clock;
}

/** The bucket key of a request: its client address, reduced to what one client controls. */
export function originKey(headers: Headers, env: unknown, trustForwardedFor: boolean): string {
  let address: string | undefined;
  if (trustForwardedFor) {
    const entries = (headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim());
    address = entries.at(-1) || undefined;
  }
  address ??= socketAddress(env);
  return address === undefined ? "unknown" : clientKey(address);
}

function socketAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming.socket.remoteAddress : undefined;
}

/** An IPv4 address (also when IPv4-mapped) as it is; an IPv6 address by its /64. */
export function clientKey(raw: string): string {
  const address = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1) : raw;
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return `other:${address}`;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  const groups = expandIpv6(address);
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, as lowercase hex without leading zeros. */
function expandIpv6(address: string): string[] {
  const [head = "", tail] = address.split("::");
  const parts = (s: string) => (s === "" ? [] : s.split(":").flatMap(dottedTail));
  const h = parts(head);
  const t = tail === undefined ? [] : parts(tail);
  const fill = tail === undefined ? [] : Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0");
  return [...h, ...fill, ...t].map((g) => (parseInt(g, 16) || 0).toString(16));
}

/** An embedded IPv4 tail ("::ffff:1.2.3.4", "64:ff9b::1.2.3.4") is two groups. */
function dottedTail(group: string): string[] {
  if (!group.includes(".")) return [group];
  const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

/**
 * The middleware: takes one token of the request's network origin, or answers with `refuse`,
 * which says it in the edge's protocol (the SchCP edge: 429 RATE_LIMITED with Retry-After and
 * the contact remedy of the host the path names, §9.2). An unknown host spends the allowance
 * all the same.
 */
export function originRateLimit(
  limit: OriginRateLimit,
  refuse: (retryAfterMs: number, path: string) => Response,
): MiddlewareHandler {
  const wallClock = limit.wallClock ?? systemClock;
  return async (c, next) => {
    const key = originKey(c.req.raw.headers, c.env, limit.trustForwardedFor === true);
    const taken = await limit.limiter.take(key, wallClock.now());
    if (taken.ok) return next();
    return refuse(taken.error.retryAfterMs, c.req.path);
  };
}
