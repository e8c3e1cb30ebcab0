/**
 * Where things live on a CalDAV server, and what the port's ids mean for it.
 *
 * - `calendarId` is the calendar collection: its path ("/user/calendars/work/") or its full URL
 *   on the configured server. A calendarId on another origin is refused before any request,
 *   because the request would carry the account's credentials there.
 * - `eventId` is the calendar object resource (RFC 4791 §4.1): its name in the collection,
 *   percent-decoded, without the ".ics" every CalDAV client gives it. The gateway's own events
 *   are written to `<collection>/<encodeURIComponent(eventId)>.ics`, so a synced event and a
 *   written one name the same resource by the same id. A resource holds one UID: a series
 *   master and all its RECURRENCE-ID overrides, so they share one eventId; a deleted resource
 *   removes all of them. (A foreign resource named without ".ics" keeps its full name as its id;
 *   the gateway only ever writes and deletes its own events.)
 */
import type { Result } from "../../protocol/result.js";

/** The URL, or the message saying why the id names none on this server. */
export type Located = Result<URL, string>;

/** The collection URL of a calendarId, always ending in "/" (collections are addressed so). */
export function calendarUrl(server: URL, calendarId: string): Located {
  if (calendarId.trim() === "") return { ok: false, error: "calendarId is empty: give the calendar's path" };
  let url: URL;
  try {
    url = new URL(calendarId, server);
  } catch {
    return { ok: false, error: "calendarId is not a path or URL" };
  }
  if (url.origin !== server.origin)
    return { ok: false, error: "calendarId names another server than the configured one" };
  if (url.search !== "" || url.hash !== "")
    return { ok: false, error: "calendarId has a query or fragment: give the calendar's path" };
  if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
  return { ok: true, value: url };
}

const MAX_EVENT_ID = 200;

/** The resource URL of one of the gateway's own events. */
export function eventUrl(calendar: URL, eventId: string): Located {
  if (eventId === "" || eventId.length > MAX_EVENT_ID)
    return { ok: false, error: `eventId must be 1 to ${MAX_EVENT_ID} characters` };
  return { ok: true, value: new URL(`${encodeURIComponent(eventId)}.ics`, calendar) };
}

/** The eventId of a resource href as the server wrote it (a path, a full URL or relative). */
export function eventIdOf(calendar: URL, href: string): string {
  const path = new URL(href, calendar).pathname;
  const name = path.startsWith(calendar.pathname) ? path.slice(calendar.pathname.length) : path;
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // Kept as written: the id still names the resource the server listed.
  }
  return decoded.endsWith(".ics") && decoded.length > 4 ? decoded.slice(0, -4) : decoded;
}

/** True for the collection itself (sync and query answers may list it). */
export function isCollection(calendar: URL, href: string): boolean {
  const path = new URL(href, calendar).pathname;
  return path.endsWith("/");
}
