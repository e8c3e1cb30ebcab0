/**
 * What the gateway keeps of each host calendar between syncs: the calendar's
 * events as it last read them (recurrence NOT expanded: a changed exception re-expands its
 * series, so the series must be at hand), the cursor of the next incremental sync, how far
 * the calendar was read in full, the last sync's report, the events the gateway itself
 * wrote (their ids and versions, and the state each should reach), and what was done about
 * each booking the calendar displaced (displace.ts).
 *
 * Kept per event, so a sync costs what changed: a calendar's meta (cursor, readUntil), its
 * events by event id, its series by UID (the event ids under the UID and the busy time the
 * series expanded to) and its busy occurrences by host-local day (what laying a day on the units
 * needs). A sync writes the fields it changed in one step (a Redis MULTI over one slot), so a
 * reader sees the old sync or the new one; a sync that stopped part way writes nothing (§10).
 *
 * Memory for the embedded default; Redis (hashes under the gateway's key prefix) so every
 * process sees one copy. State in the earlier format (the whole calendar in one JSON value) is
 * read and migrated on first read: its events are kept and `rebuild` asks the next sync to
 * index them again.
 */
import type { RedisClient } from "../../redis/client.js";
import { hashTag, redisKeys, type RedisKeyspace } from "../../redis/keys.js";
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

/** A calendar's sync state without its events (what every sync reads). */
export interface CalendarSyncMeta {
  readonly cursor?: string;
  readonly readUntil: number;
  readonly fullSyncAt: number;
  /** The series and days are not indexed (migrated or written whole): the next sync indexes them. */
  readonly rebuild?: boolean;
  /** Series cut at their bound, by UID: where each stops being known. */
  readonly cuts?: Readonly<Record<string, number>>;
  /** Event ids, busy occurrences and skipped (unreadable) events stored (for the report). */
  readonly events?: number;
  readonly busy?: number;
  readonly skipped?: number;
  /** The zone whose local days index `days` (the host's). */
  readonly zone?: string;
}

/** One series (a UID) as last expanded: its event ids and its busy occurrences. */
export interface SeriesRecord {
  readonly ids: readonly string[];
  readonly busy: ReadonlyArray<readonly [number, number]>;
  /** Its expansion stopped at its bound: nothing from here on is known. */
  readonly truncatedAt?: number;
  /** Its events that could not be read (or the series, when it could not be expanded). */
  readonly skipped?: number;
}

/** The busy occurrences overlapping one host-local day (local-days.ts): [start, end, uid]. */
export type DayRecord = ReadonlyArray<readonly [number, number, string]>;

/** What one sync changes in a calendar's state (null deletes a field). */
export interface CalendarChange {
  readonly meta: CalendarSyncMeta;
  /** Everything that was stored goes first (a full sync). */
  readonly reset: boolean;
  readonly events: ReadonlyMap<string, readonly RawCalendarEvent[] | null>;
  readonly series: ReadonlyMap<string, SeriesRecord | null>;
  readonly days: ReadonlyMap<number, DayRecord | null>;
}

/** What the last syncs laid on a host's units: the local days written, and their conflicts. */
export interface HostLayout {
  /** The zone of those days (a layout of another zone, or none, is laid again whole). */
  readonly zone?: string;
  readonly days: readonly number[];
  readonly conflicts: Readonly<Record<string, readonly SyncConflict[]>>;
}

type SyncOutcome = "complete" | "incomplete";

/** One sync's outcome, for the logs and the operator API. */
export interface SyncReport {
  readonly hostId: string;
  readonly calendarId: string;
  readonly at: number;
  readonly kind: "full" | "incremental";
  readonly outcome: SyncOutcome;
  /**
   * When the calendar was last read through (the start of its last complete sync): `at` when
   * this one completed, else carried over from the report before it; absent until one has. The
   * operator's metrics read the host's sync lag from it.
   */
  readonly lastCompleteAt?: number;
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
  /**
   * The busy time was laid, but a bound cut the expansion (a series past its bound, a day with
   * more occurrences than the sync expands): the host is degraded with this reason, and serves
   * what is known (a day past its bound is busy, nothing past a cut series is offered).
   */
  readonly degraded?: { readonly reason: "expansion_bound"; readonly message: string };
  /**
   * Laid syncs: false when something was left out (a skipped event, a bound), true when every
   * event was expanded in full.
   */
  readonly complete?: boolean;
  /** Events that could not be read or expanded: skipped and logged, the rest laid. */
  readonly skipped?: number;
  readonly durationMs: number;
}

/**
 * What became of a conflict (SchCP §5.8 "Displaced bookings"): the booking moved to another
 * free unit at the same time, a host change offer of the nearest other time, or unresolved
 * and reported to the host; "declined": a meeting member's booking before commit, declined by
 * the calendar (§5.12, displace-meeting.ts). "hold": a live hold (or a booking the scan did not reach), left
 * as it is; a hold that is confirmed there is displaced by the next sync.
 */
type ConflictOutcome = "moved" | "change_offered" | "declined" | "unresolved" | "hold";

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
  /** The whole state (meta and every event); for tools and tests, not the sync. */
  get(hostId: string, calendarId: string): Promise<CalendarSyncState | undefined>;
  /** Replaces the whole state; the next sync indexes it again. */
  put(hostId: string, calendarId: string, state: CalendarSyncState): Promise<void>;
  /** The meta, migrating a state of the earlier format on the way. */
  getMeta(hostId: string, calendarId: string): Promise<CalendarSyncMeta | undefined>;
  getEvents(
    hostId: string,
    calendarId: string,
    ids: readonly string[],
  ): Promise<ReadonlyMap<string, readonly RawCalendarEvent[]>>;
  /** Every event id (a full sync's removals, a rebuild). */
  eventIds(hostId: string, calendarId: string): Promise<readonly string[]>;
  getSeries(
    hostId: string,
    calendarId: string,
    uids: readonly string[],
  ): Promise<ReadonlyMap<string, SeriesRecord>>;
  getDays(
    hostId: string,
    calendarId: string,
    days: readonly number[],
  ): Promise<ReadonlyMap<number, DayRecord>>;
  /** Writes one sync's changes in one step. */
  commit(hostId: string, calendarId: string, change: CalendarChange): Promise<void>;
  layout(hostId: string): Promise<HostLayout | undefined>;
  putLayout(hostId: string, layout: HostLayout): Promise<void>;
  putReport(report: SyncReport): Promise<void>;
  reports(hostId: string): Promise<readonly SyncReport[]>;
  getOwn(hostId: string, eventId: string): Promise<OwnEvent | undefined>;
  putOwn(hostId: string, event: OwnEvent): Promise<void>;
  /** Own events whose calendar copy lags (written ≠ status), for the retry job. */
  pendingOwn(hostId: string): Promise<readonly OwnEvent[]>;
  /** Ids of every own event of a host. */
  ownIds(hostId: string): Promise<ReadonlySet<string>>;
  /** Which of these event ids are the gateway's own (the sync leaves them out of busy time). */
  ownAmong(hostId: string, ids: readonly string[]): Promise<ReadonlySet<string>>;
  /** The host's bookings in conflict as the last displacement left them, by booking id. */
  displacements(hostId: string): Promise<Readonly<Record<string, DisplacementRecord>>>;
  /** Replaces them whole (a booking no longer in conflict is forgotten). */
  putDisplacements(hostId: string, records: Readonly<Record<string, DisplacementRecord>>): Promise<void>;
}

const lags = (e: OwnEvent) => e.written !== e.status;

interface MemoryCalendar {
  meta: CalendarSyncMeta;
  readonly events: Map<string, readonly RawCalendarEvent[]>;
  readonly series: Map<string, SeriesRecord>;
  readonly days: Map<number, DayRecord>;
}

export interface MemoryCalendarState {
  /** The earlier format (one state per calendar), read by importState and migrated. */
  readonly states?: ReadonlyMap<string, CalendarSyncState>;
  readonly calendars?: ReadonlyMap<string, MemoryCalendar>;
  readonly layouts?: ReadonlyMap<string, HostLayout>;
  readonly reports: ReadonlyMap<string, Map<string, SyncReport>>;
  readonly own: ReadonlyMap<string, Map<string, OwnEvent>>;
  readonly displaced: ReadonlyMap<string, Readonly<Record<string, DisplacementRecord>>>;
}

const whole = (s: CalendarSyncState): MemoryCalendar => ({
  meta: {
    ...(s.cursor !== undefined && { cursor: s.cursor }),
    readUntil: s.readUntil,
    fullSyncAt: s.fullSyncAt,
    rebuild: true,
  },
  events: new Map(Object.entries(s.events)),
  series: new Map(),
  days: new Map(),
});

const asState = (c: MemoryCalendar | undefined): CalendarSyncState | undefined =>
  c === undefined
    ? undefined
    : {
        ...(c.meta.cursor !== undefined && { cursor: c.meta.cursor }),
        readUntil: c.meta.readUntil,
        fullSyncAt: c.meta.fullSyncAt,
        events: Object.fromEntries(c.events),
      };

function pick<K, V>(from: ReadonlyMap<K, V> | undefined, keys: readonly K[]): Map<K, V> {
  const out = new Map<K, V>();
  for (const k of keys) {
    const v = from?.get(k);
    if (v !== undefined) out.set(k, v);
  }
  return out;
}

export class MemoryCalendarStateStore implements CalendarStateStore {
  readonly #calendars = new Map<string, MemoryCalendar>();
  readonly #layouts = new Map<string, HostLayout>();
  readonly #reports = new Map<string, Map<string, SyncReport>>();
  readonly #own = new Map<string, Map<string, OwnEvent>>();
  readonly #displaced = new Map<string, Readonly<Record<string, DisplacementRecord>>>();

  /** Every map (of plain records), for a process that keeps them in a file between runs. */
  exportState(): MemoryCalendarState {
    return {
      calendars: this.#calendars,
      layouts: this.#layouts,
      reports: this.#reports,
      own: this.#own,
      displaced: this.#displaced,
    };
  }

  /** Replaces everything with a snapshot exportState made (the earlier format's too). */
  importState(state: MemoryCalendarState): void {
    const refill = <V>(target: Map<string, V>, from: ReadonlyMap<string, V> | undefined) => {
      target.clear();
      for (const [k, v] of from ?? []) target.set(k, v);
    };
    refill(this.#calendars, state.calendars);
    for (const [k, s] of state.states ?? []) if (!this.#calendars.has(k)) this.#calendars.set(k, whole(s));
    refill(this.#layouts, state.layouts);
    refill(this.#reports, state.reports);
    refill(this.#own, state.own);
    refill(this.#displaced, state.displaced);
  }

  #cal(hostId: string, calendarId: string): MemoryCalendar | undefined {
    return this.#calendars.get(`${hostId}\u0000${calendarId}`);
  }

  get(hostId: string, calendarId: string): Promise<CalendarSyncState | undefined> {
    return Promise.resolve(asState(this.#cal(hostId, calendarId)));
  }
  put(hostId: string, calendarId: string, state: CalendarSyncState): Promise<void> {
    this.#calendars.set(`${hostId}\u0000${calendarId}`, whole(state));
    return Promise.resolve();
  }
  getMeta(hostId: string, calendarId: string): Promise<CalendarSyncMeta | undefined> {
    return Promise.resolve(this.#cal(hostId, calendarId)?.meta);
  }
  getEvents(hostId: string, calendarId: string, ids: readonly string[]) {
    return Promise.resolve(pick(this.#cal(hostId, calendarId)?.events, ids));
  }
  eventIds(hostId: string, calendarId: string): Promise<readonly string[]> {
    return Promise.resolve([...(this.#cal(hostId, calendarId)?.events.keys() ?? [])]);
  }
  getSeries(hostId: string, calendarId: string, uids: readonly string[]) {
    return Promise.resolve(pick(this.#cal(hostId, calendarId)?.series, uids));
  }
  getDays(hostId: string, calendarId: string, days: readonly number[]) {
    return Promise.resolve(pick(this.#cal(hostId, calendarId)?.days, days));
  }
  commit(hostId: string, calendarId: string, change: CalendarChange): Promise<void> {
    const key = `${hostId}\u0000${calendarId}`;
    const before = this.#calendars.get(key);
    const c: MemoryCalendar =
      before === undefined || change.reset
        ? { meta: change.meta, events: new Map(), series: new Map(), days: new Map() }
        : before;
    c.meta = change.meta;
    const apply = <K, V>(target: Map<K, V>, from: ReadonlyMap<K, V | null>) => {
      for (const [k, v] of from) {
        if (v === null) target.delete(k);
        else target.set(k, v);
      }
    };
    apply(c.events, change.events);
    apply(c.series, change.series);
    apply(c.days, change.days);
    this.#calendars.set(key, c);
    return Promise.resolve();
  }
  layout(hostId: string): Promise<HostLayout | undefined> {
    return Promise.resolve(this.#layouts.get(hostId));
  }
  putLayout(hostId: string, layout: HostLayout): Promise<void> {
    this.#layouts.set(hostId, layout);
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
  ownAmong(hostId: string, ids: readonly string[]): Promise<ReadonlySet<string>> {
    const own = this.#own.get(hostId);
    if (own === undefined || ids.length === 0) return Promise.resolve(new Set());
    const wanted = new Set(ids);
    const found = new Set(ids.filter((id) => own.has(id)));
    // Microsoft names its events itself: those are found by the id it gave.
    for (const e of own.values())
      if (e.upstreamEventId !== undefined && wanted.has(e.upstreamEventId)) found.add(e.upstreamEventId);
    return Promise.resolve(found);
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
 * Redis. Per calendar, in one slot (hash tag of host and calendar) so a sync's changes are one
 * MULTI: `<prefix>cal2:{<host>:<calendar>}:meta` (JSON), `…:ev` (hash by event id), `…:series`
 * (hash by UID), `…:days` (hash by host-local day). Per host: `<prefix>cal:layout:<host>` (JSON),
 * `<prefix>cal:reports:<host>` (hash by calendar), `<prefix>cal:own:<host>` (hash by event
 * id), `<prefix>cal:ownids:<host>` (set of own event ids, upstream ids included; built from
 * the own hash once, marked by `<prefix>cal:ownids-built:<host>`), `<prefix>cal:displaced:<host>`
 * (JSON). The earlier format, `<prefix>cal:state:<host>:<calendar>` (JSON), is migrated by
 * the first getMeta and then deleted.
 */
export class RedisCalendarStateStore implements CalendarStateStore {
  readonly #keys: RedisKeyspace;
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async get(hostId: string, calendarId: string): Promise<CalendarSyncState | undefined> {
    const meta = await this.getMeta(hostId, calendarId);
    if (meta === undefined) return undefined;
    const all = await this.redis.hgetall(this.#cal(hostId, calendarId, "ev"));
    const events = Object.fromEntries(
      Object.entries(all).map(([id, raw]) => [id, JSON.parse(raw) as RawCalendarEvent[]]),
    );
    return {
      ...(meta.cursor !== undefined && { cursor: meta.cursor }),
      readUntil: meta.readUntil,
      fullSyncAt: meta.fullSyncAt,
      events,
    };
  }
  async put(hostId: string, calendarId: string, state: CalendarSyncState): Promise<void> {
    await this.#putWhole(hostId, calendarId, state);
  }
  async getMeta(hostId: string, calendarId: string): Promise<CalendarSyncMeta | undefined> {
    const raw = await this.redis.get(this.#cal(hostId, calendarId, "meta"));
    if (raw !== null) return JSON.parse(raw) as CalendarSyncMeta;
    const legacyKey = this.#key("state", hostId, calendarId);
    const legacy = await this.redis.get(legacyKey);
    if (legacy === null) return undefined;
    const state = JSON.parse(legacy) as CalendarSyncState;
    const meta = await this.#putWhole(hostId, calendarId, state);
    await this.redis.del(legacyKey);
    return meta;
  }
  async getEvents(hostId: string, calendarId: string, ids: readonly string[]) {
    const out = new Map<string, readonly RawCalendarEvent[]>();
    if (ids.length === 0) return out;
    const raws = await this.redis.hmget(this.#cal(hostId, calendarId, "ev"), ...ids);
    ids.forEach((id, i) => {
      const raw = raws[i];
      if (raw !== null && raw !== undefined) out.set(id, JSON.parse(raw) as RawCalendarEvent[]);
    });
    return out;
  }
  eventIds(hostId: string, calendarId: string): Promise<readonly string[]> {
    return this.redis.hkeys(this.#cal(hostId, calendarId, "ev"));
  }
  async getSeries(hostId: string, calendarId: string, uids: readonly string[]) {
    const out = new Map<string, SeriesRecord>();
    if (uids.length === 0) return out;
    const raws = await this.redis.hmget(this.#cal(hostId, calendarId, "series"), ...uids);
    uids.forEach((uid, i) => {
      const raw = raws[i];
      if (raw !== null && raw !== undefined) out.set(uid, JSON.parse(raw) as SeriesRecord);
    });
    return out;
  }
  async getDays(hostId: string, calendarId: string, days: readonly number[]) {
    const out = new Map<number, DayRecord>();
    if (days.length === 0) return out;
    const raws = await this.redis.hmget(this.#cal(hostId, calendarId, "days"), ...days.map(String));
    days.forEach((day, i) => {
      const raw = raws[i];
      if (raw !== null && raw !== undefined) out.set(day, JSON.parse(raw) as DayRecord);
    });
    return out;
  }
  async commit(hostId: string, calendarId: string, change: CalendarChange): Promise<void> {
    const key = (kind: string) => this.#cal(hostId, calendarId, kind);
    const tx = this.redis.multi();
    if (change.reset) tx.del(key("ev"), key("series"), key("days"));
    const write = <K>(hash: string, fields: ReadonlyMap<K, unknown>) => {
      const set: string[] = [];
      const del: string[] = [];
      for (const [k, v] of fields) {
        if (v === null) del.push(String(k));
        else set.push(String(k), JSON.stringify(v));
      }
      // Chunks keep each command's arguments bounded (a full sync of a large calendar).
      for (let i = 0; i < set.length; i += 2_000) tx.hset(hash, ...set.slice(i, i + 2_000));
      for (let i = 0; i < del.length; i += 1_000) tx.hdel(hash, ...del.slice(i, i + 1_000));
    };
    write(key("ev"), change.events);
    write(key("series"), change.series);
    write(key("days"), change.days);
    tx.set(key("meta"), JSON.stringify(change.meta));
    const replies = await tx.exec();
    const failed = replies?.find(([e]) => e !== null)?.[0];
    if (failed) throw failed;
  }
  async layout(hostId: string): Promise<HostLayout | undefined> {
    const raw = await this.redis.get(this.#key("layout", hostId));
    return raw === null ? undefined : (JSON.parse(raw) as HostLayout);
  }
  async putLayout(hostId: string, layout: HostLayout): Promise<void> {
    await this.redis.set(this.#key("layout", hostId), JSON.stringify(layout));
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
    await this.redis.sadd(this.#key("ownids", hostId), ...ownIdsOf([event]));
  }
  async pendingOwn(hostId: string): Promise<readonly OwnEvent[]> {
    return (await this.#allOwn(hostId)).filter(lags);
  }
  async ownIds(hostId: string): Promise<ReadonlySet<string>> {
    return new Set(ownIdsOf(await this.#allOwn(hostId)));
  }
  async ownAmong(hostId: string, ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    const set = this.#key("ownids", hostId);
    const built = this.#key("ownids-built", hostId);
    // Own events written before the set existed: added once, from the own hash.
    if ((await this.redis.exists(built)) === 0) {
      const all = ownIdsOf(await this.#allOwn(hostId));
      for (let i = 0; i < all.length; i += 1_000) await this.redis.sadd(set, ...all.slice(i, i + 1_000));
      await this.redis.set(built, "1");
    }
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += 1_000) {
      const chunk = ids.slice(i, i + 1_000);
      const member = await this.redis.smismember(set, ...chunk);
      chunk.forEach((id, j) => {
        if (member[j] === 1) found.add(id);
      });
    }
    return found;
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

  async #putWhole(hostId: string, calendarId: string, state: CalendarSyncState): Promise<CalendarSyncMeta> {
    const meta: CalendarSyncMeta = {
      ...(state.cursor !== undefined && { cursor: state.cursor }),
      readUntil: state.readUntil,
      fullSyncAt: state.fullSyncAt,
      rebuild: true,
    };
    await this.commit(hostId, calendarId, {
      meta,
      reset: true,
      events: new Map(Object.entries(state.events)),
      series: new Map(),
      days: new Map(),
    });
    return meta;
  }

  async #allOwn(hostId: string): Promise<OwnEvent[]> {
    const all = await this.redis.hvals(this.#key("own", hostId));
    return all.map((r) => JSON.parse(r) as OwnEvent);
  }

  #cal(hostId: string, calendarId: string, kind: string): string {
    return this.#keys.key(
      "cal2",
      hashTag(`${encodeURIComponent(hostId)}:${encodeURIComponent(calendarId)}`),
      kind,
    );
  }

  #key(kind: string, hostId: string, calendarId?: string): string {
    const host = encodeURIComponent(hostId);
    return calendarId === undefined
      ? this.#keys.key("cal", kind, host)
      : this.#keys.key("cal", kind, host, encodeURIComponent(calendarId));
  }
}
