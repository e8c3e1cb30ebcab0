/**
 * The synthetic platform's database: its appointments, pending verification codes and the
 * log of verification sends its rate limit counts (send-limit.ts).
 *
 * Several gateway processes share one synthetic upstream the way they would share a real
 * platform, so the store is a port with two implementations: MemorySyntheticBackend (one
 * process, or several connectors in one test) and RedisSyntheticBackend (many processes).
 *
 * Writes are optimistic: `read` returns the host's version with a consistent view, the
 * connector decides (hours, conflicts, capacity) in TypeScript, and `write` applies only
 * when the version is unchanged (else `conflict`, and the connector reads again). A create
 * checks its idempotency key FIRST, in the same atomic step, so one key can never make two
 * appointments, whichever process asks.
 */
import type { Interval } from "../port.js";
import { occupiesTime, type SyntheticAppointment } from "./appointment.js";
import { admitInWindow, type SendAdmission, type VerificationSendLimit } from "./send-limit.js";

export interface SyntheticReadQuery {
  /** Appointments whose occupied time overlaps this range (cancelled ones never do). */
  readonly range?: Interval;
  /** Appointments by id, whatever their status. */
  readonly ids?: readonly string[];
  /** The appointment created under this key, if any. */
  readonly idempotencyKey?: string;
}

export interface SyntheticSnapshot {
  readonly version: number;
  readonly occupying: readonly SyntheticAppointment[];
  readonly byId: ReadonlyMap<string, SyntheticAppointment>;
  readonly byKey?: SyntheticAppointment;
}

export type SyntheticWriteOutcome =
  | { readonly outcome: "written"; readonly version: number }
  /** A create whose key already made an appointment (returned as stored). */
  | { readonly outcome: "exists"; readonly appointment: SyntheticAppointment }
  /** The host's version moved since the read; nothing was written. */
  | { readonly outcome: "conflict" };

export interface VerificationRecord {
  readonly code: string;
  readonly expiresAt: number;
}

export interface SyntheticBackend {
  read(hostId: string, query: SyntheticReadQuery): Promise<SyntheticSnapshot>;
  /**
   * Stores the appointment (insert or replace by id) if the host is still at
   * `expectedVersion`. `create`: the appointment is new under its idempotency key, which is
   * checked before the version.
   */
  write(
    hostId: string,
    expectedVersion: number,
    appointment: SyntheticAppointment,
    create: boolean,
  ): Promise<SyntheticWriteOutcome>;
  putCode(hostId: string, contact: string, record: VerificationRecord): Promise<void>;
  getCode(hostId: string, contact: string): Promise<VerificationRecord | undefined>;
  deleteCode(hostId: string, contact: string): Promise<void>;
  /**
   * Counts one verification send to `contact` at `now` unless `limit.maxSends` were already
   * admitted in the sliding window ending at `now` (send-limit.ts). Atomic: concurrent sends
   * through several connectors never exceed the limit together.
   */
  admitSend(
    hostId: string,
    contact: string,
    now: number,
    limit: VerificationSendLimit,
  ): Promise<SendAdmission>;
}

interface HostTables {
  version: number;
  readonly appointments: Map<string, SyntheticAppointment>;
  /**
   * Ids by the UTC day their occupied time starts, and the longest occupied span seen: a range
   * read visits the days that can reach into the range instead of every appointment.
   */
  readonly byDay: Map<number, Set<string>>;
  maxSpan: number;
  readonly keys: Map<string, string>;
  readonly codes: Map<string, VerificationRecord>;
  readonly sends: Map<string, number[]>;
}

/** In-process twin of the Redis backend; share one instance to share one platform. */
export class MemorySyntheticBackend implements SyntheticBackend {
  private readonly hosts = new Map<string, HostTables>();

  /** The platform's tables (Maps of plain records), for a process that keeps them in a file. */
  exportState(): ReadonlyMap<string, unknown> {
    return this.hosts;
  }

  /** Replaces every table with a snapshot exportState made. */
  importState(state: ReadonlyMap<string, unknown>): void {
    this.hosts.clear();
    for (const [id, t] of state) this.hosts.set(id, t as HostTables);
  }

  private tables(hostId: string): HostTables {
    let t = this.hosts.get(hostId);
    if (t === undefined) {
      t = {
        version: 0,
        appointments: new Map(),
        byDay: new Map(),
        maxSpan: 0,
        keys: new Map(),
        codes: new Map(),
        sends: new Map(),
      };
      this.hosts.set(hostId, t);
    }
    return t;
  }

  read(hostId: string, query: SyntheticReadQuery): Promise<SyntheticSnapshot> {
    const t = this.tables(hostId);
    const { range } = query;
    const occupying = range === undefined ? [] : occupyingIn(t, range);
    const byId = new Map<string, SyntheticAppointment>();
    for (const id of query.ids ?? []) {
      const a = t.appointments.get(id);
      if (a !== undefined) byId.set(id, a);
    }
    const keyId = query.idempotencyKey === undefined ? undefined : t.keys.get(query.idempotencyKey);
    const byKey = keyId === undefined ? undefined : t.appointments.get(keyId);
    return Promise.resolve(
      byKey === undefined
        ? { version: t.version, occupying, byId }
        : { version: t.version, occupying, byId, byKey },
    );
  }

  write(
    hostId: string,
    expectedVersion: number,
    appointment: SyntheticAppointment,
    create: boolean,
  ): Promise<SyntheticWriteOutcome> {
    const t = this.tables(hostId);
    if (create) {
      const existing = t.keys.get(appointment.idempotencyKey);
      const stored = existing === undefined ? undefined : t.appointments.get(existing);
      if (stored !== undefined) return Promise.resolve({ outcome: "exists", appointment: stored });
    }
    if (t.version !== expectedVersion) return Promise.resolve({ outcome: "conflict" });
    const previous = t.appointments.get(appointment.id);
    if (previous !== undefined) t.byDay.get(dayOf(previous.start))?.delete(previous.id);
    t.appointments.set(appointment.id, appointment);
    const day = dayOf(appointment.start);
    const ids = t.byDay.get(day);
    if (ids === undefined) t.byDay.set(day, new Set([appointment.id]));
    else ids.add(appointment.id);
    t.maxSpan = Math.max(t.maxSpan, appointment.occupiedUntil - appointment.start);
    if (create) t.keys.set(appointment.idempotencyKey, appointment.id);
    t.version += 1;
    return Promise.resolve({ outcome: "written", version: t.version });
  }

  putCode(hostId: string, contact: string, record: VerificationRecord): Promise<void> {
    this.tables(hostId).codes.set(contact, record);
    return Promise.resolve();
  }

  getCode(hostId: string, contact: string): Promise<VerificationRecord | undefined> {
    return Promise.resolve(this.tables(hostId).codes.get(contact));
  }

  deleteCode(hostId: string, contact: string): Promise<void> {
    this.tables(hostId).codes.delete(contact);
    return Promise.resolve();
  }

  admitSend(
    hostId: string,
    contact: string,
    now: number,
    limit: VerificationSendLimit,
  ): Promise<SendAdmission> {
    const sends = this.tables(hostId).sends;
    const log = sends.get(contact) ?? [];
    const admission = admitInWindow(log, now, limit);
    if (log.length === 0) sends.delete(contact);
    else sends.set(contact, log);
    return Promise.resolve(admission);
  }
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** Appointments occupying time that overlaps `range` (the same answer as scanning them all). */
function occupyingIn(t: HostTables, range: { start: number; end: number }): SyntheticAppointment[] {
  const overlaps = (a: SyntheticAppointment): boolean =>
    occupiesTime(a) && a.start < range.end && range.start < a.occupiedUntil;
  const first = dayOf(range.start - t.maxSpan);
  const last = dayOf(range.end);
  // A range wider than the appointments it could visit: scanning them all is cheaper.
  if (!Number.isFinite(first) || last - first > t.appointments.size)
    return [...t.appointments.values()].filter(overlaps);
  const out: SyntheticAppointment[] = [];
  for (let day = first; day <= last; day++) {
    for (const id of t.byDay.get(day) ?? []) {
      const a = t.appointments.get(id);
      if (a !== undefined && overlaps(a)) out.push(a);
    }
  }
  return out;
}
