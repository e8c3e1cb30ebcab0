/**
 * POST /webhooks/square/{hostId}: Square's booking notifications for a Square host,
 * built on the connector's primitives (src/connectors/square/webhooks.ts), which the
 * composition root hands in as a SquareWebhookVerifier:
 *
 * 1. the RAW body, bounded, verified with x-square-hmacsha256-signature: HMAC-SHA256 of the
 *    notification URL (PUBLIC_ORIGIN + this path, exactly as registered with Square) + the raw
 *    body, compared in constant time, under the host's `webhookSignatureKey`. A bad or missing
 *    signature is 401 and nothing else happens; a host without a key has no receiver (404);
 * 2. booking.created / booking.updated are read; any other event, a malformed one or another
 *    location's is answered 200 and dropped (a redelivery would be no better);
 * 3. a replay is dropped by event_id (Square's idempotency value for a notification) through
 *    an EventDeduplicator: SET NX with a TTL in Redis when the gateway has Redis, memory else;
 * 4. the change is queued IN-PROCESS and 200 answered at once: Square wants a 2xx within 10 s
 *    and redelivers otherwise, so no upstream call runs before the answer. An in-process queue
 *    dies with its process: an event taken in and not yet worked when the process stops is
 *    lost (Square will not redeliver what was answered 2xx); the catalog refresh and the next
 *    notification for that booking are what catch up.
 *
 * The work (squareChangeWorker) treats a notification as a hint: it reads the booking from
 * Square (RetrieveBooking) before acting. A gateway booking cancelled in Square's own tools is
 * cancelled here through the operator's host-cancel use case (the guest is told, the time
 * freed); one moved there (a new start, another team member) is moved here through the core's
 * upstream move (src/booking/operator/upstream-move.ts): Square is the system of record, so
 * the gateway's busy time and the guest's receipt follow it. A move onto time the gateway had
 * given to another booking is still recorded, logged as SQUARE MOVE CONFLICT and marked on the
 * booking for the operator.
 * Bookings made in Square's tools are not the gateway's: Square's SearchAvailability, which
 * every slot comes from, already counts them as busy.
 */
import type { Hono } from "hono";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import type { BookingView } from "../../booking/view.js";
import type { HostDirectory, UpstreamChangeApi, UseCase } from "../../booking/api.js";
import type { UpstreamBooking } from "../../booking/upstream.js";
import { ACTIVE_STATUSES, type BookingState } from "../../booking/bookings/state.js";
import { readBoundedBody } from "../http/body.js";
import { DEFAULT_MAX_BODY_BYTES } from "../http/body.js";
import type { Clock } from "../../protocol/clock.js";
import type { LogFields, Logger } from "../../protocol/logger.js";
import type { FieldError, Result } from "../../protocol/result.js";

const SQUARE_WEBHOOK_PREFIX = "/webhooks/square";

/** What a Square host's configuration says about its webhooks. */
export interface SquareWebhookHost {
  readonly signatureKey: string;
  readonly locationId: string;
}

/** A booking created or changed in Square, as the verifier reads it: what the edge works with. */
export interface SquareBookingNotice {
  /** Square's idempotency value for a notification, the same on every redelivery. */
  readonly eventId: string;
  readonly bookingId: string;
  readonly locationId: string;
  /** Square's booking version: a change is applied only if newer than the one applied. */
  readonly version: number;
}

/**
 * Square's webhook rules, handed in by the composition root: the signature and the event's
 * reading are the vendor's, so the Square connector keeps them.
 */
export interface SquareWebhookVerifier {
  /** Whether the request's signature is Square's over notificationUrl + rawBody under the key. */
  signed(input: {
    readonly signatureKey: string;
    readonly notificationUrl: string;
    readonly rawBody: Uint8Array;
    readonly headers: Headers;
  }): boolean;
  /** A verified body: a booking change, null for any other event type, or the field at fault. */
  parse(rawBody: Uint8Array): Result<SquareBookingNotice | null, FieldError>;
}

/** Remembers which notifications were taken in. */
export interface EventDeduplicator {
  /** True when this event id was seen before; otherwise records it and answers false (atomically). */
  seen(eventId: string): Promise<boolean>;
}

/** The receiver's dependencies (HttpAppDeps.squareWebhooks). */
export interface SquareWebhookReceiver {
  readonly verifier: SquareWebhookVerifier;
  /** A Square host with a signature key; undefined for any other host. */
  host(hostId: string): SquareWebhookHost | undefined;
  readonly dedup: EventDeduplicator;
  /** Queues the verified change; the work runs after the answer. */
  enqueue(hostId: string, change: SquareBookingNotice): void;
  /** Resolves when every queued change has been worked (tests, shutdown). */
  idle(): Promise<void>;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export function mountSquareWebhooks(
  app: Hono,
  deps: { readonly publicOrigin: string; readonly logger: Logger; readonly maxBodyBytes?: number },
  receiver: SquareWebhookReceiver,
): void {
  app.post(`${SQUARE_WEBHOOK_PREFIX}/:hostId`, async (c) => {
    const hostId = c.req.param("hostId");
    const host = receiver.host(hostId);
    if (host === undefined) return json(404, { error: "no Square webhook receiver for this host" });
    const body = await readBoundedBody(c.req.raw, deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, c.env);
    if (!body.ok) return json(413, { error: "the notification is too large" });
    const url = new URL(c.req.url);
    // The URL Square signed is the one registered: the public origin, never the Host header.
    const notificationUrl = `${deps.publicOrigin}${url.pathname}${url.search}`;
    const signed = receiver.verifier.signed({
      signatureKey: host.signatureKey,
      notificationUrl,
      rawBody: body.value,
      headers: c.req.raw.headers,
    });
    if (!signed) {
      deps.logger.warn("square webhook: bad signature, refused", { host_id: hostId });
      return json(401, { error: "bad signature" });
    }
    const parsed = receiver.verifier.parse(body.value);
    if (!parsed.ok) {
      deps.logger.warn("square webhook: unreadable booking event, dropped", {
        host_id: hostId,
        field: parsed.error.field,
        error: parsed.error.message,
      });
      return json(200, { ok: true, ignored: "unreadable" });
    }
    const change = parsed.value;
    if (change === null) return json(200, { ok: true, ignored: "not a booking event" });
    if (change.locationId !== host.locationId) {
      deps.logger.warn("square webhook: another location's booking, dropped", {
        host_id: hostId,
        location_id: change.locationId,
      });
      return json(200, { ok: true, ignored: "another location" });
    }
    if (await receiver.dedup.seen(change.eventId)) return json(200, { ok: true, duplicate: true });
    receiver.enqueue(hostId, change);
    return json(200, { ok: true });
  });
}

/** One process's queue: changes are worked one at a time, in arrival order, after the answer. */
export function inProcessQueue(
  work: (hostId: string, change: SquareBookingNotice) => Promise<void>,
  logger: Logger,
): Pick<SquareWebhookReceiver, "enqueue" | "idle"> {
  let tail: Promise<void> = Promise.resolve();
  return {
    enqueue(hostId, change) {
      tail = tail.then(() =>
        work(hostId, change).catch((e: unknown) =>
          logger.error("square webhook: the change could not be worked", {
            host_id: hostId,
            event_id: change.eventId,
            booking_id: change.bookingId,
            error: e instanceof Error ? e.message : String(e),
          }),
        ),
      );
    },
    idle: () => tail,
  };
}

/**
 * One process's memory of event ids for `ttlMs` (default 3 days, past Square's redelivery
 * window), at most `maxEntries` (oldest forgotten first). Several gateway processes need a shared
 * one (Redis SET NX with a TTL) behind the same interface.
 */
export class MemoryEventDeduplicator implements EventDeduplicator {
  private readonly ids = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly clock: Clock;

  constructor(options: { readonly clock: Clock; readonly ttlMs?: number; readonly maxEntries?: number }) {
    this.clock = options.clock;
    this.ttlMs = options.ttlMs ?? 3 * 86_400_000;
    this.maxEntries = options.maxEntries ?? 100_000;
  }

  seen(eventId: string): Promise<boolean> {
    const now = this.clock.now();
    const at = this.ids.get(eventId);
    if (at !== undefined && now - at < this.ttlMs) return Promise.resolve(true);
    this.ids.delete(eventId);
    this.ids.set(eventId, now);
    // Map keeps insertion order: the first entries are the oldest.
    for (const [id, when] of this.ids) {
      if (this.ids.size <= this.maxEntries && now - when < this.ttlMs) break;
      this.ids.delete(id);
    }
    return Promise.resolve(false);
  }
}

/** The minimum of a Redis client the de-dup needs (ioredis' SET with PX and NX). */
export interface SetNxClient {
  set(key: string, value: string, px: "PX", ttlMs: number, nx: "NX"): Promise<"OK" | null>;
}

/** Shared by every gateway process on one Redis: SET NX with a TTL under the gateway's prefix. */
export class RedisEventDeduplicator implements EventDeduplicator {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly client: SetNxClient,
    prefix: string,
    private readonly ttlMs = 3 * 86_400_000,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async seen(eventId: string): Promise<boolean> {
    const set = await this.client.set(
      this.#keys.key("square", "webhook-event", eventId),
      "1",
      "PX",
      this.ttlMs,
      "NX",
    );
    return set === null;
  }
}

export interface SquareChangeWorkerDeps {
  readonly hosts: HostDirectory;
  /** The gateway booking whose upstream id this is (src/booking/approval/lookup.ts). */
  findBooking(hostId: string, upstreamId: string): Promise<BookingState | undefined>;
  /** The operator API's host cancel (src/booking/operator/host-cancel.ts). */
  hostCancel(hostId: string, bookingId: string, input: { message?: string }): UseCase<BookingView>;
  /** The core's upstream move (src/booking/operator/upstream-move.ts). */
  applyUpstreamMove: UpstreamChangeApi["applyUpstreamMove"];
  readonly logger: Logger;
}

/** Works one change: reads Square's booking, then cancels or moves the gateway's to match. */
export function squareChangeWorker(deps: SquareChangeWorkerDeps) {
  // The newest Square version worked per booking in this process: deliveries may arrive out
  // of order. The booking itself records the version applied (upstreamVersion), which is what
  // holds across processes and restarts; this only spares a re-read.
  const applied = new Map<string, number>();
  return async (hostId: string, change: SquareBookingNotice): Promise<void> => {
    const { logger } = deps;
    const fields = { host_id: hostId, event_id: change.eventId, upstream_id: change.bookingId };
    const key = `${hostId}:${change.bookingId}`;
    if ((applied.get(key) ?? -1) >= change.version) return;
    const host = deps.hosts.get(hostId);
    if (host === undefined) return;
    const state = await deps.findBooking(hostId, change.bookingId);
    if (state === undefined) {
      // Made in Square's own tools: its busy time is already in SearchAvailability.
      logger.info("square webhook: not a gateway booking; nothing to do", fields);
      return;
    }
    const read = await host.connector.bookings.get(change.bookingId);
    if (!read.ok) {
      logger.error("UNRESOLVED square booking change: Square could not be read to confirm it", {
        ...fields,
        booking_id: state.bookingId,
        error_code: read.error.code,
      });
      return;
    }
    const now = read.value;
    applied.set(key, Math.max(change.version, applied.get(key) ?? -1));
    if (now.status === "cancelled") {
      if (!ACTIVE_STATUSES.has(state.status)) return;
      const done = await deps.hostCancel(hostId, state.bookingId, { message: "cancelled in Square" });
      if (done.ok) logger.info("square webhook: booking cancelled in Square, cancelled here", fields);
      else
        logger.error("UNRESOLVED square cancellation: the gateway booking could not be cancelled", {
          ...fields,
          booking_id: state.bookingId,
          refusal: done.error.reason,
          error: done.error.message,
        });
      return;
    }
    await applyMove(deps, state, now, change, fields);
  };
}

/**
 * Square is the system of record: the booking as Square now has it (start, end, team members)
 * becomes the gateway's through the core, which moves its busy time and tells the guest. The
 * notification's version is what the core records: the re-read is at least that new, and a
 * replay or an older notification is then ignored there.
 */
async function applyMove(
  deps: SquareChangeWorkerDeps,
  state: BookingState,
  now: UpstreamBooking,
  change: SquareBookingNotice,
  fields: LogFields,
): Promise<void> {
  const { logger } = deps;
  const moved = await deps.applyUpstreamMove(state.hostId, state.bookingId, {
    start: now.start,
    ...(now.end !== undefined && { end: now.end }),
    resourceIds: now.resourceIds,
    version: change.version,
  });
  const at = {
    ...fields,
    booking_id: state.bookingId,
    square_version: change.version,
    square_start: new Date(now.start).toISOString(),
    square_team: now.resourceIds.join(","),
  };
  if (!moved.ok) {
    logger.error("UNRESOLVED square move: the gateway booking could not be moved to Square's time", {
      ...at,
      refusal: moved.error.reason,
      error: moved.error.message,
    });
    return;
  }
  const r = moved.value;
  if (r.outcome === "unchanged") return;
  if (r.conflict !== undefined) {
    // Kept on the booking (attention, in the operator's view) until a later move settles it.
    logger.error(
      "SQUARE MOVE CONFLICT: moved in Square onto time the gateway had given to another booking; recorded at Square's time without a resource. Operator: settle the double booking in Square",
      { ...at, conflicts_with: r.conflict.conflictsWith.join(",") },
    );
    return;
  }
  logger.info("square webhook: booking moved in Square, moved here", {
    ...at,
    guest_told: r.guestTold,
    sequence: r.booking.sequence,
  });
}
