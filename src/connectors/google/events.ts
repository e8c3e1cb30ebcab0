/**
 * EventWriter over Google Calendar events.insert / patch / delete / get.
 *
 * - create: events.insert with the id derived from the gateway's eventId (ids.ts). A retried
 *   create whose first try landed answers 409 (reason "duplicate"): the event is read with
 *   events.get and answered as stored, so a retry never writes a second event.
 * - update: events.patch with If-Match: the etag the gateway last wrote, of the fields the
 *   gateway wrote (summary, description, times, status, transparency), so what the host added
 *   (reminders, colour, guests, location) is kept. A 412 means someone else edited the event
 *   since: the event is read (events.get) for its current etag, and patched again with only what
 *   the booking owns (times, status, transparency), so an edited summary or description stays
 *   too (ports/event-writer.ts), up to MERGE_TRIES times while it keeps changing; gone (404/410)
 *   or still changing is precondition_failed.
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
import type { Answered, CallOutcome } from "../http.js";
import { callGoogle, callLine, type GoogleHttpDeps } from "./http.js";
import { googleEventId } from "./ids.js";

type Written = ConnectorResult<WrittenEvent, EventWriteErrorCode>;

/** Reads and patches after a 412, before the rewrite is left to the caller's retry. */
const MERGE_TRIES = 3;

/** What the booking owns on its event, whoever edited the rest. */
function ownedOf(event: CalendarEventWrite): calendar_v3.Schema$Event {
  return {
    start: { dateTime: new Date(event.start).toISOString(), timeZone: event.zone },
    end: { dateTime: new Date(event.end).toISOString(), timeZone: event.zone },
    status: event.status,
    transparency: event.transparency,
  };
}

/** The whole event as the gateway writes it. */
function bodyOf(event: CalendarEventWrite): calendar_v3.Schema$Event {
  return {
    summary: event.summary,
    description: event.description ?? null,
    ...ownedOf(event),
  };
}

export class GoogleEventWriter implements EventWriter {
  constructor(
    private readonly api: calendar_v3.Calendar,
    private readonly deps: GoogleHttpDeps,
  ) {}

  private now(): number {
    return this.deps.clock.now();
  }

  private written(outcome: Answered, calendarId: string, eventId: string): Written {
    const stored = outcome.value.data as calendar_v3.Schema$Event;
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

  /** `gone`: a 404 or 410 is precondition_failed (the event went since the gateway wrote it). */
  private failed(outcome: CallOutcome, gone?: "gone"): Written {
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const error = googleWriteError(outcome, this.now());
    if (gone !== undefined && (outcome.value.status === 404 || outcome.value.status === 410))
      return { ok: false, upstream: outcome.meta, error: { ...error, code: "precondition_failed" } };
    return { ok: false, upstream: outcome.meta, error };
  }

  async create(event: CalendarEventWrite): Promise<Written> {
    const { calendarId } = event;
    const id = googleEventId(event.eventId);
    const call = callLine("POST", ["calendars", calendarId, "events"]);
    const inserted = await callGoogle(this.deps, call, (o) =>
      this.api.events.insert({ calendarId, sendUpdates: "none", requestBody: { id, ...bodyOf(event) } }, o),
    );
    if (inserted.ok && inserted.value.status === 200)
      return this.written(inserted, calendarId, event.eventId);
    const duplicate =
      inserted.ok && inserted.value.status === 409 && reasonsOf(inserted.value.data).includes("duplicate");
    if (!duplicate) return this.failed(inserted);
    // Our id already exists: the first try landed. Answer the event as Google stores it.
    const get = callLine("GET", ["calendars", calendarId, "events", id]);
    const stored = await callGoogle(this.deps, get, (o) =>
      this.api.events.get({ calendarId, eventId: id }, o),
    );
    if (stored.ok && stored.value.status === 200) return this.written(stored, calendarId, event.eventId);
    return this.failed(stored);
  }

  async update(event: CalendarEventWrite, ifMatch: string): Promise<Written> {
    let patched = await this.patch(event, bodyOf(event), ifMatch);
    for (let tries = MERGE_TRIES; tries > 0 && this.changed(patched); tries--) {
      // Someone else edited the event: patch what the booking owns onto the current version.
      const current = await this.read(event);
      if (!current.ok || current.value.status !== 200) return this.failed(current, "gone");
      const etag = (current.value.data as calendar_v3.Schema$Event).etag;
      if (!etag) return this.failed(current);
      patched = await this.patch(event, ownedOf(event), etag);
    }
    if (patched.ok && patched.value.status === 200)
      return this.written(patched, event.calendarId, event.eventId);
    return this.failed(patched);
  }

  private changed(outcome: CallOutcome): boolean {
    return outcome.ok && outcome.value.status === 412;
  }

  private patch(
    event: CalendarEventWrite,
    body: calendar_v3.Schema$Event,
    ifMatch: string,
  ): Promise<CallOutcome> {
    const { calendarId } = event;
    const id = googleEventId(event.eventId);
    const call = callLine("PATCH", ["calendars", calendarId, "events", id]);
    return callGoogle(
      this.deps,
      call,
      (o) => this.api.events.patch({ calendarId, eventId: id, sendUpdates: "none", requestBody: body }, o),
      { "If-Match": ifMatch },
    );
  }

  private read(event: CalendarEventWrite): Promise<CallOutcome> {
    const { calendarId } = event;
    const id = googleEventId(event.eventId);
    const call = callLine("GET", ["calendars", calendarId, "events", id]);
    return callGoogle(this.deps, call, (o) => this.api.events.get({ calendarId, eventId: id }, o));
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
    if (outcome.value.status === 204 || outcome.value.status === 200)
      return { ok: true, upstream, value: { deleted: true } };
    if (outcome.value.status === 404 || outcome.value.status === 410)
      return { ok: true, upstream, value: { deleted: false } };
    return { ok: false, upstream, error: googleWriteError(outcome, this.now()) };
  }
}
