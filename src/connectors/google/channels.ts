/**
 * Push notifications for a calendar's events (guide "Push notifications"): a channel made
 * with events.watch, checked on every notification, renewed before it expires (Google does
 * not renew channels: a new one is made and the old one stopped), stopped with channels.stop.
 *
 * A notification is a bodiless POST whose X-Goog-* headers say which channel it belongs to:
 * X-Goog-Channel-ID (the id we chose), X-Goog-Channel-Token (the token we chose, echoed, so
 * it authenticates the sender), X-Goog-Resource-State ("sync": the channel now exists, nothing
 * changed; "exists": something changed, run an incremental sync), X-Goog-Resource-ID and
 * X-Goog-Message-Number. The check is pure, and compares the token in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { calendar_v3 } from "@googleapis/calendar";
import type { ConnectorResult } from "../port.js";
import { googleError } from "./errors.js";
import { callGoogle, callLine, type GoogleHttpDeps } from "./http.js";
import type { Result } from "../../protocol/result.js";

export interface WatchRequest {
  readonly calendarId: string;
  /** Our channel id: unique, at most 64 characters of [A-Za-z0-9-_+/=] (Google's rule). */
  readonly channelId: string;
  /** The HTTPS URL Google posts notifications to. */
  readonly address: string;
  /** The secret Google echoes in X-Goog-Channel-Token (at most 256 characters). */
  readonly token: string;
  /** Requested lifetime in seconds (`params.ttl`); Google may grant less. */
  readonly ttlSeconds?: number;
}

export interface WatchChannel {
  readonly calendarId: string;
  readonly channelId: string;
  /** Google's id of the watched resource; channels.stop needs it. */
  readonly resourceId: string;
  /** Epoch ms when Google stops sending (the answer's `expiration`). */
  readonly expiration: number;
}

const CHANNEL_ID = /^[A-Za-z0-9\-_+/=]{1,64}$/;

export class GoogleChannels {
  constructor(
    private readonly api: calendar_v3.Calendar,
    private readonly deps: GoogleHttpDeps,
  ) {}

  private now(): number {
    return this.deps.clock.now();
  }

  async watch(request: WatchRequest): Promise<ConnectorResult<WatchChannel>> {
    const { calendarId, channelId, address, token } = request;
    if (!CHANNEL_ID.test(channelId)) {
      return {
        ok: false,
        error: { code: "invalid_request", message: "channelId: 1-64 characters of [A-Za-z0-9-_+/=]" },
      };
    }
    if (!address.startsWith("https://")) {
      return {
        ok: false,
        error: { code: "invalid_request", message: "address: Google posts only to HTTPS URLs" },
      };
    }
    if (token.length === 0 || token.length > 256) {
      return { ok: false, error: { code: "invalid_request", message: "token: 1-256 characters" } };
    }
    const call = callLine("POST", ["calendars", calendarId, "events", "watch"]);
    const requestBody: calendar_v3.Schema$Channel = {
      id: channelId,
      type: "web_hook",
      address,
      token,
      ...(request.ttlSeconds !== undefined && { params: { ttl: String(Math.floor(request.ttlSeconds)) } }),
    };
    const outcome = await callGoogle(this.deps, call, (o) =>
      this.api.events.watch({ calendarId, requestBody }, o),
    );
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (outcome.value.status !== 200) return { ok: false, upstream, error: googleError(outcome, this.now()) };
    const channel = outcome.value.data as calendar_v3.Schema$Channel;
    const expiration = Number(channel.expiration);
    if (!channel.resourceId || !Number.isFinite(expiration)) {
      return {
        ok: false,
        upstream,
        error: {
          code: "unavailable",
          message: `${call} answered a channel without resourceId or expiration`,
        },
      };
    }
    return {
      ok: true,
      upstream,
      value: { calendarId, channelId, resourceId: channel.resourceId, expiration },
    };
  }

  /** Stops a channel; one Google no longer knows (404) is already stopped. */
  async stop(
    channel: Pick<WatchChannel, "channelId" | "resourceId">,
  ): Promise<ConnectorResult<{ readonly stopped: boolean }>> {
    const call = "POST /calendar/v3/channels/stop";
    const outcome = await callGoogle(this.deps, call, (o) =>
      this.api.channels.stop({ requestBody: { id: channel.channelId, resourceId: channel.resourceId } }, o),
    );
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (outcome.value.status === 204 || outcome.value.status === 200)
      return { ok: true, upstream, value: { stopped: true } };
    if (outcome.value.status === 404) return { ok: true, upstream, value: { stopped: false } };
    return { ok: false, upstream, error: googleError(outcome, this.now()) };
  }
}

/** True when the channel expires within `marginMs` of `now` (or already has): make its successor. */
export function needsRenewal(
  channel: Pick<WatchChannel, "expiration">,
  now: number,
  marginMs: number,
): boolean {
  return channel.expiration - now <= marginMs;
}

export type NotificationHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export type ChannelNotification =
  /** The channel was just made; nothing changed. */
  | { readonly state: "sync"; readonly resourceId: string; readonly messageNumber?: number }
  /** The calendar's events changed: run an incremental sync. */
  | { readonly state: "exists" | "not_exists"; readonly resourceId: string; readonly messageNumber?: number };

export type GoogleNotificationRefusal = "missing_header" | "unknown_channel" | "bad_token" | "unknown_state";

function header(headers: NotificationHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    return typeof value === "string" ? value : value[0];
  }
  return undefined;
}

/** Constant-time equality of two secrets of any length (digests first, so lengths do not leak). */
function sameSecret(a: string, b: string): boolean {
  const da = createHash("sha256").update(a, "utf8").digest();
  const db = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(da, db);
}

/**
 * Checks a notification against the channel it claims to be for: the channel id must be
 * ours and the token must match. A refused notification is acknowledged by the edge and
 * triggers nothing.
 */
export function checkNotification(
  headers: NotificationHeaders,
  expected: { readonly channelId: string; readonly token: string; readonly resourceId?: string },
): Result<ChannelNotification, GoogleNotificationRefusal> {
  const channelId = header(headers, "X-Goog-Channel-ID");
  const token = header(headers, "X-Goog-Channel-Token");
  const state = header(headers, "X-Goog-Resource-State");
  const resourceId = header(headers, "X-Goog-Resource-ID");
  if (channelId === undefined || token === undefined || state === undefined || resourceId === undefined) {
    return { ok: false, error: "missing_header" };
  }
  if (channelId !== expected.channelId) return { ok: false, error: "unknown_channel" };
  if (!sameSecret(token, expected.token)) return { ok: false, error: "bad_token" };
  if (expected.resourceId !== undefined && resourceId !== expected.resourceId)
    return { ok: false, error: "unknown_channel" };
  const number = Number(header(headers, "X-Goog-Message-Number"));
  const messageNumber = Number.isInteger(number) ? { messageNumber: number } : {};
  if (state === "sync" || state === "exists" || state === "not_exists") {
    return { ok: true, value: { state, resourceId, ...messageNumber } };
  }
  return { ok: false, error: "unknown_state" };
}
