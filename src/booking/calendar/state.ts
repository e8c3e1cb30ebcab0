/**
 * What the gateway keeps of each host calendar between syncs (issue #11): the calendar's
 * events as it last read them (recurrence NOT expanded: a changed exception re-expands its
 * series, so the series must be at hand), the cursor of the next incremental sync, how far
 * the calendar was read in full, the last sync's report, the events the gateway itself
 * wrote (their ids and versions, and the state each should reach), and what was done about
 * each booking the calendar displaced (displace.ts).
 *
 * Memory for the embedded default; Redis (one JSON value per calendar, under the gateway's
 * key prefix) so every process sees one copy. A state is replaced whole after a sync that
 * completed: a sync that stopped part way leaves the previous state, and its busy time, as
 * they were (§10).
 */
import type { RedisClient } from "../../redis/client.js";
import type { RawCalendarEvent } from "../../connectors/port.js";

export interface CalendarSyncState {
  /** The cursor of the next incremental sync (absent: the next sync is a full one). */
  readonly cursor?: string;
  /** Epoch ms up to which the calendar was read in full; nothing later is offered. */
  readonly readUntil: number;
  /** When the last full sync completed (the horizon moves with a new full sync). */
  readonly fullSyncAt: number;
  /**
   * The calendar's events by the upstream's event id. One id may carry several events: a
   * CalDAV resource holds a series master and its RECURRENCE-ID overrides, and a change to the
   * resource replaces all of them (src/connectors/ports/calendar-sync.ts).
   */
  readonly events: Readonly<Record<string, readonly RawCalendarEvent[]>>;
}

export type SyncOutcome = "complete" | "incomplete";

/** One sync's outcome, for the logs and the operator API. */
export interface SyncReport {
  readonly hostId: string;
  readonly calendarId: string;
  readonly at: number;
  readonly kind: "full" | "incremental";
  readonly outcome: SyncOutcome;
  readonly pages: number;
  /** Events known after the sync (series counted once). */
  readonly events: number;
  /** Busy occurrences laid on the units (complete syncs). */
  readonly busy?: number;
  readonly readUntil?: number;
  /**
   * Why the sync is incomplete: the upstream's error code and message, or the expansion bound;
   * `reason` when the calendar's answer broke one of the gateway's bounds (upstream_too_large:
   * over the byte cap; upstream_too_costly: too costly to parse).
   */
  readonly error?: { readonly code: string; readonly message: string; readonly reason?: string };
  /**
   * The gateway's holds or bookings whose time the calendar now shows busy on their unit, with
   * every unit taken then, and what became of each (§5.8 displaced bookings, displace.ts).
   */
  readonly conflicts?: readonly SyncConflict[];
  /** The sync started over from a full read because the upstream refused the cursor. */
  readonly restarted?: boolean;
  readonly durationMs: number;
}

/**
 * What became of a conflict (SchCP §5.8 "Displaced bookings"): the booking moved to another
 * free unit at the same time, a host change offer of the nearest other time, or unresolved
 * and reported to the host. "hold": a live hold (or a booking the scan did not reach), left
 * as it is; a hold that is confirmed there is displaced by the next sync.
 */
export type ConflictOutcome = "moved" | "change_offered" | "unresolved" | "hold";

export interface SyncConflict {
  readonly resourceId: string;
  readonly start: number;
  readonly end: number;
  readonly bookingId?: string;
  /** Absent when the sync ran without displacement (the outcome is then the host's to find). */
  readonly outcome?: ConflictOutcome;
  /** moved: the unit the booking now has. */
  readonly movedTo?: string;
  /** change_offered: the host's proposal, open until the booking would have started. */
  readonly proposal?: { readonly proposalId: string; readonly start: number; readonly expiresAt: number };
  /** unresolved: why ("no_free_time", "offer_not_accepted", "awaiting_approval", …). */
  readonly reason?: string;
  /** When this booking's conflict was first seen (repeated syncs keep it). */
  readonly since?: number;
}

/**
 * What the displacement remembers of a booking in conflict between syncs, so a repeated sync
 * neither offers the guest a second change nor messages the host twice (displace.ts).
 */
export interface DisplacementRecord {
  readonly bookingId: string;
  /** The booking's start when it was displaced: a booking that moved since is a new case. */
  readonly start: number;
  readonly outcome: ConflictOutcome;
  readonly since: number;
  /** The host change offer made for it, if one was (never a second one). */
  readonly proposalId?: string;
  /** The host was told it is unresolved, with this reason. */
  readonly notified?: string;
}

/** An event the gateway wrote for one of its bookings, and the state it must reach. */
export interface OwnEvent {
  readonly calendarId: string;
  /** The id the gateway chose (derived from the booking's upstream idempotency key). */
  readonly eventId: string;
  /** The upstream's id, when it differs (Microsoft Graph). */
  readonly upstreamEventId?: string;
  readonly idempotencyKey: string;
  readonly serviceId: string;
  readonly start: number;
  readonly end: number;
  readonly resourceIds: readonly string[];
  readonly summary: string;
  readonly description?: string;
  /** What the event should say now. */
  readonly status: "tentative" | "confirmed" | "cancelled";
  /** The version last written; absent until the first write landed. */
  readonly etag?: string;
  /** The status the calendar holds (the last write that landed). */
  readonly written?: "tentative" | "confirmed" | "cancelled";
  /** Failed writes since the last one that landed, and when to try again. */
  readonly attempts: number;
  readonly retryAt?: number;
  readonly lastError?: string;
}

export interface CalendarStateStore {
  get(hostId: string, calendarId: string): Promise<CalendarSyncState | undefined>;
  put(hostId: string, calendarId: string, state: CalendarSyncState): Promise<void>;
  putReport(report: SyncReport): Promise<void>;
  reports(hostId: string): Promise<readonly SyncReport[]>;
  getOwn(hostId: string, eventId: string): Promise<OwnEvent | undefined>;
  putOwn(hostId: string, event: OwnEvent): Promise<void>;
  /** Own events whose calendar copy lags (written ≠ status), for the retry job. */
  pendingOwn(hostId: string): Promise<readonly OwnEvent[]>;
  /** Ids of every own event of a host (the sync leaves them out of busy time). */
  ownIds(hostId: string): Promise<ReadonlySet<string>>;
  /** The host's bookings in conflict as the last displacement left them, by booking id. */
  displacements(hostId: string): Promise<Readonly<Record<string, DisplacementRecord>>>;
  /** Replaces them whole (a booking no longer in conflict is forgotten). */
  putDisplacements(hostId: string, records: Readonly<Record<string, DisplacementRecord>>): Promise<void>;
}

const lags = (e: OwnEvent) => e.written !== e.status;

export interface MemoryCalendarState {
  readonly states: ReadonlyMap<string, CalendarSyncState>;
  readonly reports: ReadonlyMap<string, Map<string, SyncReport>>;
  readonly own: ReadonlyMap<string, Map<string, OwnEvent>>;
  readonly displaced: ReadonlyMap<string, Readonly<Record<string, DisplacementRecord>>>;
}

export class MemoryCalendarStateStore implements CalendarStateStore {
  readonly #states = new Map<string, CalendarSyncState>();
  readonly #reports = new Map<string, Map<string, SyncReport>>();
  readonly #own = new Map<string, Map<string, OwnEvent>>();
  readonly #displaced = new Map<string, Readonly<Record<string, DisplacementRecord>>>();

  /** Every map (of plain records), for a process that keeps them in a file between runs. */
  exportState(): MemoryCalendarState {
    return { states: this.#states, reports: this.#reports, own: this.#own, displaced: this.#displaced };
  }

  /** Replaces everything with a snapshot exportState made. */
  importState(state: MemoryCalendarState): void {
    const refill = <V>(target: Map<string, V>, from: ReadonlyMap<string, V>) => {
      target.clear();
      for (const [k, v] of from) target.set(k, v);
    };
    refill(this.#states, state.states);
    refill(this.#reports, state.reports);
    refill(this.#own, state.own);
    refill(this.#displaced, state.displaced);
  }

  get(hostId: string, calendarId: string): Promise<CalendarSyncState | undefined> {
    return Promise.resolve(this.#states.get(`${hostId}\u0000${calendarId}`));
  }
  put(hostId: string, calendarId: string, state: CalendarSyncState): Promise<void> {
    this.#states.set(`${hostId}\u0000${calendarId}`, state);
    return Promise.resolve();
  }
  putReport(report: SyncReport): Promise<void> {
    const host = this.#reports.get(report.hostId) ?? new Map<string, SyncReport>();
    host.set(report.calendarId, report);
    this.#reports.set(report.hostId, host);
    return Promise.resolve();
  }
  reports(hostId: string): Promise<readonly SyncReport[]> {
    return Promise.resolve([...(this.#reports.get(hostId)?.values() ?? [])]);
  }
  getOwn(hostId: string, eventId: string): Promise<OwnEvent | undefined> {
    return Promise.resolve(this.#own.get(hostId)?.get(eventId));
  }
  putOwn(hostId: string, event: OwnEvent): Promise<void> {
    const host = this.#own.get(hostId) ?? new Map<string, OwnEvent>();
    host.set(event.eventId, event);
    this.#own.set(hostId, host);
    return Promise.resolve();
  }
  pendingOwn(hostId: string): Promise<readonly OwnEvent[]> {
    return Promise.resolve([...(this.#own.get(hostId)?.values() ?? [])].filter(lags));
  }
  ownIds(hostId: string): Promise<ReadonlySet<string>> {
    return Promise.resolve(new Set(ownIdsOf([...(this.#own.get(hostId)?.values() ?? [])])));
  }
  displacements(hostId: string): Promise<Readonly<Record<string, DisplacementRecord>>> {
    return Promise.resolve(this.#displaced.get(hostId) ?? {});
  }
  putDisplacements(hostId: string, records: Readonly<Record<string, DisplacementRecord>>): Promise<void> {
    this.#displaced.set(hostId, { ...records });
    return Promise.resolve();
  }
}

function ownIdsOf(events: readonly OwnEvent[]): string[] {
  return events.flatMap((e) =>
    e.upstreamEventId === undefined ? [e.eventId] : [e.eventId, e.upstreamEventId],
  );
}

/**
 * Redis: `<prefix>cal:state:<host>:<calendar>` (JSON), `<prefix>cal:reports:<host>` (hash by
 * calendar), `<prefix>cal:own:<host>` (hash by event id), `<prefix>cal:displaced:<host>` (JSON). A state is one SET, so a reader sees
 * the old sync or the new one, never half of each.
 */
export class RedisCalendarStateStore implements CalendarStateStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async get(hostId: string, calendarId: string): Promise<CalendarSyncState | undefined> {
    const raw = await this.redis.get(this.#key("state", hostId, calendarId));
    return raw === null ? undefined : (JSON.parse(raw) as CalendarSyncState);
  }
  async put(hostId: string, calendarId: string, state: CalendarSyncState): Promise<void> {
    await this.redis.set(this.#key("state", hostId, calendarId), JSON.stringify(state));
  }
  async putReport(report: SyncReport): Promise<void> {
    await this.redis.hset(this.#key("reports", report.hostId), report.calendarId, JSON.stringify(report));
  }
  async reports(hostId: string): Promise<readonly SyncReport[]> {
    const all = await this.redis.hvals(this.#key("reports", hostId));
    return all.map((r) => JSON.parse(r) as SyncReport);
  }
  async getOwn(hostId: string, eventId: string): Promise<OwnEvent | undefined> {
    const raw = await this.redis.hget(this.#key("own", hostId), eventId);
    return raw === null ? undefined : (JSON.parse(raw) as OwnEvent);
  }
  async putOwn(hostId: string, event: OwnEvent): Promise<void> {
    await this.redis.hset(this.#key("own", hostId), event.eventId, JSON.stringify(event));
  }
  async pendingOwn(hostId: string): Promise<readonly OwnEvent[]> {
    return (await this.#allOwn(hostId)).filter(lags);
  }
  async ownIds(hostId: string): Promise<ReadonlySet<string>> {
    return new Set(ownIdsOf(await this.#allOwn(hostId)));
  }
  async displacements(hostId: string): Promise<Readonly<Record<string, DisplacementRecord>>> {
    const raw = await this.redis.get(this.#key("displaced", hostId));
    return raw === null ? {} : (JSON.parse(raw) as Record<string, DisplacementRecord>);
  }
  async putDisplacements(
    hostId: string,
    records: Readonly<Record<string, DisplacementRecord>>,
  ): Promise<void> {
    await this.redis.set(this.#key("displaced", hostId), JSON.stringify(records));
  }

  async #allOwn(hostId: string): Promise<OwnEvent[]> {
    const all = await this.redis.hvals(this.#key("own", hostId));
    return all.map((r) => JSON.parse(r) as OwnEvent);
  }

  #key(kind: string, hostId: string, calendarId?: string): string {
    const base = `${this.prefix}cal:${kind}:${encodeURIComponent(hostId)}`;
    return calendarId === undefined ? base : `${base}:${encodeURIComponent(calendarId)}`;
  }
}
