/**
 * The event writer capability (calendars: Google, Microsoft 365): the events the gateway
 * writes for its bookings on a calendar host. A host_approval booking is a TENTATIVE event;
 * every later transition rewrites it (docs/ARCHITECTURE.md, Calendar sync).
 *
 * - The gateway chooses the event id (derived from the booking), so a create retried after a
 *   lost answer finds its own event instead of writing a second one: creating an id that
 *   exists answers the event as stored.
 * - Updates and deletes carry the version the gateway last wrote (`ifMatch`: ETag / changeKey).
 *   An update changes only what the booking owns: start and end, status and transparency. While
 *   the event is still the version the gateway wrote, it is the gateway's whole (summary and
 *   description too). When someone else edited it since (a location, a note, a reminder, a new
 *   description), the connector reads the event as it now stands and makes the booking's change
 *   on that version, under that version's tag, keeping every other edit (RFC 9110 §13.1.1: no
 *   lost update); it answers `precondition_failed` only when the event is gone or kept changing
 *   through a few tries. A delete whose version changed answers `precondition_failed`, and the
 *   gateway reads the event again before deciding. Deleting an event that is gone is not an error.
 * - Some calendars cannot take a client-chosen id (Microsoft Graph: it dedupes retried creates
 *   by `transactionId` and assigns its own id). Such a connector answers the calendar's id as
 *   `upstreamEventId` on the WrittenEvent, and the gateway passes it back on update and delete.
 *   A connector that derives the upstream id from `eventId` (Google) answers it too and needs
 *   none back. Optional everywhere, so callers that never see one are unaffected.
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
  /** On update: the calendar's own id of the event, when it differs from `eventId` (WrittenEvent). */
  readonly upstreamEventId?: string;
}

export interface WrittenEvent {
  readonly calendarId: string;
  readonly eventId: string;
  /** The version after the write, for the next `ifMatch`. */
  readonly etag: string;
  /** The calendar's own id of the event when it differs from `eventId`; keep it for update and delete. */
  readonly upstreamEventId?: string;
}

export interface EventDeleteOptions {
  /** The calendar's own id of the event (WrittenEvent.upstreamEventId), when it differs from `eventId`. */
  readonly upstreamEventId?: string;
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
    options?: EventDeleteOptions,
  ): Promise<ConnectorResult<{ readonly deleted: boolean }, EventWriteErrorCode>>;
}
