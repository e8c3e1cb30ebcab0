/**
 * EventWriter over Google Calendar events.insert / patch / delete / get.
 *
 * - create: events.insert with the id derived from the gateway's eventId (ids.ts). A retried
 *   create whose first try landed answers 409 (reason "duplicate"): the event is read with
 *   events.get and answered as stored, so a retry never writes a second event.
 * - update: events.patch of the fields the gateway owns (summary, description, times,
 *   status, transparency), so what the host added (reminders, colour, guests) is kept, with
 *   If-Match: the etag the gateway last saw; 412 is precondition_failed.
 * - delete: events.delete with If-Match when given; 404 or 410 (already deleted) is
 *   `deleted: false`, not an error.
 * - Times are written as UTC instants with the host's zone as `timeZone`, so Google shows the
 *   event in that zone and no local-time arithmetic happens here. `sendUpdates: "none"`: the
 *   gateway's events have no guests to notify.
 */
import type { calendar_v3 } from "@googleapis/calendar";
import type {
  CalendarEventWrite,
  ConnectorResult,
  EventDeleteOptions,
  EventWriteErrorCode,
  EventWriter,
  WrittenEvent,
} from "../port.js";
import { googleWriteError, reasonsOf } from "./errors.js";
import { callGoogle, callLine, type GoogleHttpDeps, type Outcome } from "./http.js";
import { googleEventId } from "./ids.js";

type Written = ConnectorResult<WrittenEvent, EventWriteErrorCode>;

function bodyOf(event: CalendarEventWrite): calendar_v3.Schema$Event {
  return {
    summary: event.summary,
    description: event.description ?? null,
    start: { dateTime: new Date(event.start).toISOString(), timeZone: event.zone },
    end: { dateTime: new Date(event.end).toISOString(), timeZone: event.zone },
    status: event.status,
    transparency: event.transparency,
  };
}

export class GoogleEventWriter implements EventWriter {
  constructor(
    private readonly api: calendar_v3.Calendar,
    private readonly deps: GoogleHttpDeps,
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private written(outcome: Outcome & { ok: true }, calendarId: string, eventId: string): Written {
    const stored = outcome.data as calendar_v3.Schema$Event;
    if (!stored.etag || !stored.id) {
      return {
        ok: false,
        upstream: outcome.meta,
        error: { code: "unavailable", message: `${outcome.meta.call} answered an event without id or etag` },
      };
    }
    return {
      ok: true,
      upstream: outcome.meta,
      value: { calendarId, eventId, upstreamEventId: stored.id, etag: stored.etag },
    };
  }

  private failed(outcome: Outcome): Written {
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    return { ok: false, upstream: outcome.meta, error: googleWriteError(outcome, this.now()) };
  }

  async create(event: CalendarEventWrite): Promise<Written> {
    const { calendarId } = event;
    const id = googleEventId(event.eventId);
    const call = callLine("POST", ["calendars", calendarId, "events"]);
    const inserted = await callGoogle(this.deps, call, (o) =>
      this.api.events.insert({ calendarId, sendUpdates: "none", requestBody: { id, ...bodyOf(event) } }, o),
    );
    if (inserted.ok && inserted.status === 200) return this.written(inserted, calendarId, event.eventId);
    const duplicate =
      inserted.ok && inserted.status === 409 && reasonsOf(inserted.data).includes("duplicate");
    if (!duplicate) return this.failed(inserted);
    // Our id already exists: the first try landed. Answer the event as Google stores it.
    const get = callLine("GET", ["calendars", calendarId, "events", id]);
    const stored = await callGoogle(this.deps, get, (o) =>
      this.api.events.get({ calendarId, eventId: id }, o),
    );
    if (stored.ok && stored.status === 200) return this.written(stored, calendarId, event.eventId);
    return this.failed(stored);
  }

  async update(event: CalendarEventWrite, ifMatch: string): Promise<Written> {
    const { calendarId } = event;
    const id = googleEventId(event.eventId);
    const call = callLine("PATCH", ["calendars", calendarId, "events", id]);
    const patched = await callGoogle(
      this.deps,
      call,
      (o) =>
        this.api.events.patch(
          { calendarId, eventId: id, sendUpdates: "none", requestBody: bodyOf(event) },
          o,
        ),
      { "If-Match": ifMatch },
    );
    if (patched.ok && patched.status === 200) return this.written(patched, calendarId, event.eventId);
    return this.failed(patched);
  }

  async delete(
    calendarId: string,
    eventId: string,
    ifMatch?: string,
    _options?: EventDeleteOptions,
  ): Promise<ConnectorResult<{ readonly deleted: boolean }, EventWriteErrorCode>> {
    const id = googleEventId(eventId);
    const call = callLine("DELETE", ["calendars", calendarId, "events", id]);
    const outcome = await callGoogle(
      this.deps,
      call,
      (o) => this.api.events.delete({ calendarId, eventId: id, sendUpdates: "none" }, o),
      ifMatch !== undefined ? { "If-Match": ifMatch } : {},
    );
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (outcome.status === 204 || outcome.status === 200)
      return { ok: true, upstream, value: { deleted: true } };
    if (outcome.status === 404 || outcome.status === 410)
      return { ok: true, upstream, value: { deleted: false } };
    return { ok: false, upstream, error: googleWriteError(outcome, this.now()) };
  }
}
