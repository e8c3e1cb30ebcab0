/**
 * The outbound transport for callback URLs (SchCP §5.8): a public https URL, checked at
 * connect time. "Checking the URL's text is not enough, because any public hostname can
 * resolve to a private address, and can change its answer between a check and the
 * connection." So the name is resolved inside the socket's own `lookup` (node:https), every
 * answer is classified and the connection is refused unless all are public; the socket's
 * remote address is checked again once connected. IP literals (which Node connects to
 * without a lookup) are classified before any socket is opened (callback-url.ts).
 *
 * Also §5.8: https only, no credentials in the URL, short timeouts, a bounded response, and
 * no redirects (node:http never follows them; a 3xx is returned as it is).
 *
 * Hand-written over node:https because the one library that offers a connect-time lookup
 * hook with fetch ergonomics (undici's Agent) is not a dependency of this project.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import type { Result } from "../../protocol/result.js";
import { classifyAddress } from "./address-policy.js";
import { checkCallbackUrl, literalHost } from "./callback-url.js";
import { exchange } from "./exchange.js";
import type { GuardedLookup } from "./exchange.js";
import { RefusedError } from "./types.js";
import type { FetchRefusal, OutboundRequest, OutboundResponse } from "./types.js";

export type { FetchRefusal, FetchRefusalCode, OutboundRequest, OutboundResponse } from "./types.js";

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has (tests inject one that maps names to loopback). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface PublicFetchOptions {
  /** From socket creation to TCP connect (default 3 s). */
  readonly connectTimeoutMs?: number;
  /** The whole exchange, response body included (default 10 s). */
  readonly timeoutMs?: number;
  /** Response bytes read at most; the rest is discarded unread (default 64 KiB). */
  readonly maxResponseBytes?: number;
  readonly resolver?: Resolver;
  /**
   * Tests only: allow http: and non-public addresses, so a loopback server can stand in for
   * an agent. Never set in a running gateway.
   */
  readonly allowPrivateForTests?: boolean;
}

export type PublicFetch = (request: OutboundRequest) => Promise<Result<OutboundResponse, FetchRefusal>>;

const DEFAULTS = { connectTimeoutMs: 3_000, timeoutMs: 10_000, maxResponseBytes: 64 * 1024 };

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export function createPublicFetch(options: PublicFetchOptions = {}): PublicFetch {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs;
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBytes = options.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  const resolver = options.resolver ?? systemResolver;
  const allowPrivate = options.allowPrivateForTests === true;

  const refuseAddress = (address: string): FetchRefusal | undefined => {
    const addressClass = classifyAddress(address);
    if (allowPrivate || addressClass === "public") return undefined;
    return {
      code: "non_public_address",
      message: `${address} is not public (${addressClass})`,
      address,
      addressClass,
    };
  };

  // The socket's own lookup (net.connect calls it): the answer checked is the answer used.
  const guardedLookup: GuardedLookup = (hostname, opts, callback) => {
    resolver(hostname).then(
      (answers) => {
        if (answers.length === 0) {
          callback(new RefusedError({ code: "dns_failed", message: `${hostname} has no address` }), "");
          return;
        }
        for (const a of answers) {
          const refused = refuseAddress(a.address);
          if (refused !== undefined) return callback(new RefusedError(refused), "");
        }
        const wanted = answers.filter(
          (a) => opts.family === undefined || opts.family === 0 || a.family === opts.family,
        );
        const usable = wanted.length > 0 ? wanted : answers;
        const first = usable[0] as ResolvedAddress; // answers is not empty
        if (opts.all === true)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, first.address, first.family);
      },
      (error: unknown) => {
        const message = `cannot resolve ${hostname}: ${error instanceof Error ? error.message : String(error)}`;
        callback(new RefusedError({ code: "dns_failed", message }), "");
      },
    );
  };

  return async (req) => {
    // The URL's text (scheme, credentials, an IP literal's class): the same check the edge
    // made when the hold named it (callback-url.ts), made again in case the policy changed.
    const target = checkCallbackUrl(req.url, { allowPrivateForTests: allowPrivate });
    if (!target.ok) return target;
    const url = target.value;
    const host = literalHost(url) ?? url.hostname;
    return exchange(url, host, req, {
      connectTimeoutMs,
      timeoutMs,
      maxBytes,
      lookup: guardedLookup,
      checkConnected: refuseAddress,
    });
  };
}
