/**
 * EventWriter over Microsoft Graph events (references "Create event", "Update event",
 * "Delete event", resource "event").
 *
 * - create: POST {user}/[calendars/{id}/]events with `transactionId` = the gateway's eventId:
 *   Graph's own dedupe of a create retried after a lost answer (resource "event": a client's
 *   identifier the server uses to avoid a redundant POST when the client retries the same
 *   create), so the retry answers the event the first try made, not a second. Graph chooses the
 *   event id; it is answered as `upstreamEventId`, which update and delete need back.
 * - tentative is `showAs: "tentative"`; a transparent event, or one the gateway cancels, is
 *   `showAs: "free"` (Graph has no settable cancelled status for an event without attendees;
 *   the gateway deletes the event when it wants it gone).
 * - update: PATCH {user}/events/{upstreamEventId} with If-Match (the @odata.etag, or a bare
 *   changeKey, which is sent as the weak tag W/"…") of what the gateway wrote. A 412 means
 *   someone else edited the event since: it is read (GET, `$select=id` is enough for its
 *   @odata.etag) and patched again with only what the booking owns (start, end, showAs), so an
 *   edited subject, body or location stays ("Update event": properties left out of the body keep
 *   their values; ports/event-writer.ts), up to MERGE_TRIES times while it keeps changing; gone
 *   (404) or still changing is precondition_failed.
 * - delete: DELETE with If-Match when given; 404 (already gone) is `deleted: false`.
 * - Times are written in the host's zone as its Windows name (windows-iana), which every
 *   Exchange version knows, falling back to UTC for a zone without one.
 */
import { findWindows } from "windows-iana";
import { formatWallClock, instantToWallClock } from "../../protocol/time/index.js";
import type {
  CalendarEventWrite,
  ConnectorResult,
  EventDeleteOptions,
  EventWriteErrorCode,
  EventWriter,
  WrittenEvent,
} from "../port.js";
import { graphWriteError } from "./errors.js";
import type { GraphEvent } from "./graph-types.js";
import type { CallOutcome } from "../http.js";
import { callGraph, type GraphHttpDeps } from "./http.js";
import { etagOf } from "./map-event.js";
import type { GraphPaths } from "./paths.js";

type Written = ConnectorResult<WrittenEvent, EventWriteErrorCode>;

function graphTime(epochMs: number, zone: string): { dateTime: string; timeZone: string } {
  const windows = findWindows(zone)[0];
  const timeZone = windows ?? "UTC";
  const local = instantToWallClock(epochMs, windows !== undefined ? zone : "UTC");
  return { dateTime: formatWallClock({ ...local, millisecond: 0 }), timeZone };
}

function showAs(event: CalendarEventWrite): "free" | "tentative" | "busy" {
  if (event.transparency === "transparent" || event.status === "cancelled") return "free";
  return event.status === "tentative" ? "tentative" : "busy";
}

/** Reads and patches after a 412, before the rewrite is left to the caller's retry. */
const MERGE_TRIES = 3;

/** What the booking owns on its event, whoever edited the rest. */
function ownedOf(event: CalendarEventWrite): Record<string, unknown> {
  return {
    start: graphTime(event.start, event.zone),
    end: graphTime(event.end, event.zone),
    showAs: showAs(event),
  };
}

/** The whole event as the gateway writes it. */
function bodyOf(event: CalendarEventWrite): Record<string, unknown> {
  return {
    subject: event.summary,
    body: { contentType: "text", content: event.description ?? "" },
    ...ownedOf(event),
  };
}

/** If-Match as Graph wants it: an entity tag; a bare changeKey becomes the weak tag Graph itself sends. */
function ifMatchOf(version: string): string {
  return version.startsWith('W/"') || version.startsWith('"') ? version : `W/"${version}"`;
}

export class GraphEventWriter implements EventWriter {
  constructor(
    private readonly paths: GraphPaths,
    private readonly deps: GraphHttpDeps,
  ) {}

  private now(): number {
    return this.deps.clock.now();
  }

  private answer(outcome: CallOutcome, ok: number[], calendarId: string, eventId: string): Written {
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (!ok.includes(outcome.value.status))
      return { ok: false, upstream, error: graphWriteError(outcome, this.now()) };
    const stored = (outcome.value.data ?? {}) as GraphEvent;
    const etag = etagOf(stored);
    if (!stored.id || etag === undefined) {
      return {
        ok: false,
        upstream,
        error: { code: "unavailable", message: `${upstream.call} answered an event without id or etag` },
      };
    }
    return { ok: true, upstream, value: { calendarId, eventId, upstreamEventId: stored.id, etag } };
  }

  async create(event: CalendarEventWrite): Promise<Written> {
    const outcome = await callGraph(this.deps, {
      method: "POST",
      url: this.paths.calendar(event.calendarId, "events"),
      body: { ...bodyOf(event), transactionId: event.eventId },
    });
    // 201 Created; a retry that Graph matched by transactionId answers the stored event.
    return this.answer(outcome, [200, 201], event.calendarId, event.eventId);
  }

  async update(event: CalendarEventWrite, ifMatch: string): Promise<Written> {
    if (!event.upstreamEventId) {
      return {
        ok: false,
        error: {
          code: "invalid_request",
          message: "upstreamEventId: Graph updates the event by its own id (WrittenEvent.upstreamEventId)",
        },
      };
    }
    const url = this.paths.mailbox("events", event.upstreamEventId);
    const patch = (body: Record<string, unknown>, version: string) =>
      callGraph(this.deps, { method: "PATCH", url, body, headers: { "If-Match": ifMatchOf(version) } });
    let outcome = await patch(bodyOf(event), ifMatch);
    for (let tries = MERGE_TRIES; tries > 0 && outcome.ok && outcome.value.status === 412; tries--) {
      // Someone else edited the event: patch what the booking owns onto the current version.
      const current = await callGraph(this.deps, { method: "GET", url: `${url}?$select=id` });
      if (current.ok && current.value.status === 404)
        return {
          ok: false,
          upstream: current.meta,
          error: {
            code: "precondition_failed",
            message: `${current.meta.call} answered 404: the event is gone`,
          },
        };
      const version =
        current.ok && current.value.status === 200 ? etagOf(current.value.data ?? {}) : undefined;
      if (version === undefined) return this.answer(current, [], event.calendarId, event.eventId);
      outcome = await patch(ownedOf(event), version);
    }
    return this.answer(outcome, [200], event.calendarId, event.eventId);
  }

  async delete(
    _calendarId: string,
    _eventId: string,
    ifMatch?: string,
    options?: EventDeleteOptions,
  ): Promise<ConnectorResult<{ readonly deleted: boolean }, EventWriteErrorCode>> {
    if (!options?.upstreamEventId) {
      return {
        ok: false,
        error: {
          code: "invalid_request",
          message: "upstreamEventId: Graph deletes the event by its own id (WrittenEvent.upstreamEventId)",
        },
      };
    }
    const outcome = await callGraph(this.deps, {
      method: "DELETE",
      url: this.paths.mailbox("events", options.upstreamEventId),
      ...(ifMatch !== undefined && { headers: { "If-Match": ifMatchOf(ifMatch) } }),
    });
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (outcome.value.status === 204 || outcome.value.status === 200)
      return { ok: true, upstream, value: { deleted: true } };
    if (outcome.value.status === 404 || outcome.value.status === 410)
      return { ok: true, upstream, value: { deleted: false } };
    return { ok: false, upstream, error: graphWriteError(outcome, this.now()) };
  }
}
