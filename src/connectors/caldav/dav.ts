/**
 * The WebDAV/CalDAV requests the connector makes (PROPFIND sync-token, calendar-query,
 * calendar-multiget, sync-collection) and the reading of their 207 Multi-Status answers.
 *
 * Why not tsdav's own calendarQuery / syncCollection: they send through tsdav's fetch and hand
 * back neither the response headers (request id, Retry-After, Server for UpstreamMeta) nor a
 * per-call abort signal, and they throw on a failed query with the raw answer in the message.
 * So the bodies are written here (short, fixed XML, with the two values that vary escaped) and
 * sent by upstream.ts like every other request; tsdav's `davRequest` is used for what it is good
 * at, reading the Multi-Status XML, by replaying the answer we already received into it. That
 * reading (xml-js over sax) is not linear for every hostile input, so it runs in the parse
 * worker (parse-worker.ts, off-thread.ts), never on the event loop.
 */
import { davRequest, type DAVResponse } from "tsdav";

const NS = `xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"`;

const xmlText = (value: string): string =>
  value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** RFC 6578 §6.3: the collection's current sync-token (absent where the server has none). */
export const syncTokenPropfind = `<?xml version="1.0" encoding="utf-8"?>
<D:propfind ${NS}><D:prop><D:sync-token/></D:prop></D:propfind>`;

/** "YYYYMMDDTHHMMSSZ" (RFC 4791 §9.9 time-range values are UTC date-times). */
function utcStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/**
 * RFC 4791 §7.8 calendar-query for VEVENT resources. `match` is a time-range (the full sync's
 * window) or a property that must be present (RRULE, RDATE): servers that test a time range
 * against the first instance only (xandikos 0.2) would otherwise miss a series that began
 * before the window. No <C:expand>: recurrence stays as written, src/calendar expands it.
 */
export function calendarQuery(
  match: { readonly start: number; readonly end: number } | { readonly property: "RRULE" | "RDATE" },
): string {
  const test =
    "property" in match
      ? `<C:prop-filter name="${match.property}"/>`
      : `<C:time-range start="${utcStamp(match.start)}" end="${utcStamp(match.end)}"/>`;
  return `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query ${NS}><D:prop><D:getetag/><C:calendar-data/></D:prop>
<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">${test}</C:comp-filter></C:comp-filter></C:filter>
</C:calendar-query>`;
}

/** RFC 4791 §7.9 calendar-multiget of the resources a sync-collection reported changed. */
export function calendarMultiget(hrefs: readonly string[]): string {
  const list = hrefs.map((h) => `<D:href>${xmlText(h)}</D:href>`).join("");
  return `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-multiget ${NS}><D:prop><D:getetag/><C:calendar-data/></D:prop>${list}</C:calendar-multiget>`;
}

/** RFC 6578 §3.2 sync-collection, level 1 (a calendar has no nested collections). */
export function syncCollection(token: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<D:sync-collection ${NS}><D:sync-token>${xmlText(token)}</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`;
}

export interface DavResource {
  readonly href: string;
  /** The response's status (a propstat's 200, or the response's own 404 for a removed member). */
  readonly status: number;
  readonly etag?: string;
  readonly calendarData?: string;
  readonly syncToken?: string;
}

export interface Multistatus {
  readonly resources: readonly DavResource[];
  /** The new sync-token of a sync-collection answer. */
  readonly syncToken?: string;
}

/**
 * tsdav's reader turns text into numbers and booleans where it can (safe integers only); the
 * values read here are text and survive String(): ETags are quoted, sync-tokens are URIs or
 * 40-digit hashes, calendar data is never a number.
 */
function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value !== null && typeof value === "object") {
    const v = value as { _text?: unknown; _cdata?: unknown };
    return textOf(v._cdata ?? v._text);
  }
  return undefined;
}

/** The Multi-Status of a 207 answer's body, or undefined when it is not one (parse worker only). */
export async function parseMultistatus(
  body: string,
  contentType: string | null,
  url: string,
): Promise<Multistatus | undefined> {
  let responses: DAVResponse[];
  try {
    responses = await davRequest({
      url,
      init: { method: "REPORT", body: "" },
      convertIncoming: false,
      fetch: () =>
        Promise.resolve(
          new Response(body, {
            status: 207,
            headers: { "content-type": contentType ?? "application/xml" },
          }),
        ),
    });
  } catch {
    return undefined;
  }
  const first = responses[0];
  const raw = first?.raw as { multistatus?: { syncToken?: unknown } } | undefined;
  if (raw?.multistatus === undefined) return undefined;
  const resources: DavResource[] = [];
  for (const r of responses) {
    const href = textOf(r.href);
    if (href === undefined) continue;
    const props = r.props ?? {};
    const etag = textOf(props["getetag"]);
    const calendarData = textOf(props["calendarData"]);
    const syncToken = textOf(props["syncToken"]);
    resources.push({
      href,
      status: r.status,
      ...(etag === undefined ? {} : { etag }),
      ...(calendarData === undefined ? {} : { calendarData }),
      ...(syncToken === undefined ? {} : { syncToken }),
    });
  }
  const syncToken = textOf(raw.multistatus.syncToken);
  return { resources, ...(syncToken === undefined ? {} : { syncToken }) };
}
