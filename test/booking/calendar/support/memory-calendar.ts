/**
 * A calendar held in memory for the calendar-host logic's unit tests: events with versions, a
 * cursor per change, and faults on demand. The connectors themselves are tested against a
 * real CalDAV server (xandikos) and recorded Google/Microsoft responses; this only drives the
 * core's sync and write-behind logic through the ports' contracts.
 */
import type {
  CalendarConnector,
  CalendarEventWrite,
  CalendarSyncPage,
  ConnectorResult,
  RawCalendarEvent,
  WrittenEvent,
} from "../../../../src/connectors/port.js";
import type { EventWriteErrorCode } from "../../../../src/connectors/port.js";

type Fault = "unavailable" | "cursor_expired" | "unauthorized";

export class MemoryCalendar {
  readonly events = new Map<string, RawCalendarEvent>();
  readonly writes: CalendarEventWrite[] = [];
  private log: Array<{ seq: number; eventId: string; removed: boolean }> = [];
  private seq = 0;
  private version = 0;
  syncFaults: Fault[] = [];
  writeFaults: Array<EventWriteErrorCode> = [];
  pageSize = 1000;
  readUntil = Number.MAX_SAFE_INTEGER;

  put(event: Omit<RawCalendarEvent, "etag">): void {
    this.events.set(event.eventId, { ...event, etag: `v${++this.version}` });
    this.log.push({ seq: ++this.seq, eventId: event.eventId, removed: false });
  }
  remove(eventId: string): void {
    this.events.delete(eventId);
    this.log.push({ seq: ++this.seq, eventId, removed: true });
  }

  connector(): CalendarConnector {
    return {
      platform: { vendor: "memory", api_version: "test" },
      kind: "calendar",
      calendar: { sync: (r) => Promise.resolve(this.sync(r.cursor)) },
      events: {
        create: (e) => Promise.resolve(this.write(e, undefined, true)),
        update: (e, ifMatch) => Promise.resolve(this.write(e, ifMatch, false)),
        delete: (_c, id) => {
          const had = this.events.has(id);
          this.remove(id);
          return Promise.resolve({ ok: true as const, value: { deleted: had } });
        },
      },
    };
  }

  private sync(
    cursor: string | undefined,
  ): ConnectorResult<CalendarSyncPage, "cursor_expired" | "unavailable" | "unauthorized"> {
    const fault = this.syncFaults.shift();
    if (fault !== undefined) return { ok: false, error: { code: fault, message: `injected ${fault}` } };
    // Cursor "full:<offset>" pages a full read; "seq:<n>" an incremental one.
    if (cursor === undefined || cursor.startsWith("full:")) {
      const offset = cursor === undefined ? 0 : Number(cursor.slice(5));
      const all = [...this.events.values()];
      const page = all.slice(offset, offset + this.pageSize);
      const done = offset + this.pageSize >= all.length;
      return {
        ok: true,
        value: {
          events: page,
          removed: [],
          complete: done,
          nextCursor: done ? `seq:${this.seq}` : `full:${offset + this.pageSize}`,
          readUntil: this.readUntil,
        },
      };
    }
    const since = Number(cursor.slice(4));
    const changed = this.log.filter((l) => l.seq > since);
    const ids = [...new Set(changed.map((c) => c.eventId))];
    return {
      ok: true,
      value: {
        events: ids.flatMap((id) => {
          const e = this.events.get(id);
          return e === undefined ? [] : [e];
        }),
        removed: ids.filter((id) => !this.events.has(id)),
        complete: true,
        nextCursor: `seq:${this.seq}`,
        readUntil: this.readUntil,
      },
    };
  }

  private write(
    e: CalendarEventWrite,
    ifMatch: string | undefined,
    create: boolean,
  ): ConnectorResult<WrittenEvent, EventWriteErrorCode> {
    const fault = this.writeFaults.shift();
    if (fault !== undefined) return { ok: false, error: { code: fault, message: `injected ${fault}` } };
    const existing = this.events.get(e.eventId);
    if (create && existing !== undefined) {
      return { ok: true, value: { calendarId: e.calendarId, eventId: e.eventId, etag: existing.etag ?? "" } };
    }
    if (!create && existing === undefined) {
      return { ok: false, error: { code: "precondition_failed", message: "the event is gone" } };
    }
    this.writes.push(e);
    // An update on a version someone else wrote since keeps their edits and changes only what
    // the booking owns (ports/event-writer.ts); on the gateway's own version it is whole.
    const theirs = !create && existing?.etag !== ifMatch ? existing : undefined;
    this.put({
      ...theirs,
      uid: theirs?.uid ?? `${e.eventId}@gateway`,
      eventId: e.eventId,
      start: { dateTime: new Date(e.start).toISOString() },
      end: { dateTime: new Date(e.end).toISOString() },
      status: e.status,
      transparency: e.transparency,
    });
    return {
      ok: true,
      value: { calendarId: e.calendarId, eventId: e.eventId, etag: this.events.get(e.eventId)?.etag ?? "" },
    };
  }
}
