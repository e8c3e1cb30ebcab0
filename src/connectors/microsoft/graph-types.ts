/**
 * The parts of Graph's JSON this connector reads (resource "event", "dateTimeTimeZone",
 * "subscription", delta pages). Written here, read tolerantly: unknown members are ignored and
 * what the gateway relies on is checked where it is used. (@microsoft/microsoft-graph-types is
 * not installed, and these few members are all that is read.)
 */
export interface GraphDateTimeTimeZone {
  /** "2026-12-07T08:00:00.0000000": a local time without offset... */
  readonly dateTime?: string;
  /** ...in this zone ("UTC" when asked for with Prefer: outlook.timezone="UTC"; Windows or IANA names otherwise). */
  readonly timeZone?: string;
}

export interface GraphEvent {
  readonly id?: string;
  readonly iCalUId?: string;
  readonly "@odata.etag"?: string;
  readonly changeKey?: string;
  readonly subject?: string;
  readonly isAllDay?: boolean;
  readonly isCancelled?: boolean;
  readonly showAs?: "free" | "tentative" | "busy" | "oof" | "workingElsewhere" | "unknown";
  /** The mailbox owner's answer to the meeting ("responseStatus": none, organizer, tentativelyAccepted, accepted, declined, notResponded). */
  readonly responseStatus?: { readonly response?: string; readonly time?: string };
  readonly type?: "singleInstance" | "occurrence" | "exception" | "seriesMaster";
  readonly seriesMasterId?: string;
  readonly start?: GraphDateTimeTimeZone;
  readonly end?: GraphDateTimeTimeZone;
  readonly transactionId?: string;
  /** On a delta entry: the event left the view ("deleted", or "changed" out of it). */
  readonly "@removed"?: { readonly reason?: string };
}

export interface GraphDeltaPage {
  readonly value?: readonly GraphEvent[];
  readonly "@odata.nextLink"?: string;
  readonly "@odata.deltaLink"?: string;
}

export interface GraphSubscription {
  readonly id?: string;
  readonly resource?: string;
  readonly changeType?: string;
  readonly expirationDateTime?: string;
}
