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
 * The address rules and the guarded lookup are the gateway's one outbound address policy
 * (src/protocol/net/), which the upstreams' transport (policy-fetch.ts) obeys too.
 *
 * Hand-written over node:https because the one library that offers a connect-time lookup
 * hook with fetch ergonomics (undici's Agent) is not a dependency of this project.
 */
import { rootCertificates } from "node:tls";
import type { Result } from "../../protocol/result.js";
import {
  AddressRefusedError,
  createGuardedLookup,
  systemResolver,
  type GuardedLookup,
  type Resolver,
} from "../../protocol/net/guarded-lookup.js";
import { refuseAddress as policyRefusal, type AddressPolicy } from "../../protocol/net/policy.js";
import { checkCallbackUrl, literalHost } from "./callback-url.js";
import { exchange } from "./exchange.js";
import { RefusedError } from "./types.js";
import type { FetchRefusal, OutboundRequest, OutboundResponse } from "./types.js";

export type { FetchRefusalCode, OutboundRequest } from "./types.js";
export type { ResolvedAddress, Resolver } from "../../protocol/net/guarded-lookup.js";

export interface PublicFetchOptions {
  /** From socket creation to TCP connect (default 3 s). */
  readonly connectTimeoutMs?: number;
  /** The whole exchange, response body included (default 10 s). */
  readonly timeoutMs?: number;
  /** Response bytes read at most; the rest is discarded unread (default 64 KiB). */
  readonly maxResponseBytes?: number;
  readonly resolver?: Resolver;
  /**
   * Allow http: and loopback or private-network addresses: a test's loopback server standing in
   * for an agent, or the operator's explicit widening for status URLs (STATUS_ALLOW_PRIVATE,
   * SchCP §3.3). Never set for webhooks in a running gateway. Link-local, multicast and reserved
   * addresses stay refused at connect time (src/protocol/net/policy.ts).
   */
  readonly allowPrivate?: boolean;
  /**
   * Certificates (PEM) trusted for https beside Node's own roots: a developer's local key app
   * (the agent SDK's KeyAppStatusService with its own certificate, docs/schcp.md).
   */
  readonly extraCa?: readonly string[];
}

export type PublicFetch = (request: OutboundRequest) => Promise<Result<OutboundResponse, FetchRefusal>>;

const DEFAULTS = { connectTimeoutMs: 3_000, timeoutMs: 10_000, maxResponseBytes: 64 * 1024 };

export function createPublicFetch(options: PublicFetchOptions = {}): PublicFetch {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs;
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBytes = options.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  const resolver = options.resolver ?? systemResolver;
  const allowPrivate = options.allowPrivate === true;
  const ca =
    options.extraCa === undefined || options.extraCa.length === 0
      ? undefined
      : [...rootCertificates, ...options.extraCa];

  // The one outbound address policy (src/protocol/net/policy.ts); the tests' loopback agents
  // are reached only when allowPrivate widens it.
  const policy: AddressPolicy = allowPrivate ? { allowPrivate: true } : {};
  const refuseAddress = (address: string): FetchRefusal | undefined => {
    const refused = policyRefusal(policy, address);
    if (refused === undefined) return undefined;
    return {
      code: "non_public_address",
      message: `${refused.address} is not public (${refused.addressClass})`,
      ...refused,
    };
  };

  // The socket's own lookup (net.connect calls it): the answer checked is the answer used. Its
  // failures are put in this transport's vocabulary.
  const policyLookup = createGuardedLookup(policy, resolver);
  const guardedLookup: GuardedLookup = (hostname, opts, callback) => {
    policyLookup(hostname, opts, (error, address, family) => {
      if (error === null) return callback(null, address, family);
      const refusal: FetchRefusal =
        error instanceof AddressRefusedError
          ? { ...error.refusal, code: "non_public_address" }
          : { code: "dns_failed", message: error.message };
      callback(new RefusedError(refusal), "");
    });
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
      ...(ca !== undefined && { ca }),
    });
  };
}
