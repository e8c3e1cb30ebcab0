/**
 * An upstream calendar event a connector cannot map to a RawCalendarEvent (ports/calendar-sync.ts):
 * a time it cannot read, an unknown zone, a missing id, a recurrence line it cannot parse. The
 * vendor's mapper throws it; that connector's sync catches it and answers `unavailable`, naming
 * the vendor, so it never crosses the port. Shared by the Google and Microsoft connectors.
 */
export class UnreadableEvent extends Error {}
