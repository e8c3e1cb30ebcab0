/**
 * EventWriter for CalDAV (ports/event-writer.ts): plain HTTP on the calendar object resource
 * `<calendar>/<eventId>.ics` (resources.ts), with conditional requests (RFC 9110 §13, RFC 4791
 * §5.3.2) doing the port's work:
 *
 * - create: PUT with If-None-Match: *. A 412 means the resource exists (a create retried after
 *   a lost answer): the event is read and answered as stored, so a retry never makes a second.
 * - update: PUT with If-Match: <etag> (the version the gateway last wrote). A 412 means someone
 *   else edited the event since: it is read again (GET, with its ETag), the booking's change is
 *   made on that version in place (merge-event.ts: times, status, transparency; every other
 *   property, parameter and component kept), and PUT with If-Match: that ETag, up to
 *   MERGE_TRIES times while it keeps changing underneath. Still changing, or gone, is
 *   `precondition_failed`.
 * - delete: DELETE with If-Match when given; 404 is `{ deleted: false }`. A 412 is checked with a
 *   GET: gone is `{ deleted: false }`, anything else `precondition_failed`.
 *
 * The new ETag comes from the PUT's answer; a server that changed the data on store sends none
 * (RFC 4791 §5.3.4), and the ETag is then read with a GET. tsdav's createObject/updateObject are
 * thin fetch wrappers that hide the answer's headers, so upstream.ts sends these directly.
 */
import type {
  CalendarEventWrite,
  ConnectorResult,
  EventWriteErrorCode,
  EventWriter,
  UpstreamMeta,
  WrittenEvent,
} from "../port.js";
import { buildEvent } from "./build-event.js";
import { isSuccess, type CaldavContext } from "./context.js";
import { mergeOwnedInto } from "./merge-event.js";
import { calendarUrl, eventUrl, type Located } from "./resources.js";
import { preconditionOf, statusError } from "./upstream.js";

type WriteResult<T> = ConnectorResult<T, EventWriteErrorCode>;

/** Reads and merges after a 412, before the rewrite is left to the caller's retry. */
const MERGE_TRIES = 3;

function targetOf(ctx: CaldavContext, calendarId: string, eventId: string): Located {
  const calendar = calendarUrl(ctx.server, calendarId);
  return calendar.ok ? eventUrl(calendar.value, eventId) : calendar;
}

const invalid = <T>(message: string): WriteResult<T> => ({
  ok: false,
  error: { code: "invalid_request", message },
});

function checkWrite(event: CalendarEventWrite): string | undefined {
  if (!Number.isFinite(event.start) || !Number.isFinite(event.end) || event.end <= event.start)
    return "the event's end must be after its start";
  return undefined;
}

export function createEventWriter(ctx: CaldavContext): EventWriter {
  /** The stored event's current ETag (GET), answered as the write's result. */
  async function readBack(
    url: URL,
    event: CalendarEventWrite,
    what: string,
  ): Promise<WriteResult<WrittenEvent>> {
    const got = await ctx.send({ method: "GET", url, headers: { accept: "text/calendar" } });
    if (!got.ok) return { ok: false, error: got.error, upstream: got.meta };
    const etag = got.value.headers.get("etag");
    if (!isSuccess(got.value.status))
      return { ok: false, error: statusError(got.value, what, ctx.clock), upstream: got.meta };
    if (etag === null)
      return {
        ok: false,
        error: { code: "unavailable", message: `${what}: the server sent no ETag` },
        upstream: got.meta,
      };
    return { ok: true, value: written(event, etag), upstream: got.meta };
  }

  const written = (event: CalendarEventWrite, etag: string): WrittenEvent => ({
    calendarId: event.calendarId,
    eventId: event.eventId,
    etag,
  });

  async function put(
    event: CalendarEventWrite,
    condition: Readonly<Record<string, string>>,
    onPrecondition: (url: URL, meta: UpstreamMeta) => Promise<WriteResult<WrittenEvent>>,
    what: string,
    /** The object to store; the gateway's whole event when not given (build-event.ts). */
    body?: string,
  ): Promise<WriteResult<WrittenEvent>> {
    const problem = checkWrite(event);
    if (problem !== undefined) return invalid(problem);
    const target = targetOf(ctx, event.calendarId, event.eventId);
    if (!target.ok) return invalid(target.error);
    const sent = await ctx.send({
      method: "PUT",
      url: target.value,
      headers: { ...condition, "content-type": "text/calendar; charset=utf-8" },
      body: body ?? buildEvent(event, ctx.clock.now()),
    });
    if (!sent.ok) return { ok: false, error: sent.error, upstream: sent.meta };
    const { value: answer, meta } = sent;
    // xandikos answers a refused PUT (no-uid-conflict, valid-calendar-data) with a 207 naming the
    // precondition, where RFC 4791 §5.3.2.1 says 403: either way it is not a write.
    const refused = answer.status === 207 ? preconditionOf(answer.body) : undefined;
    if (answer.status === 207 && refused === undefined)
      return {
        ok: false,
        error: { code: "unavailable", message: `${what}: the server answered 207` },
        upstream: meta,
      };
    if (refused !== undefined)
      return {
        ok: false,
        error: { code: "invalid_request", message: `the CalDAV server refused ${what}: ${refused}` },
        upstream: meta,
      };
    if (answer.status === 412) return onPrecondition(target.value, meta);
    if (!isSuccess(answer.status))
      return { ok: false, error: statusError(answer, what, ctx.clock), upstream: meta };
    const etag = answer.headers.get("etag");
    return etag === null
      ? readBack(target.value, event, what)
      : { ok: true, value: written(event, etag), upstream: meta };
  }

  /** After a 412: the booking's change made on the event as it now stands (see the module comment). */
  async function mergeOnto(
    url: URL,
    event: CalendarEventWrite,
    tries: number,
  ): Promise<WriteResult<WrittenEvent>> {
    const got = await ctx.send({ method: "GET", url, headers: { accept: "text/calendar" } });
    if (!got.ok) return { ok: false, error: got.error, upstream: got.meta };
    const { value: answer, meta } = got;
    const failed = (message: string): WriteResult<WrittenEvent> => ({
      ok: false,
      error: { code: "precondition_failed", message },
      upstream: meta,
    });
    if (answer.status === 404 || answer.status === 410)
      return failed("the event is gone from the calendar since the gateway wrote it");
    if (!isSuccess(answer.status))
      return { ok: false, error: statusError(answer, "reading the event", ctx.clock), upstream: meta };
    const etag = answer.headers.get("etag");
    if (etag === null)
      return {
        ok: false,
        error: { code: "unavailable", message: "reading the event: the server sent no ETag" },
        upstream: meta,
      };
    const merged = mergeOwnedInto(answer.body, event, ctx.clock.now());
    if (!merged.ok)
      return { ok: false, error: { code: "invalid_request", message: merged.error }, upstream: meta };
    return put(
      event,
      { "if-match": etag },
      (again, againMeta) =>
        tries > 1
          ? mergeOnto(again, event, tries - 1)
          : Promise.resolve({
              ok: false,
              error: {
                code: "precondition_failed",
                message: "the event kept changing while the gateway rewrote it: try again later",
              },
              upstream: againMeta,
            }),
      "updating the event",
      merged.value,
    );
  }

  return {
    create: (event) =>
      put(
        event,
        { "if-none-match": "*" },
        (url) => readBack(url, event, "reading the existing event"),
        "creating the event",
      ),

    update: (event, ifMatch) =>
      put(event, { "if-match": ifMatch }, (url) => mergeOnto(url, event, MERGE_TRIES), "updating the event"),

    async delete(calendarId, eventId, ifMatch) {
      const target = targetOf(ctx, calendarId, eventId);
      if (!target.ok) return invalid(target.error);
      const sent = await ctx.send({
        method: "DELETE",
        url: target.value,
        headers: ifMatch === undefined ? {} : { "if-match": ifMatch },
      });
      if (!sent.ok) return { ok: false, error: sent.error, upstream: sent.meta };
      const { value: answer, meta } = sent;
      if (answer.status === 404 || answer.status === 410)
        return { ok: true, value: { deleted: false }, upstream: meta };
      if (isSuccess(answer.status)) return { ok: true, value: { deleted: true }, upstream: meta };
      if (answer.status !== 412)
        return { ok: false, error: statusError(answer, "deleting the event", ctx.clock), upstream: meta };
      const check = await ctx.send({
        method: "GET",
        url: target.value,
        headers: { accept: "text/calendar" },
      });
      if (!check.ok) return { ok: false, error: check.error, upstream: check.meta };
      if (check.value.status === 404 || check.value.status === 410)
        return { ok: true, value: { deleted: false }, upstream: check.meta };
      return {
        ok: false,
        error: { code: "precondition_failed", message: "the event changed since that ETag: read it again" },
        upstream: meta,
      };
    },
  };
}
