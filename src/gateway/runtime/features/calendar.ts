/**
 * Calendar hosts at run time (src/booking/calendar): the messenger that reaches their
 * approvers, the sync queue (started with the first calendar host, at start or when a
 * console-created one is activated), push notifications (../calendar-push-wiring.ts), a sync
 * on request, and what the operator API shows of them.
 */
import type { HostDirectory } from "../../../booking/api.js";
import type { CalendarHostHandle } from "../../../booking/calendar/host-setup.js";
import { localDays } from "../../../booking/calendar/local-days.js";
import type { CalendarBusy } from "../../../edges/console/kit.js";
import type { BookingService } from "../../booking-service.js";
import type { CalendarSyncQueue } from "../../../jobs/calendar-sync/queue.js";
import type { HostMessenger } from "../../../jobs/outbox/index.js";
import type { UpstreamsView } from "../../app/types.js";
import {
  hostMessenger,
  runCalendarHost,
  startCalendarSync,
  type CalendarHostsDeps,
} from "../calendar-hosts.js";
import { calendarPushWiring, type CalendarPushWiring } from "../calendar-push-wiring.js";
import type { Infra } from "../infra.js";
import { bullmqPrefix, keyPrefix, type GatewayRuntimeOptions, type RuntimeBasics } from "../options.js";
import type { Closable } from "../started.js";

export type MessengerFeatureOptions = Pick<
  GatewayRuntimeOptions,
  "dataDir" | "hostMessages" | "redisUrl" | "redisKeyPrefix"
>;

/** How calendar hosts' approvers are reached (SMTP, SMS; a file in dataDir when neither). */
export function mountMessenger(
  opts: MessengerFeatureOptions,
  { logger, clock }: Pick<RuntimeBasics, "logger" | "clock">,
): HostMessenger {
  return hostMessenger(
    opts.dataDir,
    opts.hostMessages ?? {},
    logger,
    opts.redisUrl === undefined ? undefined : { url: opts.redisUrl, prefix: bullmqPrefix(opts) },
    clock,
  );
}

/**
 * The live calendar hosts and their sync queue. `serve` and `stop` keep the list and the
 * queue's schedules in step with console-created hosts; `startSync` (mountCalendarSync) lets the
 * queue start, now when there is a calendar host, else with the first one served.
 */
export interface CalendarHosts extends Closable {
  readonly handles: readonly CalendarHostHandle[];
  /** The queue, once started. */
  queue(): CalendarSyncQueue | undefined;
  serve(hostId: string, calendarHost: CalendarHostHandle | undefined): void;
  stop(hostId: string): void;
  startSync(start: () => CalendarSyncQueue): void;
}

export function calendarHostsLive(
  handles: CalendarHostHandle[],
  { logger }: Pick<RuntimeBasics, "logger">,
): CalendarHosts {
  const sync: { queue?: CalendarSyncQueue; start?: () => CalendarSyncQueue } = {};
  const syncFailed = (hostId: string) => (e: unknown) =>
    logger.error("calendar sync schedule not changed", { host_id: hostId, error: String(e) });
  const drop = (hostId: string): void => {
    const at = handles.findIndex((h) => h.hostId === hostId);
    if (at >= 0) handles.splice(at, 1);
  };
  return {
    handles,
    queue: () => sync.queue,
    serve(hostId, calendarHost) {
      drop(hostId);
      if (calendarHost === undefined) {
        sync.queue?.remove(hostId).catch(syncFailed(hostId));
        return;
      }
      handles.push(calendarHost);
      if (sync.queue !== undefined) {
        sync.queue.add({ hostId, everyMs: calendarHost.section.syncEveryMs }).catch(syncFailed(hostId));
      } else if (sync.start !== undefined) {
        // The first calendar host of this process: the queue starts with it scheduled.
        sync.queue = sync.start();
      }
    },
    stop(hostId) {
      drop(hostId);
      sync.queue?.remove(hostId).catch(syncFailed(hostId));
    },
    startSync(start) {
      sync.start = start;
      if (handles.length > 0) sync.queue = start();
    },
    close: async () => {
      await sync.queue?.close();
    },
  };
}

export type CalendarSyncFeatureOptions = Pick<
  GatewayRuntimeOptions,
  "workers" | "calendarSyncConcurrency" | "redisUrl" | "redisKeyPrefix"
>;

export interface CalendarSyncFeature {
  /** What a sync reads and writes (also a sync on request: syncCalendarNow). */
  readonly deps: CalendarHostsDeps;
}

/**
 * Lets the calendar sync queue start (not with workers: false). §5.8: a sync that shows a
 * booking's time busy displaces it through the booking core.
 */
export function mountCalendarSync(
  opts: CalendarSyncFeatureOptions,
  { clock, logger, metrics }: Pick<RuntimeBasics, "clock" | "logger" | "metrics">,
  d: {
    readonly calendar: CalendarHosts;
    readonly directory: HostDirectory;
    readonly infra: Infra;
    readonly service: BookingService;
    readonly messenger: HostMessenger;
  },
): CalendarSyncFeature {
  const displacement = {
    propose: (hostId: string, bookingId: string, input: { start: string }) =>
      d.service.propose(hostId, bookingId, input),
    declineMeeting: async (hostId: string, bookingId: string, start: number) =>
      (await d.service.declineBusyMeeting?.(hostId, bookingId, start)) ?? { ok: false },
    messenger: d.messenger,
  };
  const deps: CalendarHostsDeps = {
    handles: d.calendar.handles,
    hosts: d.directory,
    store: d.infra.store,
    state: d.infra.calendarState,
    clock,
    logger,
    displacement,
    metrics,
  };
  if (opts.workers !== false) {
    d.calendar.startSync(() =>
      startCalendarSync({
        ...deps,
        ...(opts.calendarSyncConcurrency !== undefined && {
          syncConcurrency: opts.calendarSyncConcurrency,
        }),
        ...(opts.redisUrl !== undefined && { redis: { url: opts.redisUrl, prefix: bullmqPrefix(opts) } }),
      }),
    );
  }
  return { deps };
}

export type CalendarPushFeatureOptions = Pick<GatewayRuntimeOptions, "redisUrl" | "redisKeyPrefix">;

/**
 * Push: hosts with a push_url are also synced when their calendar notifies. Undefined when
 * the sync queue did not start at this start, or no calendar host has push.
 */
export async function mountCalendarPush(
  opts: CalendarPushFeatureOptions,
  { clock, logger }: Pick<RuntimeBasics, "clock" | "logger">,
  { calendar }: { readonly calendar: CalendarHosts },
): Promise<CalendarPushWiring | undefined> {
  const calendarSync = calendar.queue();
  if (calendarSync === undefined) return undefined;
  return calendarPushWiring({
    handles: calendar.handles,
    requestSync: (hostId, reason) => calendarSync.request(hostId, reason),
    logger,
    clock,
    redisKeyPrefix: keyPrefix(opts),
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
  });
}

/**
 * A calendar host's busy time in [from, to), for the console's week: each of its calendars'
 * occurrences as the last sync indexed them by local day (the gateway's own events are not
 * among them), once each however many days or calendars it is in.
 */
function calendarBusy(calendar: CalendarHosts, infra: Infra): CalendarBusy {
  return async (hostId, from, to) => {
    const handle = calendar.handles.find((h) => h.hostId === hostId);
    if (handle === undefined) return undefined;
    const seen = new Map<string, { start: number; end: number }>();
    for (const { calendarId } of handle.plan.calendars) {
      // The days are the zone's the sync indexed them in (the host's, unless it changed since).
      const meta = await infra.calendarState.getMeta(hostId, calendarId);
      const { dayOf } = localDays(meta?.zone ?? handle.plan.timezone);
      const days: number[] = [];
      for (let d = dayOf(from); d <= dayOf(to - 1); d++) days.push(d);
      for (const record of (await infra.calendarState.getDays(hostId, calendarId, days)).values())
        for (const [start, end] of record)
          if (end > from && start < to) seen.set(`${start} ${end}`, { start, end });
    }
    return [...seen.values()].sort((a, b) => a.start - b.start || a.end - b.end);
  };
}

/** What the operator API shows of upstreams and calendar hosts, and a sync now (tests, the CLI). */
export function calendarViews(
  calendar: CalendarHosts,
  sync: CalendarSyncFeature,
  infra: Infra,
): {
  readonly upstreams: UpstreamsView;
  readonly syncCalendarNow: (hostId: string) => Promise<boolean>;
  /** The console's week: a calendar host's busy time. */
  readonly busy: CalendarBusy;
} {
  const isCalendarHost = (hostId: string) => calendar.handles.some((h) => h.hostId === hostId);
  return {
    upstreams: {
      notices: (hostId) => infra.notices.list(hostId),
      calendar: async (hostId) =>
        isCalendarHost(hostId)
          ? {
              reports: await infra.calendarState.reports(hostId),
              pendingEvents: await infra.calendarState.pendingOwn(hostId),
            }
          : undefined,
      syncNow: async (hostId) => {
        const queue = calendar.queue();
        if (!isCalendarHost(hostId) || queue === undefined) return false;
        await queue.request(hostId, "operator");
        return true;
      },
    },
    busy: calendarBusy(calendar, infra),
    syncCalendarNow: async (hostId) => {
      if (!isCalendarHost(hostId)) return false;
      await runCalendarHost(sync.deps, hostId, "request");
      return true;
    },
  };
}
