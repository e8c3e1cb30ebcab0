/**
 * A calendar host as the booking core's platform path sees it (SchCP §10): the
 * catalog is the host's configuration (a calendar has none), the free starts are working
 * hours minus the busy time the last sync laid in the hold store, and a booking is an event
 * the gateway writes in the host's calendar (own-events.ts). So holds, two-phase confirm,
 * approval, cancel and reschedule run unchanged on every edge, and availability or a hold on a
 * calendar host makes NO upstream call: only the sync job and the event writes reach the
 * calendar.
 *
 * Nothing is offered past what the calendar was read up to (the least `readUntil` of its
 * calendars), and an unread calendar offers nothing (§10).
 */
import { guestOf, type Guest } from "../bookings/guest.js";
import { slotStarts, subtractIntervals, workingIntervals, type WeeklyHours } from "../../calendar/index.js";
import type {
  BookingPort,
  Catalog,
  CatalogService,
  CalendarConnector,
  ConnectorError,
  ConnectorResult,
  EventWriteErrorCode,
  Interval,
  PlatformConnector,
  UpstreamBooking,
  UpstreamSlot,
  UpstreamStatus,
} from "../../connectors/port.js";
import type { HoldStore } from "../../holds/port.js";
import { readOccupancy } from "../availability/query-reads.js";
import { cachedReadHorizon } from "../availability/read-horizon.js";
import { err, ok } from "../../protocol/result.js";
import { instantToWallClock, wallClockToInstant } from "../../protocol/time/index.js";
import { writeOwnEvent, ownEventId, type OwnEventDeps } from "./own-events.js";
import type { CalendarStateStore, OwnEvent } from "./state.js";
import type { CalendarHostPlan } from "./sync.js";
import type { Clock } from "../../protocol/clock.js";

export interface CalendarHostSetup {
  readonly plan: CalendarHostPlan;
  /** The calendar the gateway writes its events to (one of plan.calendars, usually the first). */
  readonly writeCalendarId: string;
  readonly organization: Catalog["organization"];
  readonly services: readonly CatalogService[];
  /** Working hours of every unit, in the host's zone. */
  readonly hours: WeeklyHours;
  /** Starts lie on this grid from local midnight (default 15 minutes). */
  readonly granularityMs?: number;
}

export interface CalendarHostDeps {
  readonly store: HoldStore;
  readonly state: CalendarStateStore;
  readonly clock: Clock;
  /** A TENTATIVE event landed: the host must be asked (the approval link, src/booking/approval). */
  readonly onTentative?: (event: OwnEvent, request: TentativeRequest) => void;
}

/** Who a tentative event is for, as the create asked: what the approver's message shows of them. */
export interface TentativeRequest {
  readonly guest?: Guest;
  readonly partySize?: number;
  /** Who is asked (UpstreamCreate.awaiting): absent is the host's approver. */
  readonly awaiting?: "member";
}

const DEFAULT_GRANULARITY_MS = 15 * 60_000;

export function calendarHostConnector(
  calendar: CalendarConnector,
  setup: CalendarHostSetup,
  deps: CalendarHostDeps,
): PlatformConnector {
  const { plan } = setup;
  const own: OwnEventDeps = {
    events: calendar.events,
    state: deps.state,
    clock: deps.clock,
    hostId: plan.hostId,
    zone: plan.timezone,
    writeCalendarId: setup.writeCalendarId,
  };
  const catalog: Catalog = {
    organization: setup.organization,
    services: setup.services,
    resources: plan.units.ids.map((id, i) => ({
      id,
      type: plan.units.resourceType,
      name: plan.units.ids.length === 1 ? setup.organization.name : `${plan.units.resourceType} ${i + 1}`,
      capacity: 1,
      hours: setup.hours,
      staff: plan.units.resourceType === "person",
    })),
    taxes: [],
  };
  let catalogServed = false;
  return {
    platform: calendar.platform,
    kind: "calendar",
    calendar: calendar.calendar,
    events: calendar.events,
    catalog: {
      // The catalog is the host's own configuration, so reading it proves nothing about the
      // calendar's credential. While a calendar's last sync was refused (unauthorized) the read
      // says so, or the periodic catalog check would turn a needs_reconnection host ok and it
      // would offer its last-synced time again until the next sync failed.
      read: async () => {
        const reports = await deps.state.reports(plan.hostId);
        const refused = reports.find((r) => r.error?.code === "unauthorized");
        if (refused?.error !== undefined)
          return err({
            code: "unauthorized",
            message: `calendar ${refused.calendarId}: ${refused.error.message}`,
          });
        // A sync past its bound keeps the host degraded (with the reason) until one is not; the
        // first read answers, so the host serves what is known rather than nothing.
        const bounded = reports.find((r) => r.degraded !== undefined)?.degraded;
        if (bounded !== undefined && catalogServed)
          return err({ code: "unavailable", message: bounded.message, reason: bounded.reason });
        catalogServed = true;
        return ok(catalog);
      },
    },
    slots: { find: (q) => findStarts(setup, deps, q.serviceId, q.range, q.resourceIds) },
    bookings: ownBookings(setup, own, deps),
  };
}

/**
 * How far every calendar of the host is known: read in full, and not past a series the sync
 * cut at its bound (sync.ts); undefined while one is unread.
 */
export async function knownUntil(
  plan: CalendarHostPlan,
  state: CalendarStateStore,
): Promise<number | undefined> {
  let until = Infinity;
  for (const c of plan.calendars) {
    const s = await state.getMeta(plan.hostId, c.calendarId);
    if (s === undefined) return undefined;
    until = Math.min(until, s.readUntil, ...Object.values(s.cuts ?? {}));
  }
  return Number.isFinite(until) ? until : undefined;
}

async function findStarts(
  setup: CalendarHostSetup,
  deps: CalendarHostDeps,
  serviceId: string,
  range: Interval,
  resourceIds: readonly string[] | undefined,
): Promise<ConnectorResult<readonly UpstreamSlot[]>> {
  const { plan } = setup;
  const service = setup.services.find((s) => s.id === serviceId);
  if (service === undefined) return err({ code: "not_found", message: `no service ${serviceId}` });
  const until = await cachedReadHorizon(deps.state, plan.hostId, () => knownUntil(plan, deps.state));
  if (until === undefined) return ok([]);
  const now = deps.clock.now();
  const step = setup.granularityMs ?? DEFAULT_GRANULARITY_MS;
  const length = service.duration === "open" ? step : service.duration;
  const span = length + service.bufferAfterMs;
  const window = { start: Math.max(range.start, now), end: Math.min(range.end, until - length) };
  if (window.end <= window.start) return ok([]);
  const units = plan.units.ids.filter((id) => resourceIds === undefined || resourceIds.includes(id));
  // Within an availability query, openings' own read of the store is answered from this one.
  const occupancy = await readOccupancy(
    deps.store,
    plan.hostId,
    units,
    { start: window.start, end: window.end + span },
    now,
  );
  const working = workingIntervals(setup.hours, plan.timezone, {
    start: window.start,
    end: window.end + span,
  });
  const anchor = localMidnight(window.start, plan.timezone);
  const byStart = new Map<number, string[]>();
  for (const unit of units) {
    const busy = (occupancy.get(unit) ?? []).filter((e) => !e.agent);
    const starts = slotStarts(subtractIntervals(working, busy), {
      duration: length,
      buffer: service.bufferAfterMs,
      granularity: step,
      anchor,
      now: window.start,
    });
    for (const s of starts) {
      if (s >= window.end) break;
      const ids = byStart.get(s);
      if (ids === undefined) byStart.set(s, [unit]);
      else ids.push(unit);
    }
  }
  const slots = [...byStart.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, ids]) => ({
      serviceId,
      start,
      ...(service.duration !== "open" && { end: start + service.duration }),
      resourceIds: ids,
    }));
  return ok(slots);
}

/** Local midnight of the window's first day: the grid SchCP granularity is read on. */
function localMidnight(t: number, zone: string): number {
  const w = instantToWallClock(t, zone);
  const midnight = wallClockToInstant(
    { ...w, hour: 0, minute: 0, second: 0, millisecond: 0 },
    zone,
    "compatible",
  );
  return midnight.ok ? midnight.value : t;
}

function ownBookings(setup: CalendarHostSetup, own: OwnEventDeps, deps: CalendarHostDeps): BookingPort {
  const view = (e: OwnEvent): UpstreamBooking => ({
    upstreamId: e.eventId,
    idempotencyKey: e.idempotencyKey,
    serviceId: e.serviceId,
    start: e.start,
    end: e.end,
    resourceIds: e.resourceIds,
    status: e.status,
  });
  const serviceName = (id: string) => setup.services.find((s) => s.id === id)?.name ?? id;
  const load = async (id: string) => deps.state.getOwn(setup.plan.hostId, id);
  /** A rewrite: stored first, then tried; a failed write is the retry job's, not the caller's. */
  const rewrite = async (
    id: string,
    change: Partial<OwnEvent>,
  ): Promise<ConnectorResult<UpstreamBooking>> => {
    const current = await load(id);
    if (current === undefined) return err({ code: "not_found", message: `no booking event ${id}` });
    const next: OwnEvent = { ...current, ...change, attempts: 0 };
    const { retryAt: _r, ...desired } = next;
    await deps.state.putOwn(setup.plan.hostId, desired);
    const out = await writeOwnEvent(own, desired);
    const recorded = out.ok ? out.value : out.error.event;
    return { ...ok(view(recorded)), ...(out.upstream !== undefined && { upstream: out.upstream }) };
  };
  return {
    meetingsTentative: true,
    async create(req) {
      const eventId = ownEventId(req.idempotencyKey);
      const existing = await load(eventId);
      if (existing?.written !== undefined) return ok(view(existing));
      const end = req.end ?? req.start + DEFAULT_GRANULARITY_MS;
      const who = req.customer?.name;
      // SchCP §5.12: "Nothing is confirmed on any calendar until every member has said yes to the
      // same contract hash": a meeting member's event is TENTATIVE until the commit rewrites it
      // (meetings/commit.ts), even where the calendar said yes at once (the organizer's own,
      // a rule's, an instant business's).
      const meeting = req.meeting === true;
      const event: OwnEvent = existing ?? {
        calendarId: setup.writeCalendarId,
        eventId,
        idempotencyKey: req.idempotencyKey,
        serviceId: req.serviceId,
        start: req.start,
        end,
        resourceIds: req.resourceIds,
        summary: `${serviceName(req.serviceId)}${who === undefined ? "" : ` — ${who}`}`,
        description: [
          meeting
            ? req.awaiting === "member"
              ? "A meeting waiting for your acceptance: use the link the gateway sent you."
              : req.awaiting === "host" && req.tentative
                ? "A meeting awaiting your approval: use the link the gateway sent you."
                : "A meeting of several people: tentative until every member has said yes."
            : req.tentative
              ? "Awaiting your approval: use the link the gateway sent you."
              : undefined,
          req.partySize !== undefined && req.partySize > 1 ? `Party of ${req.partySize}.` : undefined,
          req.notes,
          "Booked through booking-gateway.",
        ]
          .filter((x) => x !== undefined)
          .join("\n"),
        status: req.tentative || meeting ? "tentative" : "confirmed",
        attempts: 0,
      };
      await deps.state.putOwn(setup.plan.hostId, event);
      const out = await writeOwnEvent(own, event);
      const meta = out.upstream !== undefined ? { upstream: out.upstream } : {};
      // The create must land: a booking is not made on a calendar the gateway could not write.
      if (!out.ok) return { ...err(asPortError(out.error.cause)), ...meta };
      // Asked only where someone here must answer: the host where it approves the booking
      // (`tentative`), a meeting member for their acceptance; never for a meeting booking nobody
      // here answers ("none", SchCP §5.12), whose event is tentative only until the commit.
      if (
        out.value.status === "tentative" &&
        (req.tentative || req.awaiting === "member") &&
        req.awaiting !== "none"
      ) {
        const guest = guestOf(req.customer);
        deps.onTentative?.(out.value, {
          ...(guest !== undefined && { guest }),
          ...(req.partySize !== undefined && { partySize: req.partySize }),
          ...(req.awaiting === "member" && { awaiting: "member" as const }),
        });
      }
      return { ...ok(view(out.value)), ...meta };
    },
    async get(id) {
      const e = await load(id);
      return e === undefined ? err({ code: "not_found", message: `no booking event ${id}` }) : ok(view(e));
    },
    async findByIdempotencyKey(key) {
      const e = await load(ownEventId(key));
      if (e === undefined) return ok(null);
      if (e.written !== undefined) return ok(view(e));
      // Written or not, the id is ours: a create again answers the event as stored.
      const out = await writeOwnEvent(own, e);
      return out.ok ? ok(view(out.value)) : err(asPortError(out.error.cause));
    },
    move: (id, change) =>
      rewrite(id, {
        start: change.start,
        end: change.end ?? change.start + DEFAULT_GRANULARITY_MS,
        resourceIds: change.resourceIds,
      }),
    cancel: (id) => rewrite(id, { status: "cancelled" }),
    setStatus: (id, status: UpstreamStatus) => rewrite(id, { status: eventStatus(status) }),
  };
}

/** Attendance (completed, no_show) leaves the event as it was: it happened, or was due to. */
function eventStatus(status: UpstreamStatus): OwnEvent["status"] {
  switch (status) {
    case "tentative":
      return "tentative";
    case "cancelled":
      return "cancelled";
    case "confirmed":
    case "completed":
    case "no_show":
    case "unknown":
      return "confirmed";
  }
}

/** The event writer's own code becomes one the platform path knows. */
function asPortError(e: ConnectorError<EventWriteErrorCode>): ConnectorError {
  return e.code === "precondition_failed" ? { ...e, code: "unavailable" } : { ...e, code: e.code };
}
