/**
 * The calendar hosts of a gateway process: their sync jobs, the host messages
 * that carry approval links, and the pieces the approval page and the operator API read.
 *
 * - Sync: each host every `sync_every` (5 min by default) and on request, through the
 *   calendar-sync queue (in-process, or BullMQ with REDIS_URL); each run syncs the host's
 *   calendars into the hold store and rewrites own events whose calendar copy lags. Every run
 *   logs its outcome; an incomplete one is a warning naming why.
 * - Approval links: a TENTATIVE event that landed sends the host's approver a signed,
 *   expiring, single-use link (SMTP or SMS when configured; otherwise a JSON-lines file in
 *   the data dir whose lines are also printed, so the embedded default shows the link).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { BookingDeps, HostDirectory, OperatorApi } from "../../booking/api.js";
import { notifyApprover, type NoticeBudget } from "../../booking/approval/notify.js";
import { bookingForUpstreamId } from "../../booking/approval/lookup.js";
import { issueApprovalToken } from "../../booking/approval/links.js";
import { loadBooking } from "../../booking/bookings/store.js";
import { guestOnRecord } from "../../booking/bookings/guest.js";
import type { TentativeRequest } from "../../booking/calendar/host-connector.js";
import type { LinkUseStore } from "../../booking/approval/links.js";
import type { CalendarHostHandle } from "../../booking/calendar/host-setup.js";
import {
  displaceConflicts,
  type DisplaceDeps,
  type UnaddressedMessage,
} from "../../booking/calendar/displace.js";
import { retryOwnEvents } from "../../booking/calendar/own-events.js";
import { forgetReadHorizon } from "../../booking/availability/read-horizon.js";
import type { CalendarStateStore, OwnEvent, SyncConflict, SyncReport } from "../../booking/calendar/state.js";
import { syncCalendarHost } from "../../booking/calendar/sync.js";
import type { HoldStore } from "../../holds/port.js";
import {
  bullmqCalendarSyncQueue,
  memoryCalendarSyncQueue,
  type CalendarSyncQueue,
} from "../../jobs/calendar-sync/queue.js";
import { describeError } from "../../jobs/logger.js";
import type { Logger } from "../../protocol/logger.js";
import { noMetrics, type Metrics } from "../../protocol/metrics.js";
import { failSpan, inSpan, type Span } from "../../protocol/tracing.js";
import type { CalendarSync } from "../../connectors/port.js";
import { observedCall } from "../../booking/hosts/watched-connector.js";
import {
  createBullmqHostMessenger,
  createHostMessenger,
  fileTransport,
  smsTransport,
  smtpTransport,
  type HostMessenger,
  type MessageTransport,
  type SmsSettings,
  type SmtpSettings,
} from "../../jobs/outbox/index.js";
import type { ApprovalRouteDeps } from "../../edges/approval/approval-routes.js";
import type { ApprovalView } from "../../edges/approval/approval-page.js";
import { readOrCreateSecret } from "./secret-files.js";
import { systemClock, type Clock } from "../../protocol/clock.js";

export interface HostMessageSettings {
  readonly smtp?: SmtpSettings;
  readonly sms?: SmsSettings;
}

/** The approval-link secret, generated once into the data dir (shared by its processes). */
export async function loadApprovalSecret(dataDir: string): Promise<Uint8Array> {
  const { text } = await readOrCreateSecret(
    join(dataDir, "approval-link-secret"),
    () => `${randomBytes(32).toString("base64url")}\n`,
  );
  return Buffer.from(text.trim(), "base64url");
}

/**
 * With Redis, messages go through the durable BullMQ queue (delivered once across processes,
 * kept across a restart); without, they are retried in this process only. `clock` is the one
 * the messages' expiresAt is on (the runtime's).
 */
export function hostMessenger(
  dataDir: string,
  settings: HostMessageSettings,
  logger: Logger,
  redis?: { readonly url: string; readonly prefix: string },
  clock: Clock = systemClock,
): HostMessenger {
  const transports: MessageTransport[] = [
    ...(settings.smtp !== undefined ? [smtpTransport(settings.smtp)] : []),
    ...(settings.sms !== undefined ? [smsTransport(settings.sms)] : []),
  ];
  if (transports.length === 0) transports.push(fileTransport(join(dataDir, "host-messages.jsonl")));
  return redis === undefined
    ? createHostMessenger({ transports, logger })
    : createBullmqHostMessenger({ redisUrl: redis.url, prefix: redis.prefix, transports, logger, clock });
}

export interface CalendarHostsDeps {
  readonly handles: readonly CalendarHostHandle[];
  readonly hosts: HostDirectory;
  readonly store: HoldStore;
  readonly state: CalendarStateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly redis?: { readonly url: string; readonly prefix: string };
  /** Without Redis: syncs at start and on schedule running at once (default 4). */
  readonly syncConcurrency?: number;
  /**
   * §5.8 displaced bookings (booking/calendar/displace.ts): the core's host change offer and
   * the messenger that tells the host's approver of an unresolved one.
   * Without it, conflicts are only reported.
   */
  readonly displacement?: {
    readonly propose: OperatorApi["propose"];
    readonly messenger?: HostMessenger;
    /** §5.12: a meeting booking before commit whose time the calendar shows busy is declined. */
    readonly declineMeeting?: DisplaceDeps["declineMeeting"];
  };
  /** Counts each sync's outcome and its calendar reads (src/protocol/metrics.ts). */
  readonly metrics?: Metrics;
}

/** One run for one host: sync its calendars, then rewrite lagging own events. */
export async function runCalendarHost(
  deps: CalendarHostsDeps,
  hostId: string,
  reason: string,
): Promise<void> {
  const handle = deps.handles.find((h) => h.hostId === hostId);
  if (handle === undefined) return;
  await inSpan(
    "calendar.sync",
    { attributes: { "booking.host_id": hostId, "calendar.reason": reason } },
    (span) => runHost(deps, handle, reason, span),
  );
}

/** "complete", or what kept the sync from it: the first error code, "incomplete", "degraded". */
function syncOutcome(reports: readonly SyncReport[]): string {
  const failed = reports.find((r) => r.error !== undefined)?.error;
  if (failed !== undefined) return failed.code;
  if (reports.some((r) => r.outcome !== "complete")) return "incomplete";
  return reports.some((r) => r.degraded !== undefined) ? "degraded" : "complete";
}

/** The calendar's reads, counted as the port calls they are (calendar.sync) when there are metrics. */
function countedSync(handle: CalendarHostHandle, metrics: Metrics | undefined): CalendarSync {
  const calendar = handle.calendar.calendar;
  if (metrics === undefined) return calendar;
  const observer = { metrics, vendor: handle.calendar.platform.vendor };
  return {
    sync: (request) =>
      observedCall(observer, "calendar.sync", () => calendar.sync(request)) as ReturnType<
        CalendarSync["sync"]
      >,
  };
}

async function runHost(
  deps: CalendarHostsDeps,
  handle: CalendarHostHandle,
  reason: string,
  span: Span,
): Promise<void> {
  const hostId = handle.hostId;
  const metrics = deps.metrics ?? noMetrics;
  let reports: SyncReport[];
  try {
    reports = await syncCalendarHost(
      {
        sync: countedSync(handle, deps.metrics),
        state: deps.state,
        store: deps.store,
        clock: deps.clock,
        logger: deps.logger,
        ...displacementOf(deps, handle),
      },
      handle.plan,
    );
  } catch (e) {
    metrics.calendarSync(hostId, "error");
    throw e;
  }
  const outcome = syncOutcome(reports);
  metrics.calendarSync(hostId, outcome);
  span.setAttribute("calendar.outcome", outcome);
  if (outcome !== "complete") failSpan(span, outcome);
  // The horizon availability remembers (read-horizon.ts) may have moved.
  forgetReadHorizon(deps.state, hostId);
  for (const r of reports) logSync(deps.logger, r, reason);
  // Availability on a calendar host makes no upstream call, so only the sync sees a refused
  // credential: it reaches the host's health here, which then refuses its time (needs_reconnection).
  const refused = reports.find((r) => r.error?.code === "unauthorized");
  // A calendar that fails (unavailable, timeout, rate limited; an answer over the byte cap or
  // too costly to parse) degrades the host, with the reason, while its busy time is kept.
  const failing = reports.find((r) => r.error !== undefined && SYNC_FAILING.has(r.error.code));
  const bounded = reports.find((r) => r.degraded !== undefined);
  const host = deps.hosts.get(hostId);
  if (refused?.error !== undefined)
    host?.health?.upstreamFailed({ code: "unauthorized", message: refused.error.message }, "calendar.sync");
  else if (failing?.error !== undefined) {
    const { code, message, reason } = failing.error;
    host?.health?.upstreamFailed(
      {
        code: code as "unavailable" | "timeout" | "rate_limited",
        message,
        ...((reason === "upstream_too_large" || reason === "upstream_too_costly") && { reason }),
      },
      "calendar.sync",
    );
  } else if (bounded?.degraded !== undefined) {
    // Laid and served as far as known, but a bound cut it: degraded, saying why.
    host?.health?.upstreamFailed(
      { code: "unavailable", message: bounded.degraded.message, reason: "expansion_bound" },
      "calendar.sync",
    );
  } else if (
    host?.health?.status().health === "needs_reconnection" &&
    reports.length > 0 &&
    reports.every((r) => r.error === undefined)
  )
    // Every calendar read through: the credential works again (reconnected). Read the catalog
    // now, which turns the host ok, rather than waiting for the next reconnection check.
    await host.refreshCatalog?.();
  const retried = await retryOwnEvents(handle.own);
  if (retried.tried > 0) {
    const level = retried.pending.length > 0 ? "warn" : "info";
    deps.logger[level]("calendar event rewrites", {
      host_id: hostId,
      tried: retried.tried,
      landed: retried.landed,
      pending: retried.pending,
    });
  }
}

/** §5.8: the sync's displacement of conflicting bookings, when the runtime wired one. */
function displacementOf(deps: CalendarHostsDeps, handle: CalendarHostHandle) {
  const host = deps.hosts.get(handle.hostId);
  const wiring = deps.displacement;
  if (wiring === undefined || host === undefined) return {};
  const { messenger } = wiring;
  return {
    displace: (conflicts: readonly SyncConflict[]) =>
      displaceConflicts(
        {
          store: deps.store,
          state: deps.state,
          clock: deps.clock,
          plan: handle.plan,
          host,
          propose: wiring.propose,
          ...(wiring.declineMeeting !== undefined && { declineMeeting: wiring.declineMeeting }),
          ...(messenger !== undefined && {
            tellHost: (n: UnaddressedMessage) => messenger.send({ ...n, to: handle.section.approver }),
          }),
        },
        conflicts,
      ),
  };
}

const SYNC_FAILING: ReadonlySet<string> = new Set(["unavailable", "timeout", "rate_limited"]);

function logSync(logger: Logger, r: SyncReport, reason: string): void {
  const fields = {
    host_id: r.hostId,
    calendar_id: r.calendarId,
    reason,
    kind: r.kind,
    pages: r.pages,
    events: r.events,
    duration_ms: r.durationMs,
    ...(r.busy !== undefined && { busy: r.busy }),
    ...(r.readUntil !== undefined && { read_until: new Date(r.readUntil).toISOString() }),
    ...(r.restarted === true && { restarted: true }),
    ...(r.complete !== undefined && { complete: r.complete }),
    ...(r.skipped !== undefined && { skipped: r.skipped }),
    ...(r.degraded !== undefined && { degraded_reason: r.degraded.reason, degraded: r.degraded.message }),
    ...(r.error !== undefined && { error_code: r.error.code, error: r.error.message }),
    ...(r.error?.reason !== undefined && { error_reason: r.error.reason }),
  };
  // §5.8: each conflict's outcome; any left unresolved is an error the host must act on.
  const conflict = (c: SyncConflict) => ({
    resource_id: c.resourceId,
    start: new Date(c.start).toISOString(),
    end: new Date(c.end).toISOString(),
    ...(c.bookingId !== undefined && { booking_id: c.bookingId }),
    outcome: c.outcome ?? "unresolved",
    ...(c.movedTo !== undefined && { moved_to: c.movedTo }),
    ...(c.proposal !== undefined && {
      proposal_id: c.proposal.proposalId,
      proposed_start: new Date(c.proposal.start).toISOString(),
    }),
    ...(c.reason !== undefined && { reason: c.reason }),
  });
  const open = (r.conflicts ?? []).filter((c) => c.outcome === undefined || c.outcome === "unresolved");
  const handled = (r.conflicts ?? []).filter((c) => !open.includes(c));
  if (open.length > 0) {
    logger.error(
      "CALENDAR CONFLICT: the host's calendar is now busy over bookings the gateway made and could not move; the host must move or cancel them",
      { ...fields, conflicts: open.map(conflict) },
    );
  }
  if (handled.length > 0)
    logger.info("calendar conflicts displaced", { ...fields, conflicts: handled.map(conflict) });
  if (r.outcome === "complete" && r.complete === false)
    logger.warn("calendar synced with events left out: the rest is laid", fields);
  else if (r.outcome === "complete") logger.info("calendar synced", fields);
  else logger.warn("calendar sync incomplete: the busy time it had is kept", fields);
}

export function startCalendarSync(deps: CalendarHostsDeps): CalendarSyncQueue {
  const schedules = deps.handles.map((h) => ({ hostId: h.hostId, everyMs: h.section.syncEveryMs }));
  const run = (hostId: string, reason: string) =>
    runCalendarHost(deps, hostId, reason).catch((e: unknown) => {
      deps.logger.error("calendar sync failed", { host_id: hostId, error: describeError(e) });
    });
  return deps.redis === undefined
    ? memoryCalendarSyncQueue(schedules, run, deps.logger, {
        ...(deps.syncConcurrency !== undefined && { concurrency: deps.syncConcurrency }),
      })
    : bullmqCalendarSyncQueue(
        { redisUrl: deps.redis.url, prefix: deps.redis.prefix },
        schedules,
        run,
        deps.logger,
      );
}

/** The approval link for a TENTATIVE event: to the host's approver, once per booking. */
export function approvalSender(opts: {
  readonly handles: () => readonly CalendarHostHandle[];
  readonly hosts: () => HostDirectory | undefined;
  readonly secret: Uint8Array;
  readonly origin: string;
  readonly messenger: HostMessenger;
  readonly clock: Clock;
  /** Caps the links per host and window (booking/approval/notify.ts); none: every one is sent. */
  readonly budget?: NoticeBudget;
}): (hostId: string, event: OwnEvent, request: TentativeRequest) => void {
  return (hostId, event, request) => {
    const handle = opts.handles().find((h) => h.hostId === hostId);
    const host = opts.hosts()?.get(hostId);
    const zone = host?.config.timezone ?? handle?.plan.timezone ?? "UTC";
    const answerBy = opts.clock.now() + (host?.config.policies.approvalTimeoutMs ?? 2 * 3_600_000);
    const service = handle?.section.services.find((s) => s.id === event.serviceId);
    void notifyApprover(
      {
        secret: opts.secret,
        origin: opts.origin,
        // The link dies at the deadline: a queue keeps the message no longer, nor sends it after.
        send: (m) => opts.messenger.send({ ...m, expiresAt: answerBy }),
        ...(opts.budget !== undefined && { budget: opts.budget }),
        clock: opts.clock,
      },
      {
        hostId,
        hostName: host?.config.name ?? hostId,
        approver: handle?.section.approver ?? {},
        bookingId: event.eventId,
        serviceName: service?.name ?? event.serviceId,
        start: event.start,
        end: event.end,
        timeZone: zone,
        ...(request.guest !== undefined && { guest: request.guest }),
        ...(request.partySize !== undefined && { partySize: request.partySize }),
        ...(request.awaiting === "member" && { member: true as const }),
        answerBy,
      },
    );
  };
}

/** The names a person's stored contacts go by (§7.8), for the meeting page (at most the store's cap). */
async function contactNames(deps: BookingDeps, hostId: string): Promise<Record<string, string>> {
  const listed = (await deps.contacts?.list(hostId)) ?? [];
  return Object.fromEntries(listed.map((c) => [c.principal, c.name]));
}

/** What the approval page reads and does, through the booking core. */
export function approvalRoutes(opts: {
  readonly deps: BookingDeps;
  readonly service: {
    approve(h: string, b: string): Promise<unknown>;
    decline(h: string, b: string, i: object): Promise<unknown>;
    acceptMeeting?(h: string, b: string, i: { acceptance: string }): Promise<unknown>;
    takeBackMeeting?(h: string, b: string, i: { message?: string }): Promise<unknown>;
  };
  readonly secret: Uint8Array;
  readonly uses: LinkUseStore;
}): ApprovalRouteDeps {
  const { deps } = opts;
  const read = async (hostId: string, eventId: string): Promise<ApprovalView | undefined> => {
    const host = deps.hosts.get(hostId);
    const loaded = host === undefined ? undefined : await bookingForUpstreamId(deps.store, hostId, eventId);
    if (host === undefined || loaded === undefined) return undefined;
    const s = loaded.state;
    const guest = guestOnRecord(s, deps.clock.now());
    return {
      hostName: host.config.name,
      bookingId: s.bookingId,
      serviceName: host.catalog.services.find((x) => x.id === s.serviceId)?.name ?? s.serviceId,
      start: s.start,
      ...(s.end !== undefined && { end: s.end }),
      timeZone: host.config.timezone,
      partySize: s.partySize ?? 1,
      ...(guest !== undefined && { guest }),
      status: s.status,
      ...(s.approvalBy !== undefined && { answerBy: s.approvalBy }),
      // SchCP §5.12: a person member's meeting is answered with their own acceptance.
      ...(s.meeting?.role === "person" && {
        meeting: {
          contract: s.meeting.contract,
          issuedAt: s.meeting.issuedAt,
          member: s.meeting.member,
          knownAs: await contactNames(deps, hostId),
        },
      }),
    };
  };
  return {
    secret: opts.secret,
    uses: opts.uses,
    clock: deps.clock,
    read,
    async memberLink(hostId, bookingId) {
      const s = (await loadBooking(deps.store, hostId, bookingId))?.state;
      if (s === undefined || s.meeting?.role !== "person" || s.status !== "pending_host") return undefined;
      // The link works until the member's deadline, as the one the messenger sent.
      const expiresAt = s.approvalBy ?? Math.min(s.start, deps.clock.now() + 3_600_000);
      return `/approve/${issueApprovalToken(opts.secret, { hostId, bookingId: s.upstreamId, expiresAt })}`;
    },
    async member(hostId, eventId, answer) {
      const loaded = await bookingForUpstreamId(deps.store, hostId, eventId);
      const service = opts.service;
      if (
        loaded === undefined ||
        service.acceptMeeting === undefined ||
        service.takeBackMeeting === undefined
      )
        return { ok: false, error: "no such booking" };
      const id = loaded.state.bookingId;
      const r = (await ("acceptance" in answer
        ? service.acceptMeeting(hostId, id, answer)
        : service.takeBackMeeting(hostId, id, answer))) as {
        ok: boolean;
        error?: { message?: string };
      };
      if (!r.ok) return { ok: false, error: r.error?.message ?? "refused" };
      const after = await bookingForUpstreamId(deps.store, hostId, eventId);
      return { ok: true, value: after?.state.status ?? "answered" };
    },
    async answer(hostId, eventId, action) {
      const loaded = await bookingForUpstreamId(deps.store, hostId, eventId);
      if (loaded === undefined) return { ok: false, error: "no such booking" };
      const id = loaded.state.bookingId;
      const r = (await (action === "approve"
        ? opts.service.approve(hostId, id)
        : opts.service.decline(hostId, id, {}))) as {
        ok: boolean;
        error?: { message?: string };
      };
      if (!r.ok) return { ok: false, error: r.error?.message ?? "refused" };
      const after = await bookingForUpstreamId(deps.store, hostId, eventId);
      return { ok: true, value: after?.state.status ?? (action === "approve" ? "confirmed" : "declined") };
    },
  };
}
