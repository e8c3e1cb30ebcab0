/**
 * Skeletons of the calendar APIs behind the grants, for the step appended after Connect
 * ("continue to setup, save, see the host in /.well-known/scheduling.json with availability"):
 * loopback servers that accept only the access tokens the stand-in authorization server issued
 * (so a call made with anything but the stored grant is refused as the real API would), in the
 * shapes of fixtures/google and fixtures/microsoft (their SOURCES.md names each reference page).
 * They answer for the real origins through routing.ts, like the stand-ins.
 *
 * - Google Calendar API v3 (https://developers.google.com/calendar/api/v3/reference):
 *   GET users/me/calendarList, GET calendars/{id}/events (full list with nextSyncToken; a
 *   syncToken gives the changes since), POST calendars/{id}/events (insert), POST freeBusy,
 *   GET and PATCH calendars/{id}/events/{eventId} ("Events: get", "Events: patch"). A PATCH
 *   changes only the fields it carries: nested objects merge, arrays are replaced, null clears
 *   (guide "Improve performance", "Patch (partial update)"); with If-Match naming another etag
 *   it is 412 fixtures/google/error-412-condition-not-met.json (guide "Version resources").
 *   Every change gives the event a new etag. 401 answers
 *   fixtures/google/error-401-invalid-credentials.json.
 * - Microsoft Graph v1.0 (https://learn.microsoft.com/en-us/graph/api/resources/event):
 *   GET me/calendars, GET me/[calendars/{id}/]calendarView/delta (value + @odata.deltaLink on
 *   graph.microsoft.com), POST me/[calendars/{id}/]events (201), GET and PATCH me/events/{id}
 *   ("Get event", "Update event": properties left out of the body keep their values; a complex
 *   property given replaces the old one). A PATCH with If-Match naming another version is 412
 *   fixtures/microsoft/error-412-irresolvable-conflict.json; every change gives the event a new
 *   changeKey and @odata.etag. 401 answers
 *   fixtures/microsoft/error-401-invalid-authentication-token.json.
 * - Square shares its origin with its OAuth endpoints (connect.squareup.com), so its API is the
 *   existing fake, test/e2e/support/fake-square.ts (FakeSquareServer, built with the token the
 *   Square stand-in is told to issue, `fixedAccessToken`), reached through the host's `baseUrl`
 *   setting, as test/e2e/platform-hosts.test.ts does.
 *
 * Skeletons: one in-memory event list per calendar; no recurrence, paging, create conflicts or
 * notifications (the connector tests cover those against the recorded shapes with nock).
 */
import { randomBytes } from "node:crypto";
import { readFixtureJson } from "../fixtures.js";
import { json, startLoopback, type Loopback, type ReceivedRequest } from "./loopback.js";
import type { OAuthStandin } from "./standin.js";

export interface CalendarApiFake extends Loopback {
  readonly realOrigins: readonly string[];
  /** Events by calendar id, as the API holds them (Google or Graph event objects). */
  readonly events: Map<string, Record<string, unknown>[]>;
  /**
   * Every access token issued so far is refused from now on (401), as an expired or revoked
   * token is: the gateway must refresh its grant to go on.
   */
  expireTokens(): void;
}

/** Tokens refused although the authorization server issued them (expireTokens). */
class Expired {
  private readonly tokens = new Set<string>();
  expire(auth: TokenSource): void {
    for (const g of auth.grants) this.tokens.add(g.accessToken);
  }
  has(token: string | undefined): boolean {
    return token !== undefined && this.tokens.has(token);
  }
}

const bearer = (r: ReceivedRequest): string | undefined =>
  /^Bearer (.+)$/.exec(r.headers["authorization"] ?? "")?.[1];
/** Whose tokens the API takes: the stand-in's grants (or, in a connector test, a fixed list). */
export type TokenSource = Pick<OAuthStandin, "grants">;

const granted = (auth: TokenSource, r: ReceivedRequest, expired: Expired): boolean => {
  const t = bearer(r);
  return t !== undefined && !expired.has(t) && auth.grants.some((g) => g.accessToken === t);
};
const etag = () => `"${randomBytes(8).toString("hex")}"`;

const GOOGLE_NOT_FOUND = {
  error: {
    code: 404,
    message: "Not Found",
    errors: [{ domain: "global", reason: "notFound", message: "Not Found" }],
  },
};

/** The account's address: calendarList names the primary calendar by it, and "primary" is its alias. */
const GOOGLE_ACCOUNT = "owner@example.com";

/** "Events: patch": the body's members replace, nested objects merge, arrays replace, null clears. */
function patched(
  target: Record<string, unknown>,
  patch: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (typeof v === "object" && !Array.isArray(v) && typeof out[k] === "object" && out[k] !== null)
      out[k] = patched(out[k] as Record<string, unknown>, v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

export async function startGoogleCalendarFake(auth: TokenSource): Promise<CalendarApiFake> {
  const events = new Map<string, Record<string, unknown>[]>([["primary", []]]);
  const list = (id: string) => {
    const key = id === GOOGLE_ACCOUNT ? "primary" : id;
    return events.get(key) ?? events.set(key, []).get(key)!;
  };
  const expired = new Expired();
  const server = await startLoopback((r) => {
    if (!granted(auth, r, expired))
      return json(401, readFixtureJson("google/error-401-invalid-credentials.json"), {
        "www-authenticate": 'Bearer realm="https://accounts.google.com/"',
      });
    const path = r.path.replace(/^\/calendar\/v3/, "");
    if (r.method === "GET" && path === "/users/me/calendarList")
      return json(200, {
        kind: "calendar#calendarList",
        etag: etag(),
        nextSyncToken: randomBytes(8).toString("hex"),
        items: [...events.keys()].map((id) => ({
          kind: "calendar#calendarListEntry",
          id: id === "primary" ? GOOGLE_ACCOUNT : id,
          summary: id === "primary" ? GOOGLE_ACCOUNT : id,
          timeZone: "America/New_York",
          accessRole: "owner",
          primary: id === "primary",
        })),
      });
    if (r.method === "POST" && path === "/freeBusy") {
      const b = r.body ?? {};
      const items = Array.isArray(b["items"]) ? (b["items"] as { id: string }[]) : [];
      return json(200, {
        kind: "calendar#freeBusy",
        timeMin: b["timeMin"],
        timeMax: b["timeMax"],
        calendars: Object.fromEntries(
          items.map(({ id }) => [
            id,
            {
              busy: list(id)
                .filter((e) => e["transparency"] !== "transparent")
                .map((e) => ({
                  start: (e["start"] as { dateTime?: string }).dateTime,
                  end: (e["end"] as { dateTime?: string }).dateTime,
                })),
            },
          ]),
        ),
      });
    }
    const one = /^\/calendars\/([^/]+)\/events\/([^/]+)$/.exec(path);
    if (one !== null) {
      const calendar = list(decodeURIComponent(one[1]!));
      const at = calendar.findIndex((e) => e["id"] === decodeURIComponent(one[2]!));
      const event = calendar[at];
      if (event === undefined) return json(404, GOOGLE_NOT_FOUND);
      if (r.method === "GET") return json(200, event);
      if (r.method === "PATCH") {
        const ifMatch = r.headers["if-match"];
        if (ifMatch !== undefined && ifMatch !== event["etag"])
          return json(412, readFixtureJson("google/error-412-condition-not-met.json"));
        const next = { ...patched(event, r.body ?? {}), etag: etag(), updated: new Date().toISOString() };
        calendar[at] = next;
        return json(200, next);
      }
    }
    const m = /^\/calendars\/([^/]+)\/events$/.exec(path);
    if (m !== null) {
      const id = decodeURIComponent(m[1]!);
      if (r.method === "GET")
        return json(200, {
          kind: "calendar#events",
          etag: etag(),
          summary: id,
          timeZone: "America/New_York",
          accessRole: "owner",
          items: list(id),
          nextSyncToken: randomBytes(8).toString("hex"),
        });
      if (r.method === "POST") {
        const now = new Date().toISOString();
        const eventId = typeof r.body?.["id"] === "string" ? r.body["id"] : randomBytes(12).toString("hex");
        if (list(id).some((e) => e["id"] === eventId))
          return json(409, readFixtureJson("google/error-409-duplicate.json"));
        const event = {
          kind: "calendar#event",
          etag: etag(),
          status: "confirmed",
          ...r.body,
          id: eventId,
          created: now,
          updated: now,
          iCalUID: `${eventId}@google.com`,
          sequence: 0,
          eventType: "default",
        };
        list(id).push(event);
        return json(200, event);
      }
    }
    return json(404, GOOGLE_NOT_FOUND);
  });
  return {
    ...server,
    realOrigins: ["https://www.googleapis.com"],
    events,
    expireTokens: () => expired.expire(auth),
  };
}

export async function startGraphCalendarFake(auth: TokenSource): Promise<CalendarApiFake> {
  const events = new Map<string, Record<string, unknown>[]>([["default", []]]);
  const list = (id: string) => events.get(id) ?? events.set(id, []).get(id)!;
  const GRAPH = "https://graph.microsoft.com/v1.0";
  const expired = new Expired();
  const server = await startLoopback((r) => {
    if (!granted(auth, r, expired))
      return json(401, readFixtureJson("microsoft/error-401-invalid-authentication-token.json"));
    const path = r.path.replace(/^\/v1\.0/, "");
    if (r.method === "GET" && path === "/me/calendars")
      return json(200, {
        "@odata.context": `${GRAPH}/$metadata#users('me')/calendars`,
        value: [...events.keys()].map((id) => ({
          id,
          name: id === "default" ? "Calendar" : id,
          isDefaultCalendar: id === "default",
          canEdit: true,
        })),
      });
    const delta = /^\/me(?:\/calendars\/([^/]+))?\/calendarView\/delta$/.exec(path);
    if (r.method === "GET" && delta !== null) {
      const id = delta[1] === undefined ? "default" : decodeURIComponent(delta[1]);
      return json(200, {
        "@odata.context": `${GRAPH}/$metadata#Collection(event)`,
        "@odata.deltaLink": `${GRAPH}${path}?$deltatoken=${randomBytes(12).toString("base64url")}`,
        value: list(id),
      });
    }
    const create = /^\/me(?:\/calendars\/([^/]+))?\/events$/.exec(path);
    if (r.method === "POST" && create !== null) {
      const id = create[1] === undefined ? "default" : decodeURIComponent(create[1]);
      const eventId = `AAMk${randomBytes(12).toString("base64url")}`;
      const event = {
        "@odata.type": "#microsoft.graph.event",
        "@odata.etag": `W/${etag()}`,
        isCancelled: false,
        showAs: "busy",
        type: "singleInstance",
        ...r.body,
        id,
        changeKey: randomBytes(8).toString("base64"),
      };
      event.id = eventId;
      list(id).push(event);
      return json(201, event);
    }
    const one = /^\/me\/events\/([^/]+)$/.exec(path);
    if (one !== null) {
      const id = decodeURIComponent(one[1]!);
      const found = [...events.values()].find((l) => l.some((e) => e["id"] === id));
      const at = found?.findIndex((e) => e["id"] === id) ?? -1;
      const event = found?.[at];
      if (found === undefined || event === undefined)
        return json(404, {
          error: { code: "ErrorItemNotFound", message: "The specified object was not found in the store." },
        });
      if (r.method === "GET") return json(200, event);
      if (r.method === "PATCH") {
        const ifMatch = r.headers["if-match"];
        if (ifMatch !== undefined && ifMatch !== event["@odata.etag"])
          return json(412, readFixtureJson("microsoft/error-412-irresolvable-conflict.json"));
        const changeKey = randomBytes(8).toString("base64");
        const next = { ...event, ...r.body, changeKey, "@odata.etag": `W/"${changeKey}"` };
        found[at] = next;
        return json(200, next);
      }
    }
    return json(404, { error: { code: "ResourceNotFound", message: "Resource not found." } });
  });
  return {
    ...server,
    realOrigins: ["https://graph.microsoft.com"],
    events,
    expireTokens: () => expired.expire(auth),
  };
}
