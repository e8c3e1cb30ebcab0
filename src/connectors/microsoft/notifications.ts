/**
 * The notification endpoint's two checks, pure (guide "Receive change notifications through
 * webhooks"):
 *
 * - validation: when a subscription is made or renewed, Graph first POSTs to the URL with a
 *   `validationToken` query parameter and wants it back, decoded, as text/plain with 200,
 *   within 10 seconds: `answerValidation` is that answer.
 * - each notification carries the subscription's `clientState`: `checkNotifications` compares
 *   it in constant time and refuses the whole batch on any mismatch.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Result } from "../../protocol/result.js";

/**
 * The answer to Graph's validation request: the `validationToken` query parameter, decoded,
 * back as text/plain with 200. Undefined when the request carries none (it is then a
 * notification). The token is echoed as text, never as HTML, so it cannot script the page
 * (the edge should also send `X-Content-Type-Options: nosniff`).
 */
export function answerValidation(
  query: URLSearchParams | string,
): { readonly status: 200; readonly contentType: "text/plain"; readonly body: string } | undefined {
  const params =
    typeof query === "string" ? new URLSearchParams(query.startsWith("?") ? query.slice(1) : query) : query;
  const token = params.get("validationToken");
  if (token === null) return undefined;
  return { status: 200, contentType: "text/plain", body: token };
}

export interface ChangeNotification {
  readonly subscriptionId: string;
  readonly changeType?: string;
  readonly resource?: string;
  /** The changed event's id, when Graph sends resourceData. */
  readonly eventId?: string;
  /** reauthorizationRequired, subscriptionRemoved or missed, on a lifecycle notification. */
  readonly lifecycleEvent?: string;
}

export type GraphNotificationRefusal = "malformed" | "unknown_subscription" | "bad_client_state";

/** Constant-time equality of two secrets of any length (digests first, so lengths do not leak). */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(
    createHash("sha256").update(a, "utf8").digest(),
    createHash("sha256").update(b, "utf8").digest(),
  );
}

/**
 * Checks a notification POST body (`{ value: [...] }`): every entry must name a subscription
 * we know (`clientStateOf` answers its secret) and carry that secret. One bad entry refuses
 * the batch: whoever cannot produce the secret must not trigger anything.
 */
export function checkNotifications(
  body: unknown,
  clientStateOf: (subscriptionId: string) => string | undefined,
): Result<ChangeNotification[], GraphNotificationRefusal> {
  const value = (body as { value?: unknown } | null)?.value;
  if (!Array.isArray(value) || value.length === 0) return { ok: false, error: "malformed" };
  const out: ChangeNotification[] = [];
  for (const item of value as unknown[]) {
    const n = item as {
      subscriptionId?: unknown;
      clientState?: unknown;
      changeType?: unknown;
      resource?: unknown;
      resourceData?: { id?: unknown };
      lifecycleEvent?: unknown;
    } | null;
    if (typeof n?.subscriptionId !== "string") return { ok: false, error: "malformed" };
    const expected = clientStateOf(n.subscriptionId);
    if (expected === undefined) return { ok: false, error: "unknown_subscription" };
    if (typeof n.clientState !== "string" || !sameSecret(n.clientState, expected))
      return { ok: false, error: "bad_client_state" };
    out.push({
      subscriptionId: n.subscriptionId,
      ...(typeof n.changeType === "string" && { changeType: n.changeType }),
      ...(typeof n.resource === "string" && { resource: n.resource }),
      ...(typeof n.resourceData?.id === "string" && { eventId: n.resourceData.id }),
      ...(typeof n.lifecycleEvent === "string" && { lifecycleEvent: n.lifecycleEvent }),
    });
  }
  return { ok: true, value: out };
}
