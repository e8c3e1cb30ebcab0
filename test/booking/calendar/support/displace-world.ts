/**
 * A calendar host run by the real booking core, for the displacement tests (§5.8): the
 * calendar-host connector over in-memory calendars (one per calendar id, some mapped to a
 * unit), the hold store (memory, or Redis when given), the booking service with its SchCP
 * edge (signed offers, receipts, webhooks into a recording outbox), guests booking through
 * SchCP hold + confirm, and the sync wired to displaceConflicts as the runtime wires it.
 */
import type { BookingDeps, HostConfig, HostPolicies, HostRuntime } from "../../../../src/booking/api.js";
import type { SchcpCaller } from "../../../../src/edges/schcp/caller.js";
import { storeBookingIndex } from "../../../../src/booking/bookings/booking-index.js";
import { loadBooking } from "../../../../src/booking/bookings/store.js";
import { displaceConflicts, type UnaddressedMessage } from "../../../../src/booking/calendar/displace.js";
import {
  calendarHostConnector,
  knownUntil,
  type CalendarHostSetup,
} from "../../../../src/booking/calendar/host-connector.js";
import { MemoryCalendarStateStore, type CalendarStateStore } from "../../../../src/booking/calendar/state.js";
import { syncCalendarHost } from "../../../../src/booking/calendar/sync.js";
import { unitsFor } from "../../../../src/booking/calendar/units.js";
import { createBookingService } from "../../../../src/gateway/booking-service.js";
import type { CalendarConnector, RawCalendarEvent } from "../../../../src/connectors/port.js";
import { MemoryHoldStore } from "../../../../src/holds/memory/memory-store.js";
import type { GatewayStore } from "../../../../src/holds/port.js";
import { generateEd25519KeyPair } from "../../../../src/protocol/jose/index.js";
import { offerSha256 } from "../../../../src/protocol/schcp/offer/index.js";
import { RecordingOutbox, SeqIds, TestClock, callerFor, newParty, type World } from "../../bookings/world.js";
import { MemoryCalendar } from "./memory-calendar.js";

export const H = 3_600_000;
export const MIN = 60_000;
export const HOST = "cal-studio";
export const ZONE = "Europe/Madrid";
/** Monday 2026-12-07 07:00 in Madrid. */
export const NOW = Date.parse("2026-12-07T06:00:00Z");
/** Tuesday 2026-12-08 at hh:mm in Madrid (UTC+1). */
export const tue = (hhmm: string) => Date.parse(`2026-12-08T${hhmm}:00+01:00`);
export const HOOK = "https://agent.example/hooks/schcp";

const policies: HostPolicies = {
  holds: {
    maxTtlMs: 10 * MIN,
    maxActivePerAgent: 10,
    requiresMandate: true,
    maxActiveUnproven: 50,
    maxActivePerAttester: 50,
  },
  confirmation: "instant",
  closedMandate: "never",
  retention: "P365D",
  access: "public",
  approvalTimeoutMs: 2 * H,
  allowWildcardAudience: false,
  horizonMs: 31 * 24 * H,
};

export interface DisplaceWorldOptions {
  readonly units?: number;
  /** Calendars besides "main" (unmapped, where the gateway writes): each mapped to a unit. */
  readonly mapped?: readonly string[];
  readonly store?: GatewayStore;
  readonly state?: CalendarStateStore;
  readonly hostId?: string;
  /** A real calendar (a connector and its calendar id) in place of the in-memory "main". */
  readonly main?: { readonly connector: CalendarConnector; readonly calendarId: string };
  /** The host's confirmation policy (default instant). */
  readonly confirmation?: HostPolicies["confirmation"];
}

/** A busy event in one calendar, Tuesday local times. */
export function busy(eventId: string, from: string, to: string): Omit<RawCalendarEvent, "etag"> {
  return {
    uid: `${eventId}@example`,
    eventId,
    start: { dateTime: `2026-12-08T${from}:00`, zone: ZONE },
    end: { dateTime: `2026-12-08T${to}:00`, zone: ZONE },
    status: "confirmed",
    transparency: "opaque",
  };
}

export function displaceWorld(opts: DisplaceWorldOptions = {}) {
  const hostId = opts.hostId ?? HOST;
  const clock = new TestClock(NOW);
  const store = opts.store ?? new MemoryHoldStore({ clock });
  const state = opts.state ?? new MemoryCalendarStateStore();
  const units = unitsFor({ resourceType: "chair", units: opts.units ?? 2 });
  const calendars = new Map<string, MemoryCalendar>([["main", new MemoryCalendar()]]);
  for (const unit of opts.mapped ?? []) calendars.set(`${unit}-cal`, new MemoryCalendar());
  const main = calendars.get("main") as MemoryCalendar;
  const mainId = opts.main?.calendarId ?? "main";
  // One connector over several calendars: sync by calendar id, writes to "main".
  const connector: CalendarConnector = opts.main?.connector ?? {
    ...main.connector(),
    calendar: {
      sync: (r) => {
        const cal = calendars.get(r.calendarId);
        if (cal === undefined) throw new Error(`no calendar ${r.calendarId}`);
        return cal.connector().calendar.sync(r);
      },
    },
  };
  const setup: CalendarHostSetup = {
    plan: {
      hostId,
      timezone: ZONE,
      units,
      calendars: [
        { calendarId: mainId },
        ...(opts.mapped ?? []).map((unit) => ({ calendarId: `${unit}-cal`, resourceId: unit })),
      ],
      horizonMs: 31 * 24 * H,
    },
    writeCalendarId: mainId,
    organization: { id: hostId, name: "Ana's studio", timezone: ZONE, currency: "EUR" },
    services: [
      {
        id: "cut",
        name: "Haircut",
        duration: 45 * MIN,
        bufferAfterMs: 15 * MIN,
        price: { minor: 2000, currency: "EUR" },
        requires: [{ resourceType: "chair" }],
      },
    ],
    hours: ([1, 2, 3, 4, 5] as const).map((day) => ({ day, open: "09:00", close: "17:00" })),
    granularityMs: 30 * MIN,
  };
  const platform = calendarHostConnector(connector, setup, { store, state, clock });
  const config: HostConfig = {
    id: hostId,
    name: "Ana's studio",
    kind: "business",
    timezone: ZONE,
    domain: null,
    connector: { type: "memory-calendar", settings: {} },
    policies: { ...policies, confirmation: opts.confirmation ?? policies.confirmation },
    // The guest may choose a chair (§4.1 selectable), or leave it to the host.
    services: [{ serviceId: "cut", selectable: true }],
  };
  const kp = generateEd25519KeyPair();
  let catalog: HostRuntime["catalog"] | undefined;
  const runtime: HostRuntime = {
    config,
    connector: platform,
    get catalog() {
      if (catalog === undefined) throw new Error("catalog not read");
      return catalog;
    },
    keys: [{ kid: `${hostId}-2026-12`, privateKey: kp.privateKey, publicJwk: kp.publicJwk }],
    availabilityKnownUntil: () => knownUntil(setup.plan, state),
  };
  const outbox = new RecordingOutbox();
  const deps: BookingDeps = {
    hosts: { get: (id) => (id === hostId ? runtime : undefined), list: () => [runtime] },
    store,
    clock,
    ids: new SeqIds(),
    outbox,
    bookingIndex: storeBookingIndex(store),
  };
  const service = createBookingService(deps);
  const told: UnaddressedMessage[] = [];

  const sync = async () => {
    const reports = await syncCalendarHost(
      {
        sync: connector.calendar,
        state,
        store,
        clock,
        displace: (conflicts) =>
          displaceConflicts(
            {
              store,
              state,
              clock,
              plan: setup.plan,
              host: runtime,
              propose: (h, b, input) => service.propose(h, b, input),
              declineMeeting: async (h, b, start) =>
                (await service.declineBusyMeeting?.(h, b, start)) ?? { ok: false },
              tellHost: (n) => told.push(n),
            },
            conflicts,
          ),
      },
      setup.plan,
    );
    const report = reports[0];
    if (report === undefined || reports.some((r) => r.outcome !== "complete"))
      throw new Error(`sync incomplete: ${JSON.stringify(reports)}`);
    return report;
  };

  /** A guest books through SchCP (hold, then confirm), with a chosen chair or without. */
  const book = async (start: number, resource?: string) => {
    const party = newParty();
    const caller: SchcpCaller = await callerFor({ clock } as unknown as World, party, { hostId });
    const hold = await service.placeHold(hostId, caller, {
      idempotency_key: `h-${start}-${resource ?? "any"}`,
      service_id: "cut",
      start: new Date(start).toISOString(),
      callback_url: HOOK,
      ...(resource !== undefined && { resource }),
    });
    if (!hold.ok) throw new Error(`hold: ${JSON.stringify(hold.error)}`);
    const confirmed = await service.confirm(hostId, caller, hold.value.hold_id, {
      idempotency_key: `c-${hold.value.hold_id}`,
      offer_sha256: offerSha256(hold.value.offer),
    });
    if (!confirmed.ok) throw new Error(`confirm: ${JSON.stringify(confirmed.error)}`);
    return { caller, bookingId: confirmed.value.body.booking.booking_id };
  };

  const bookingState = async (bookingId: string) => {
    const loaded = await loadBooking(store, hostId, bookingId);
    if (loaded === undefined) throw new Error(`no booking ${bookingId}`);
    return { record: loaded.record, state: loaded.state };
  };

  /** Every pair of active bookings that share a unit's time (must be none). */
  const doubleBooked = async () => {
    const byUnit = new Map<string, Array<{ id: string; start: number; end: number }>>();
    for (const id of await store.listBookingIds(hostId, 1_000)) {
      const b = await store.getBooking(hostId, id);
      if (b?.state !== "active") continue;
      for (const a of b.allocations)
        byUnit.set(a.resourceId, [...(byUnit.get(a.resourceId) ?? []), { id, ...b.interval }]);
    }
    const clashes: string[] = [];
    for (const [unit, list] of byUnit) {
      for (const a of list)
        for (const b of list)
          if (a.id < b.id && a.start < b.end && b.start < a.end) clashes.push(`${unit}: ${a.id} ${b.id}`);
    }
    return clashes;
  };

  return {
    hostId,
    clock,
    store,
    state,
    calendars,
    main,
    calendar: (id: string) => calendars.get(id) as MemoryCalendar,
    runtime,
    deps,
    service,
    outbox,
    told,
    sync,
    book,
    bookingState,
    doubleBooked,
    /** Reads the catalog (as the runtime does at start) and syncs once so time is known. */
    async start() {
      const read = await platform.catalog.read();
      if (!read.ok) throw new Error("catalog");
      catalog = read.value;
      return sync();
    },
  };
}

export type DisplaceWorld = ReturnType<typeof displaceWorld>;
