/**
 * Calendar push for a running gateway: for every Google / Microsoft calendar host
 * whose calendar section has a `push_url`, the lifecycle job (src/jobs/calendar-push) keeps a
 * watch channel / Graph subscription per synced calendar, posting to
 * <push_url>/push/<google|microsoft>/<hostId> (src/edges/inbound/calendar-push.ts); a verified
 * notification asks the calendar-sync queue for a sync of the host, coalesced. The channels
 * live in Redis when the gateway has it (every process authenticates any channel), in memory
 * otherwise. Hosts without push_url are synced periodically only, and the start says so.
 *
 * The providers here translate the connectors' channel / subscription calls into the job's
 * neutral port; the job itself knows no platform. The receivers check what arrives with the
 * connectors' own rules, handed to the edge as its PushVerifier.
 */
import { randomUUID } from "node:crypto";
import type { CalendarHostHandle } from "../../booking/calendar/host-setup.js";
import { checkNotification, GoogleChannels } from "../../connectors/google/channels.js";
import { answerValidation, checkNotifications } from "../../connectors/microsoft/notifications.js";
import { GraphSubscriptions } from "../../connectors/microsoft/subscriptions.js";
import type { ConnectorResult } from "../../connectors/port.js";
import {
  MemoryPushStore,
  pushCoalescer,
  RedisPushStore,
  startPushLifecycle,
  type PushEntry,
  type PushHost,
  type PushLifecycle,
  type PushLifecycleDeps,
  type PushProvider,
  type PushResult,
  type PushStore,
  type PushVendor,
  type Timers,
} from "../../jobs/calendar-push/index.js";
import { connectClient, createClient } from "../../redis/connection.js";
import {
  CALENDAR_PUSH_PREFIX,
  type CalendarPushReceiver,
  type PushVerifier,
} from "../../edges/inbound/calendar-push.js";
import type { Logger } from "../../protocol/logger.js";
import type { Clock } from "../../protocol/clock.js";

/** The connectors' notification checks, as the push receivers' port. */
export const pushVerifier: PushVerifier = {
  google: checkNotification,
  graphValidation: answerValidation,
  graph: checkNotifications,
};

function neutral<T, U>(r: ConnectorResult<T>, map: (value: T) => U): PushResult<U> {
  return r.ok
    ? { ok: true, value: map(r.value) }
    : { ok: false, error: { code: r.error.code, message: r.error.message } };
}

/** Google: a channel per calendar under an id we choose; renewal is a successor channel. */
function googlePushProvider(channels: GoogleChannels, clock: Clock): PushProvider {
  return {
    vendor: "google",
    async open({ calendarId, address, secret }) {
      const channelId = randomUUID();
      // No ttl asked: Google grants its own default lifetime and says when it ends.
      const r = await channels.watch({ calendarId, channelId, address, token: secret });
      return neutral(r, (c): PushEntry => ({
        vendor: "google",
        calendarId,
        id: c.channelId,
        secret,
        resourceId: c.resourceId,
        address,
        obtainedAt: clock.now(),
        expiresAt: c.expiration,
      }));
    },
    async close(entry) {
      if (entry.resourceId === undefined) return { ok: true, value: undefined };
      return neutral(
        await channels.stop({ channelId: entry.id, resourceId: entry.resourceId }),
        () => undefined,
      );
    },
  };
}

/** Graph: a subscription per calendar; renewal PATCHes its expiry (clamped to Graph's limit). */
function microsoftPushProvider(subscriptions: GraphSubscriptions, clock: Clock): PushProvider {
  return {
    vendor: "microsoft",
    async open({ calendarId, address, secret }) {
      const r = await subscriptions.create({
        calendarId,
        notificationUrl: address,
        // Lifecycle notifications (reauthorizationRequired, subscriptionRemoved, missed) come
        // to the same receiver, checked the same way.
        lifecycleNotificationUrl: address,
        clientState: secret,
      });
      return neutral(r, (s): PushEntry => ({
        vendor: "microsoft",
        calendarId,
        id: s.subscriptionId,
        secret,
        address,
        obtainedAt: clock.now(),
        expiresAt: s.expiresAt,
      }));
    },
    async extend(entry) {
      const r = await subscriptions.renew(entry.id);
      return neutral(r, (s): PushEntry => ({ ...entry, obtainedAt: clock.now(), expiresAt: s.expiresAt }));
    },
    async close(entry) {
      return neutral(await subscriptions.delete(entry.id), () => undefined);
    },
  };
}

/** The push provider a calendar connector offers, if any. */
function providerOf(handle: CalendarHostHandle, clock: Clock): PushProvider | undefined {
  const c = handle.calendar as { channels?: unknown; subscriptions?: unknown };
  if (c.channels instanceof GoogleChannels) return googlePushProvider(c.channels, clock);
  if (c.subscriptions instanceof GraphSubscriptions) return microsoftPushProvider(c.subscriptions, clock);
  return undefined;
}

export interface CalendarPushWiring {
  readonly receiver: CalendarPushReceiver;
  readonly lifecycle: PushLifecycle;
  /** Stops renewals and pending pushes; a memory store's channels are stopped upstream. */
  close(): Promise<void>;
}

export interface CalendarPushOptions {
  readonly handles: readonly CalendarHostHandle[];
  /** The calendar-sync queue's request (coalesced with a sync already running). */
  readonly requestSync: (hostId: string, reason: string) => Promise<void>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
  /** Tests: a manual clock, a store, the lifecycle's margins. */
  readonly timers?: Timers;
  readonly store?: PushStore;
  readonly windowMs?: number;
  readonly lifecycle?: Pick<PushLifecycleDeps, "renewBeforeMs" | "retryMs" | "secret">;
}

/** undefined when no calendar host has push (nothing is mounted, nothing runs). */
export async function calendarPushWiring(opts: CalendarPushOptions): Promise<CalendarPushWiring | undefined> {
  const { logger } = opts;
  const hosts: PushHost[] = [];
  const vendors = new Map<string, PushVendor>();
  for (const h of opts.handles) {
    const provider = providerOf(h, opts.clock);
    const every = `${Math.round(h.section.syncEveryMs / 60_000)} min`;
    if (provider === undefined) {
      if (h.section.pushUrl !== undefined)
        logger.warn(
          `calendar push: host ${h.hostId}'s calendar has no push notifications; push_url ignored`,
          {
            host_id: h.hostId,
          },
        );
      continue;
    }
    if (h.section.pushUrl === undefined) {
      logger.info(
        `calendar push off for host ${h.hostId} (no push_url): its calendar is synced every ${every}`,
        {
          host_id: h.hostId,
          vendor: provider.vendor,
        },
      );
      continue;
    }
    vendors.set(h.hostId, provider.vendor);
    hosts.push({
      hostId: h.hostId,
      calendarIds: h.plan.calendars.map((c) => c.calendarId),
      address: `${h.section.pushUrl}${CALENDAR_PUSH_PREFIX}/${provider.vendor}/${h.hostId}`,
      provider,
      syncEveryMs: h.section.syncEveryMs,
    });
  }
  if (hosts.length === 0) return undefined;

  let store = opts.store;
  let closeRedis = (): Promise<void> => Promise.resolve();
  if (store === undefined && opts.redisUrl !== undefined) {
    const client = createClient({ url: opts.redisUrl });
    await connectClient(client, opts.redisUrl);
    store = new RedisPushStore(client, opts.redisKeyPrefix);
    closeRedis = () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      );
  }
  store ??= new MemoryPushStore();
  const timers = opts.timers !== undefined ? { timers: opts.timers } : {};
  const coalescer = pushCoalescer(opts.requestSync, logger, {
    ...timers,
    ...(opts.windowMs !== undefined && { windowMs: opts.windowMs }),
  });
  const lifecycle = startPushLifecycle({
    hosts,
    store,
    logger,
    clock: opts.clock,
    ...timers,
    ...opts.lifecycle,
  });
  const pushStore = store;
  return {
    receiver: {
      verifier: pushVerifier,
      vendor: (hostId) => vendors.get(hostId),
      entries: (hostId) => pushStore.list(hostId),
      push: (hostId, reason) => coalescer.push(hostId, reason),
      lifecycle(hostId, subscriptionId, event) {
        const hint =
          event === "subscriptionRemoved"
            ? { drop: subscriptionId }
            : event === "reauthorizationRequired"
              ? { renew: subscriptionId }
              : undefined;
        if (hint !== undefined) void lifecycle.recheck(hostId, hint);
      },
    },
    lifecycle,
    close: async () => {
      coalescer.close();
      await lifecycle.close();
      await closeRedis();
    },
  };
}
