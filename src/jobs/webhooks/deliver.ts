/**
 * One delivery attempt of a webhook (SchCP §5.8): the event's JSON, signed with the host's
 * first signing key (the one its discovery document lists first, HostRuntime.keys), POSTed
 * through the public-only transport. 2xx is delivered; anything else may be retried, except
 * what no retry can fix (an unknown host, a callback URL the transport refuses).
 */
import type { Clock } from "../../protocol/clock.js";
import type { HostDirectory, OutboundEvent } from "../../booking/api.js";
import { signHostWebhook } from "../../protocol/http-signatures/host-webhook.js";
import type { FetchRefusalCode, PublicFetch } from "../outbound/public-fetch.js";
import type { Result } from "../../protocol/result.js";

export interface DeliveryDeps {
  readonly hosts: HostDirectory;
  readonly fetch: PublicFetch;
  readonly clock: Clock;
  readonly userAgent?: string;
}

type DeliveryFailureCode = "unknown_host" | "no_signing_key" | "http_status" | FetchRefusalCode;

/** Why an attempt did not deliver. */
export interface DeliveryFailure {
  /** False when another attempt cannot succeed: the delivery is abandoned at once. */
  readonly retryable: boolean;
  readonly code: DeliveryFailureCode;
  readonly message: string;
  readonly status?: number;
}

/** Delivered (the callback's 2xx status), or why not. */
export type DeliveryOutcome = Result<number, DeliveryFailure>;

export type Deliver = (event: OutboundEvent) => Promise<DeliveryOutcome>;

/**
 * Refusals of the URL itself are permanent. So is an address that is not public: a callback
 * whose name resolves to a private address is treated as hostile, not as a transient fault.
 */
const PERMANENT: ReadonlySet<DeliveryFailureCode> = new Set([
  "unknown_host",
  "no_signing_key",
  "invalid_url",
  "scheme_not_allowed",
  "credentials_in_url",
  "non_public_address",
]);

const fail = (code: DeliveryFailureCode, message: string, status?: number): DeliveryOutcome => ({
  ok: false,
  error: { retryable: !PERMANENT.has(code), code, message, ...(status === undefined ? {} : { status }) },
});

export function createDeliver(deps: DeliveryDeps): Deliver {
  const userAgent = deps.userAgent ?? "booking-gateway-webhooks";
  return async (outbound) => {
    const runtime = deps.hosts.get(outbound.hostId);
    if (runtime === undefined) return fail("unknown_host", `host ${outbound.hostId} is not configured`);
    const key = runtime.keys[0];
    if (key === undefined) return fail("no_signing_key", `host ${outbound.hostId} has no signing key`);
    let url: URL;
    try {
      url = new URL(outbound.callbackUrl);
    } catch {
      return fail("invalid_url", "the callback URL is not an absolute URL");
    }
    url.hash = ""; // never sent, so never signed
    const body = new TextEncoder().encode(JSON.stringify(outbound.event));
    // Signed afresh for every attempt: a retry hours later must not be a stale signature (§3.2).
    const headers = signHostWebhook({
      targetUri: url.href,
      hostId: outbound.hostId,
      body,
      key,
      created: Math.floor(deps.clock.now() / 1000),
    });
    const res = await deps.fetch({
      method: "POST",
      url: url.href,
      headers: { ...headers, "user-agent": userAgent },
      body,
    });
    if (!res.ok) return fail(res.error.code, res.error.message);
    const status = res.value.status;
    if (status >= 200 && status < 300) return { ok: true, value: status };
    return fail("http_status", `the callback answered ${status}`, status);
  };
}

/** Where a delivery goes, for logs: the origin only (a callback path may carry a token). */
export function logTarget(callbackUrl: string): string {
  try {
    return new URL(callbackUrl).origin;
  } catch {
    return "(invalid url)";
  }
}
