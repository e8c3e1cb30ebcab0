/**
 * What an upstream offers a host being set up: the calendars of a
 * Google, Microsoft or CalDAV account, or a Square seller's locations, team and bookable
 * services. The setup page shows these as choices, so the owner picks instead of typing ids.
 *
 * Every call goes through the connectors' one upstream client (src/connectors/http.ts: pin,
 * User-Agent, timeout, credentials attached there only), with the host's token from the
 * gateway's vault (credentials/host-tokens.ts) or, for CalDAV, its sealed Basic credentials.
 * The composition root hands those clients in (`SetupConnectors`), with each platform's default
 * origin and the CalDAV discovery. Base URLs are overridable (`baseUrls`, and the host's own
 * Square/Graph `baseUrl` setting), so tests point them at loopback fakes.
 *
 * Documented shapes read here:
 * - Google CalendarList: list — GET /calendar/v3/users/me/calendarList
 *   https://developers.google.com/calendar/api/v3/reference/calendarList/list
 *   { items: [{ id, summary, summaryOverride?, primary?, accessRole }], nextPageToken? }
 * - Microsoft Graph "List calendars" — GET /v1.0/me/calendars
 *   https://learn.microsoft.com/en-us/graph/api/user-list-calendars
 *   { value: [{ id, name, canEdit, isDefaultCalendar }], "@odata.nextLink"? }
 * - Square ListLocations — GET /v2/locations
 *   https://developer.squareup.com/reference/square/locations-api/list-locations
 *   { locations: [{ id, name, timezone, status }] }
 * - Square SearchTeamMembers — POST /v2/team-members/search
 *   https://developer.squareup.com/reference/square/team-api/search-team-members
 *   { team_members: [{ id, given_name, family_name, status }], cursor? }
 * - Square SearchCatalogObjects — POST /v2/catalog/search (object_types ITEM)
 *   https://developer.squareup.com/reference/square/catalog-api/search-catalog-objects
 *   { objects: [{ type: "ITEM", item_data: { name, product_type: "APPOINTMENTS_SERVICE",
 *     variations: [{ id, item_variation_data: { name, service_duration, available_for_booking } }] } }],
 *   cursor? }
 */
import { err, ok, type Result } from "../../../protocol/result.js";
import type { BasicCredentialVault } from "../connect/basic-vault.js";
import {
  checkCaldav,
  connectCaldav,
  type CaldavCheck,
  type CaldavCheckRequest,
  type CaldavDiscovery,
} from "../connect/caldav.js";
import { vaultHostTokens, type VaultCredentials } from "../../../gateway/credentials/host-tokens.js";
import type { ManagedHostRecord } from "../managed-hosts.js";
import type { Clock } from "../../../protocol/clock.js";

interface CalendarChoice {
  readonly id: string;
  readonly name: string;
  /** The account's main calendar (Google primary, Graph isDefaultCalendar). */
  readonly primary: boolean;
  /** Events can be written to it (the write calendar must be). */
  readonly writable: boolean;
}

interface SquareChoices {
  readonly kind: "square";
  readonly locations: ReadonlyArray<{
    readonly id: string;
    readonly name: string;
    readonly timezone?: string;
  }>;
  readonly team: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  /** Bookable service variations: their id is the host's service id (connectors/square/catalog.ts). */
  readonly services: ReadonlyArray<{
    readonly id: string;
    readonly name: string;
    readonly durationMinutes?: number;
  }>;
}

export type HostChoices =
  { readonly kind: "calendar"; readonly calendars: readonly CalendarChoice[] } | SquareChoices;

export interface SetupChoices {
  /** What the record's upstream offers; a failure says, in words for the owner, why not. */
  load(record: ManagedHostRecord): Promise<Result<HostChoices, { readonly message: string }>>;
  /** Check a CalDAV account live and, when it answers with calendars, seal its password. */
  connectCaldav(hostId: string, req: CaldavCheckRequest): Promise<CaldavCheck>;
}

/** One JSON call to a platform's API: a path under its version, or a link it handed back. */
type SetupRequest =
  | {
      readonly method: "GET" | "POST";
      readonly path: string;
      readonly query?: Readonly<Record<string, string | number>>;
      /** Sent as JSON. */
      readonly body?: unknown;
    }
  | { readonly method: "GET"; readonly link: string };

/** A platform's API as the setup page reads it: the status and parsed JSON body, or why none. */
interface SetupUpstream {
  request(
    req: SetupRequest,
  ): Promise<Result<{ readonly status: number; readonly body: unknown }, { readonly code: string }>>;
}

/** The host's account: its current access token, and the fetch that carries it. */
interface SetupAccount {
  readonly accessToken: () => Promise<string>;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
}

/**
 * What the setup page needs of the connectors, handed in by the composition root: each
 * platform's upstream client with its default origin, and the CalDAV discovery.
 */
export interface SetupConnectors {
  /** Google Calendar v3 at `rootUrl`, else Google's own origin. */
  google(account: SetupAccount & { readonly rootUrl?: string }): SetupUpstream;
  /** Microsoft Graph at `baseUrl`, its version included ("https://graph.microsoft.com/v1.0"). */
  microsoft(account: SetupAccount & { readonly baseUrl: string }): SetupUpstream;
  /** Square pinned to `version` (Square-Version), at `baseUrl`, else the environment's origin. */
  square(
    account: SetupAccount & {
      readonly environment: "sandbox" | "production";
      readonly version: string;
      readonly baseUrl?: string;
    },
  ): SetupUpstream;
  readonly caldav: CaldavDiscovery;
}

export interface SetupChoicesDeps {
  readonly connectors: SetupConnectors;
  /** The token vault and the environment the OAuth client's secret is read from. */
  readonly credentials?: VaultCredentials;
  /** A CalDAV host's sealed username and password (written by connectCaldav). */
  readonly basicVault?: BasicCredentialVault;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly timeoutMs?: number;
  /** Overrides of each platform's origin (tests: loopback fakes). Graph's includes "/v1.0". */
  readonly baseUrls?: { readonly google?: string; readonly microsoft?: string; readonly square?: string };
}

const GRAPH_BASE_URL = "https://graph.microsoft.com/v1.0";
const MAX_PAGES = 5;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

type Loaded<T> = Result<T, { readonly message: string }>;
const failed = (message: string) => err({ message });

/** One GET/POST through the upstream client: the JSON body of a 2xx, or a message. */
async function call(upstream: SetupUpstream, what: string, req: SetupRequest): Promise<Loaded<Json>> {
  const res = await upstream.request(req);
  if (!res.ok)
    return failed(
      res.error.code === "unauthorized"
        ? `${what}: the connection was refused; connect the account again.`
        : `${what}: the platform could not be reached (${res.error.code}); try again shortly.`,
    );
  if (res.value.status < 200 || res.value.status > 299 || !isObject(res.value.body))
    return failed(`${what}: the platform answered ${res.value.status}.`);
  return ok(res.value.body);
}

export function createSetupChoices(deps: SetupChoicesDeps): SetupChoices {
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const tokensFor = (record: ManagedHostRecord) => {
    const settings = connectorSettings(record);
    return vaultHostTokens(record.id, settings, (inner) => `/connector/settings${inner}`, {
      ...(deps.credentials !== undefined && { credentials: deps.credentials }),
      ...(deps.fetch !== undefined && { fetch: deps.fetch }),
      ...(deps.clock !== undefined && { clock: deps.clock }),
    });
  };

  async function google(record: ManagedHostRecord): Promise<Loaded<HostChoices>> {
    const tokens = tokensFor(record);
    if (!tokens.ok) return failed(tokens.error.message);
    const rootUrl = deps.baseUrls?.google;
    const upstream = deps.connectors.google({
      accessToken: tokens.value.accessToken,
      timeoutMs,
      ...(rootUrl !== undefined && { rootUrl }),
      fetch: tokens.value.fetch,
    });
    const calendars: CalendarChoice[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const got = await call(upstream, "Google calendars", {
        method: "GET",
        path: "/users/me/calendarList",
        query: { maxResults: 250, ...(pageToken !== undefined && { pageToken }) },
      });
      if (!got.ok) return got;
      for (const c of arr(got.value.items)) {
        if (!isObject(c) || str(c.id) === undefined) continue;
        calendars.push({
          id: c.id as string,
          name: str(c.summaryOverride) ?? str(c.summary) ?? (c.id as string),
          primary: c.primary === true,
          writable: c.accessRole === "owner" || c.accessRole === "writer",
        });
      }
      pageToken = str(got.value.nextPageToken);
      if (pageToken === undefined) break;
    }
    return ok({ kind: "calendar", calendars });
  }

  async function microsoft(record: ManagedHostRecord): Promise<Loaded<HostChoices>> {
    const tokens = tokensFor(record);
    if (!tokens.ok) return failed(tokens.error.message);
    const upstream = deps.connectors.microsoft({
      accessToken: tokens.value.accessToken,
      baseUrl: str(connectorSettings(record).baseUrl) ?? deps.baseUrls?.microsoft ?? GRAPH_BASE_URL,
      timeoutMs,
      fetch: tokens.value.fetch,
    });
    const calendars: CalendarChoice[] = [];
    let link: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const got = await call(
        upstream,
        "Microsoft calendars",
        link === undefined ? { method: "GET", path: "/me/calendars" } : { method: "GET", link },
      );
      if (!got.ok) return got;
      for (const c of arr(got.value.value)) {
        if (!isObject(c) || str(c.id) === undefined) continue;
        calendars.push({
          id: c.id as string,
          name: str(c.name) ?? (c.id as string),
          primary: c.isDefaultCalendar === true,
          writable: c.canEdit === true,
        });
      }
      link = str(got.value["@odata.nextLink"]);
      if (link === undefined) break;
    }
    return ok({ kind: "calendar", calendars });
  }

  async function caldav(record: ManagedHostRecord): Promise<Loaded<HostChoices>> {
    const saved = await deps.basicVault?.get(record.id);
    if (saved === undefined)
      return failed("No CalDAV username and password are saved for this host: connect the calendar first.");
    const found = await checkCaldav(saved, {
      discovery: deps.connectors.caldav,
      timeoutMs,
      ...(deps.fetch !== undefined && { fetch: deps.fetch }),
    });
    if (!found.ok) return failed(found.error.message);
    return ok({
      kind: "calendar",
      calendars: found.value.map((c) => ({
        id: c.calendarId,
        name: c.displayName ?? c.calendarId,
        primary: false,
        writable: true,
      })),
    });
  }

  async function square(record: ManagedHostRecord): Promise<Loaded<HostChoices>> {
    const settings = connectorSettings(record);
    const tokens = tokensFor(record);
    if (!tokens.ok) return failed(tokens.error.message);
    const baseUrl = str(settings.baseUrl) ?? deps.baseUrls?.square;
    const upstream = deps.connectors.square({
      accessToken: tokens.value.accessToken,
      environment: settings.environment === "sandbox" ? "sandbox" : "production",
      version: str(settings.version) ?? SQUARE_DEFAULT_VERSION,
      ...(baseUrl !== undefined && { baseUrl }),
      timeoutMs,
      fetch: tokens.value.fetch,
    });
    const locations = await call(upstream, "Square locations", { method: "GET", path: "/v2/locations" });
    if (!locations.ok) return locations;
    const team: { id: string; name: string }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const got = await call(upstream, "Square team", {
        method: "POST",
        path: "/v2/team-members/search",
        body: {
          query: { filter: { status: "ACTIVE" } },
          limit: 200,
          ...(cursor !== undefined && { cursor }),
        },
      });
      if (!got.ok) return got;
      for (const m of arr(got.value.team_members)) {
        if (!isObject(m) || str(m.id) === undefined) continue;
        const name = [str(m.given_name), str(m.family_name)].filter((s) => s !== undefined).join(" ");
        team.push({ id: m.id as string, name: name === "" ? (m.id as string) : name });
      }
      cursor = str(got.value.cursor);
      if (cursor === undefined) break;
    }
    const services: { id: string; name: string; durationMinutes?: number }[] = [];
    cursor = undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const got = await call(upstream, "Square services", {
        method: "POST",
        path: "/v2/catalog/search",
        body: {
          object_types: ["ITEM"],
          include_related_objects: false,
          ...(cursor !== undefined && { cursor }),
        },
      });
      if (!got.ok) return got;
      for (const o of arr(got.value.objects)) {
        const item = isObject(o) && isObject(o.item_data) ? o.item_data : undefined;
        if (item === undefined || item.product_type !== "APPOINTMENTS_SERVICE") continue;
        for (const v of arr(item.variations)) {
          const data = isObject(v) && isObject(v.item_variation_data) ? v.item_variation_data : undefined;
          if (data === undefined || str((v as Json).id) === undefined || data.available_for_booking === false)
            continue;
          const ms = typeof data.service_duration === "number" ? data.service_duration : undefined;
          const variation = str(data.name);
          services.push({
            id: (v as Json).id as string,
            name: [str(item.name), variation].filter((s) => s !== undefined).join(" — "),
            ...(ms !== undefined && { durationMinutes: Math.round(ms / 60_000) }),
          });
        }
      }
      cursor = str(got.value.cursor);
      if (cursor === undefined) break;
    }
    return ok({
      kind: "square",
      locations: arr(locations.value.locations)
        .filter((l): l is Json => isObject(l) && str(l.id) !== undefined && l.status !== "INACTIVE")
        .map((l) => ({
          id: l.id as string,
          name: str(l.name) ?? (l.id as string),
          ...(str(l.timezone) !== undefined && { timezone: l.timezone as string }),
        })),
      team,
      services,
    });
  }

  return {
    connectCaldav: (hostId, req) =>
      deps.basicVault === undefined
        ? Promise.resolve({
            ok: false,
            error: {
              kind: "invalid",
              message:
                "This gateway keeps no CalDAV passwords: set TOKEN_KEYS to turn its credential vault on.",
            },
          })
        : connectCaldav(hostId, req, deps.basicVault, {
            discovery: deps.connectors.caldav,
            timeoutMs,
            ...(deps.fetch !== undefined && { fetch: deps.fetch }),
          }),
    load: (record) => {
      switch (record.source) {
        case "google":
          return google(record);
        case "microsoft":
          return microsoft(record);
        case "caldav":
          return caldav(record);
        case "square":
          return square(record);
      }
    },
  };
}

/** The Square-Version a new host is pinned to: the installed SDK's own default (connectors/square/client.ts). */
export const SQUARE_DEFAULT_VERSION = "2026-09-16";

function connectorSettings(record: ManagedHostRecord): Json {
  const connector = record.config.connector;
  return isObject(connector) && isObject(connector.settings) ? connector.settings : {};
}
