/**
 * Calendar push receivers, built on the vendors' own checks (the connectors keep them; the
 * composition root hands them in as a PushVerifier):
 *
 *   POST /push/google/{hostId}      Google Calendar watch-channel notifications (guide "Push
 *                                   notifications", "Receive notifications"): bodiless, the
 *                                   X-Goog-* headers name the channel. The channel must be one
 *                                   the gateway made for this host, and X-Goog-Channel-Token its
 *                                   token (compared in constant time). "sync" is the handshake
 *                                   sent when the channel is made: 200, nothing to do;
 *                                   "exists" / "not_exists": 200 and a sync of the host.
 *   POST /push/microsoft/{hostId}   Graph change notifications (guide "Receive change
 *                                   notifications through webhooks"): `?validationToken=` is
 *                                   echoed as text/plain at once (Graph wants it within 10 s);
 *                                   a batch whose every clientState matches its subscription's
 *                                   secret is 202 and a sync of the host; a bad clientState is
 *                                   logged and ignored (202: nothing for the sender to retry).
 *
 * A host without push, or a channel/subscription the gateway does not have, is 404 with no
 * detail; a bad Google token is 401. Nothing unauthenticated reaches a sync, and no upstream
 * call runs before the answer: the sync is queued through the coalescer (a burst is one sync).
 */
import type { Hono } from "hono";
import type { PushEntry, PushVendor } from "../../jobs/calendar-push/types.js";
import { readBoundedBody } from "../http/body.js";
import { DEFAULT_MAX_BODY_BYTES } from "../http/body.js";
import type { Logger } from "../../protocol/logger.js";
import type { Result } from "../../protocol/result.js";

export const CALENDAR_PUSH_PREFIX = "/push";

/** Why a Google channel notification is refused. */
type GooglePushRefusal = "missing_header" | "unknown_channel" | "bad_token" | "unknown_state";

/** Why a Graph notification batch is refused. */
type GraphPushRefusal = "malformed" | "unknown_subscription" | "bad_client_state";

/** The channel the gateway made, that a Google notification must name. */
interface GoogleChannelExpected {
  readonly channelId: string;
  readonly token: string;
  readonly resourceId?: string;
}

/**
 * The vendors' notification rules, pure, handed in by the composition root: they are the
 * vendors' own, so the calendar connectors keep them.
 */
export interface PushVerifier {
  /** A Google notification's X-Goog-* headers against the channel the gateway made. */
  google(
    headers: Headers,
    expected: GoogleChannelExpected,
  ): Result<{ readonly state: "sync" | "exists" | "not_exists" }, GooglePushRefusal>;
  /** Graph's validation request: its token to echo as text/plain; undefined for a notification. */
  graphValidation(query: URLSearchParams): { readonly status: 200; readonly body: string } | undefined;
  /** A Graph notification batch, each entry's clientState against its subscription's secret. */
  graph(
    body: unknown,
    clientStateOf: (subscriptionId: string) => string | undefined,
  ): Result<
    ReadonlyArray<{ readonly subscriptionId: string; readonly lifecycleEvent?: string }>,
    GraphPushRefusal
  >;
}

/** The receivers' dependencies (HttpAppDeps.calendarPush). */
export interface CalendarPushReceiver {
  /** The vendors' checks of what arrives. */
  readonly verifier: PushVerifier;
  /** The platform whose notifications this host takes; undefined: no receiver (404). */
  vendor(hostId: string): PushVendor | undefined;
  /** The host's live channels / subscriptions, from the push store (one read per notification). */
  entries(hostId: string): Promise<readonly PushEntry[]>;
  /** A verified change: one sync of the host soon (coalesced). */
  push(hostId: string, reason: string): void;
  /** A Graph lifecycle event (subscriptionRemoved, reauthorizationRequired) for the lifecycle job. */
  lifecycle?(hostId: string, subscriptionId: string, event: string): void;
}

const empty = (status: number) => new Response(null, { status });

export function mountCalendarPush(
  app: Hono,
  deps: { readonly logger: Logger; readonly maxBodyBytes?: number },
  receiver: CalendarPushReceiver,
): void {
  const { logger } = deps;

  app.post(`${CALENDAR_PUSH_PREFIX}/google/:hostId`, async (c) => {
    const hostId = c.req.param("hostId");
    if (receiver.vendor(hostId) !== "google") return empty(404);
    const channelId = c.req.header("x-goog-channel-id");
    const entry =
      channelId === undefined
        ? undefined
        : (await receiver.entries(hostId)).find((e) => e.vendor === "google" && e.id === channelId);
    if (entry === undefined) return empty(404);
    const checked = receiver.verifier.google(c.req.raw.headers, {
      channelId: entry.id,
      token: entry.secret,
      ...(entry.resourceId !== undefined && { resourceId: entry.resourceId }),
    });
    if (!checked.ok) {
      const fields = { host_id: hostId, calendar_id: entry.calendarId, refusal: checked.error };
      switch (checked.error) {
        case "bad_token":
          logger.warn("calendar push: a Google notification with a bad channel token, refused", fields);
          return empty(401);
        case "unknown_state":
          // A state this gateway does not know: acknowledged, nothing to do.
          logger.warn("calendar push: a Google notification of unknown state, ignored", fields);
          return empty(200);
        case "missing_header":
        case "unknown_channel":
          return empty(404);
      }
    }
    if (checked.value.state !== "sync") receiver.push(hostId, "push");
    return empty(200);
  });

  app.post(`${CALENDAR_PUSH_PREFIX}/microsoft/:hostId`, async (c) => {
    const hostId = c.req.param("hostId");
    if (receiver.vendor(hostId) !== "microsoft") return empty(404);
    const validation = receiver.verifier.graphValidation(new URL(c.req.url).searchParams);
    if (validation !== undefined) {
      // Echoed as text, never HTML, and not sniffed into anything else.
      return new Response(validation.body, {
        status: validation.status,
        headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
      });
    }
    const raw = await readBoundedBody(c.req.raw, deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, c.env);
    if (!raw.ok) return empty(413);
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw.value));
    } catch {
      return empty(400);
    }
    const entries = await receiver.entries(hostId);
    const checked = receiver.verifier.graph(
      body,
      (id) => entries.find((e) => e.vendor === "microsoft" && e.id === id)?.secret,
    );
    if (!checked.ok) {
      switch (checked.error) {
        case "malformed":
          return empty(400);
        case "unknown_subscription":
          return empty(404);
        case "bad_client_state":
          logger.warn("calendar push: a Graph notification with a bad clientState, ignored", {
            host_id: hostId,
          });
          return empty(202);
      }
    }
    receiver.push(hostId, "push");
    for (const n of checked.value)
      if (n.lifecycleEvent !== undefined) receiver.lifecycle?.(hostId, n.subscriptionId, n.lifecycleEvent);
    return empty(202);
  });
}
