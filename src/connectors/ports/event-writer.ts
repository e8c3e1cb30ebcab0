/**
 * The event writer capability (calendars; no implementation yet): the events the gateway
 * writes for its bookings on a calendar host. A host_approval booking is a TENTATIVE event;
 * every later transition rewrites it (DESIGN.md "Calendar-fallback hosts").
 *
 * - The gateway chooses the event id (derived from the booking), so a create retried after a
 *   lost answer finds its own event instead of writing a second one: creating an id that
 *   exists answers the event as stored.
 * - Updates and deletes carry the version the gateway last saw (`ifMatch`: ETag / changeKey);
 *   a calendar whose event changed since answers `precondition_failed`, and the gateway reads
 *   the event again before deciding. Deleting an event that is gone is not an error.
 */
import type { ConnectorErrorCode, ConnectorResult } from "./result.js";

export interface CalendarEventWrite {
  readonly calendarId: string;
  /** Client-chosen id, stable for the booking (a retried create names the same event). */
  readonly eventId: string;
  readonly start: number;
  readonly end: number;
  /** IANA zone the event is shown in. */
  readonly zone: string;
  readonly summary: string;
  readonly description?: string;
  readonly status: "tentative" | "confirmed" | "cancelled";
  readonly transparency: "opaque" | "transparent";
}

export interface WrittenEvent {
  readonly calendarId: string;
  readonly eventId: string;
  /** The version after the write, for the next `ifMatch`. */
  readonly etag: string;
}

export type EventWriteErrorCode = ConnectorErrorCode | "precondition_failed";

export interface EventWriter {
  create(event: CalendarEventWrite): Promise<ConnectorResult<WrittenEvent, EventWriteErrorCode>>;
  update(
    event: CalendarEventWrite,
    ifMatch: string,
  ): Promise<ConnectorResult<WrittenEvent, EventWriteErrorCode>>;
  delete(
    calendarId: string,
    eventId: string,
    ifMatch?: string,
  ): Promise<ConnectorResult<{ readonly deleted: boolean }, EventWriteErrorCode>>;
}
