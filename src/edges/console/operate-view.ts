/**
 * What the console's Operate page shows, gathered from the same sources as the operator API
 * (operator-hosts.ts, operator-upstreams.ts, operator-routes.ts): every host's health, calendar
 * hosts' last sync, upstream Deprecation/Sunset notices, bookings waiting for the host's answer
 * and the next bookings, each with who it is for (the guest's name and contact, while the
 * booking's record keeps them: booking/bookings/guest.ts). Plain data with times already
 * written in each host's zone, the zone named; the page (pages.ts) only lays it out. A business owner's view holds only the hosts they own
 * (accounts-access.ts): nothing of another owner's host is gathered at all.
 */
import type { BookingListRequest, HostRuntime } from "../../booking/api.js";
import { MAX_BOOKING_PAGE } from "../../booking/operator/list.js";
import type { BookingView } from "../../booking/view.js";
import type { ConsoleAppDeps } from "./app-deps.js";
import type { ConsoleViewer, ManagedHostRecord } from "./managed-hosts.js";
import { viewerRecords } from "./accounts-access.js";
import { OAUTH_PROVIDERS, type OAuthProvider } from "../../gateway/credentials/record.js";
import { describeGuest } from "../../booking/bookings/guest.js";
import { readableSpan, readableTime } from "../../protocol/time/index.js";
import type { Place } from "../../protocol/place.js";

/** One line for a place: "Stanley Park, 1 Main St, Vancouver, V6G 1Z4, CA". */
export const placeLine = (p: Place): string =>
  [p.name, p.street, p.locality, p.region, p.postal_code, p.country]
    .filter((x) => x !== undefined)
    .join(", ");

/** A host whose connector keeps its grant in the gateway's vault: Connect can (re)connect it. */
interface ConnectRow {
  readonly hostId: string;
  readonly name: string;
  readonly provider: OAuthProvider;
  /** Absent: this gateway has no OAuth client for the provider (serve's Connect banner says which). */
  readonly href?: string;
  /** Whether the vault holds a grant for the host; "unreadable" when it could not be opened. */
  readonly grant: "present" | "absent" | "unreadable";
}

interface HostRow {
  readonly hostId: string;
  readonly name: string;
  readonly health: "ok" | "degraded" | "needs_reconnection";
  readonly since?: string;
  readonly lastError?: {
    readonly code: string;
    readonly message: string;
    readonly at: string;
    /** Why it failed, when the gateway knows more than the code (expansion_bound…). */
    readonly reason?: string;
  };
  /** A console-created host that is set up: its settings page. */
  readonly settingsHref?: string;
  /** A person's calendar (SchCP §7.7): their contacts and rules (people-routes.ts). */
  readonly contactsHref?: string;
  readonly rulesHref?: string;
  /** Issue the host's Servicialo A2A API key (console/a2a-key-routes.ts). */
  readonly a2aKeyHref?: string;
  /** A host whose credentials the gateway keeps, when disconnect is served here. */
  readonly disconnectHref?: string;
}

interface SyncRow {
  readonly hostName: string;
  readonly calendarId?: string;
  /** Absent: the calendar was not read yet. */
  readonly at?: string;
  readonly kind?: string;
  readonly outcome?: string;
  readonly error?: string;
}

interface NoticeRow {
  readonly hostName: string;
  readonly vendor: string;
  readonly call: string;
  readonly deprecation?: string;
  readonly sunset?: string;
  readonly lastSeen: string;
}

export interface BookingRow {
  readonly hostId: string;
  readonly hostName: string;
  readonly bookingId: string;
  /** Who it is for: "Ana Ruiz (ana@mail.com, +56 9 1111 2222)"; absent when not given or no longer kept. */
  readonly guest?: string;
  readonly service: string;
  /** Its time on the host's clock, the zone named. */
  readonly when: string;
  readonly start: number;
  readonly status: string;
  readonly partySize?: number;
  readonly resource?: string;
  readonly answerBy?: string;
  /** The host's counter still open (§5.11), in words: its time, and its place when it names one. */
  readonly counter?: string;
  /** SchCP §5.12: a meeting the calendar's person answers as a member, with their own acceptance. */
  readonly meeting?: true;
}

export interface OperateView {
  readonly hosts: readonly HostRow[];
  readonly syncs: readonly SyncRow[];
  readonly notices: readonly NoticeRow[];
  readonly pending: readonly BookingRow[];
  readonly upcoming: readonly BookingRow[];
  /** Hosts whose bookings could not be listed (the page says so rather than showing none). */
  readonly unlisted: readonly string[];
  /**
   * Hosts with more bookings than the page reads (WALK_PAGES pages of the operator list): the
   * rest is reached through the operator API's list (`next_cursor`).
   */
  readonly more?: readonly string[];
  /** Vault hosts, when Connect is on (empty otherwise). */
  readonly connect: readonly ConnectRow[];
}

const UPCOMING_LIMIT = 20;
/** Pages of the operator list read per host and question (each one bounded read of the store). */
const WALK_PAGES = 10;
const DAY_MS = 86_400_000;

/** Statuses of a booking that still takes its time. */
const LIVE = new Set(["pending_host", "tentative", "confirmed"]);

/**
 * The host's bookings the query selects, newest first, up to `pages` pages of the operator list;
 * undefined if refused. Operate and the week view both read through it.
 */
export async function walkBookings(
  deps: Pick<ConsoleAppDeps, "api">,
  hostId: string,
  query: BookingListRequest,
  pages: number = WALK_PAGES,
): Promise<{ bookings: BookingView[]; more: boolean } | undefined> {
  const bookings: BookingView[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < pages; page++) {
    const listed = await deps.api.pageBookings(hostId, {
      ...query,
      limit: MAX_BOOKING_PAGE,
      ...(cursor !== undefined && { cursor }),
    });
    if (!listed.ok) return undefined;
    bookings.push(...listed.value.bookings);
    cursor = listed.value.nextCursor;
    if (cursor === undefined) return { bookings, more: false };
  }
  return { bookings, more: true };
}

/** A date and time on the zone's clock, the zone named: "Sat, 5 Dec 2026, 07:52 (Europe/Madrid)". */
export const localTime = (ms: number, timeZone: string): string => readableTime(ms, timeZone);

const DISCONNECTABLE: ReadonlySet<string> = new Set(["square", "google", "microsoft", "caldav"]);

/** The Settings and Disconnect links a host's row offers (the viewer may manage every row shown). */
function hostLinks(
  deps: ConsoleAppDeps,
  host: HostRuntime,
  managed: ReadonlyMap<string, ManagedHostRecord>,
): Pick<HostRow, "settingsHref" | "disconnectHref" | "a2aKeyHref" | "contactsHref" | "rulesHref"> {
  const id = encodeURIComponent(host.config.id);
  const { type, settings } = host.config.connector;
  return {
    ...(managed.get(host.config.id)?.state === "active" && { settingsHref: `/console/hosts/${id}/settings` }),
    ...(host.config.kind === "person" && {
      contactsHref: `/console/hosts/${id}/contacts`,
      rulesHref: `/console/hosts/${id}/rules`,
    }),
    // Disconnect is served wherever the gateway has a vault (app.ts mounts it with deps.connect).
    ...(deps.connect !== undefined &&
      DISCONNECTABLE.has(type) &&
      settings["credentials"] === "vault" && { disconnectHref: `/connect/${type}/disconnect?host=${id}` }),
    // A key matters only where an A2A agent may cancel or reschedule (src/edges/a2a/intents/capabilities.ts).
    ...(deps.a2aKeys !== undefined &&
      deps.a2a
        ?.host(host.config.id)
        ?.intents.some((i) => i === "cancel_session" || i === "reschedule_session") === true && {
        a2aKeyHref: `/console/hosts/${id}/a2a-key`,
      }),
  };
}

function hostRow(
  host: HostRuntime,
  links: Pick<HostRow, "settingsHref" | "disconnectHref" | "a2aKeyHref" | "contactsHref" | "rulesHref"> = {},
): HostRow {
  const base = { hostId: host.config.id, name: host.config.name, ...links };
  if (host.health === undefined) return { ...base, health: "ok" };
  const s = host.health.status();
  const tz = host.config.timezone;
  return {
    ...base,
    health: s.health,
    since: localTime(s.since, tz),
    ...(s.lastError !== undefined && {
      lastError: {
        code: s.lastError.code,
        message: s.lastError.message,
        at: localTime(s.lastError.at, tz),
        ...(s.lastError.reason !== undefined && { reason: s.lastError.reason }),
      },
    }),
  };
}

function bookingRow(host: HostRuntime, v: BookingView): BookingRow {
  const tz = host.config.timezone;
  const resource = v.contract.resource?.name;
  return {
    hostId: host.config.id,
    hostName: host.config.name,
    bookingId: v.bookingId,
    ...(v.guest !== undefined && { guest: describeGuest(v.guest) }),
    service: v.contract.service.name,
    when: readableSpan(v.start, v.end, tz),
    start: v.start,
    status: v.status,
    ...(v.partySize !== undefined && { partySize: v.partySize }),
    ...(resource !== undefined && { resource }),
    ...(v.status === "pending_host" &&
      v.approvalBy !== undefined && { answerBy: localTime(v.approvalBy, tz) }),
    ...(v.meeting?.role === "person" && { meeting: true as const }),
    ...(v.status === "pending_host" &&
      v.proposal?.by === "host" && {
        counter:
          readableSpan(v.proposal.start, v.proposal.end, tz) +
          (v.proposal.place !== undefined ? ` at ${placeLine(v.proposal.place)}` : ""),
      }),
  };
}

const isProvider = (v: string): v is OAuthProvider => (OAUTH_PROVIDERS as readonly string[]).includes(v);

/** Per vault host: the start link and whether a grant is there (vault.get, never shown). */
async function connectRows(deps: ConsoleAppDeps, hosts: readonly HostRuntime[]): Promise<ConnectRow[]> {
  const on = deps.connect;
  if (on === undefined) return [];
  const rows: ConnectRow[] = [];
  for (const host of hosts) {
    const { id, name, connector } = host.config;
    if (!isProvider(connector.type) || connector.settings["credentials"] !== "vault") continue;
    const provider = connector.type;
    let grant: ConnectRow["grant"];
    try {
      grant = (await on.vault.get(id)) === undefined ? "absent" : "present";
    } catch {
      grant = "unreadable";
    }
    rows.push({
      hostId: id,
      name,
      provider,
      grant,
      ...(on.providers.includes(provider) && {
        href: `/connect/${provider}/start?host=${encodeURIComponent(id)}`,
      }),
    });
  }
  return rows;
}

export async function operateView(
  deps: ConsoleAppDeps,
  viewer: ConsoleViewer = { kind: "operator" },
): Promise<OperateView> {
  const now = deps.clock.now();
  const records = await viewerRecords(deps.managedHosts, viewer);
  const managed = new Map(records.map((r) => [r.id, r]));
  // An owner's hosts are their records' (config-file hosts are the operator's): looked up by id,
  // so nothing of another owner's host is gathered or even read.
  const hosts =
    viewer.kind === "operator"
      ? deps.hosts.list()
      : [...managed.keys()].flatMap((id) => {
          const h = deps.hosts.get(id);
          return h === undefined ? [] : [h];
        });
  const syncs: SyncRow[] = [];
  const notices: NoticeRow[] = [];
  const pending: BookingRow[] = [];
  const upcoming: BookingRow[] = [];
  const unlisted: string[] = [];
  const more: string[] = [];
  for (const host of hosts) {
    const name = host.config.name;
    const tz = host.config.timezone;
    const cal = await deps.upstreams?.calendar(host.config.id);
    if (cal !== undefined) {
      if (cal.reports.length === 0) syncs.push({ hostName: name });
      for (const r of cal.reports)
        syncs.push({
          hostName: name,
          calendarId: r.calendarId,
          at: localTime(r.at, tz),
          kind: r.kind,
          outcome: r.outcome,
          ...(r.error !== undefined && { error: `${r.error.code}: ${r.error.message}` }),
        });
    }
    for (const n of (await deps.upstreams?.notices(host.config.id)) ?? [])
      notices.push({
        hostName: name,
        vendor: n.vendor,
        call: n.call,
        ...(n.deprecation !== undefined && { deprecation: n.deprecation }),
        ...(n.sunset !== undefined && { sunset: n.sunset }),
        lastSeen: n.last_seen,
      });
    const waiting = await walkBookings(deps, host.config.id, { status: "pending_host" });
    // Started up to a day ago: one still under way is upcoming until its end.
    const soon = await walkBookings(deps, host.config.id, { from: now - DAY_MS });
    if (waiting === undefined || soon === undefined) {
      unlisted.push(name);
      continue;
    }
    for (const v of waiting.bookings) pending.push(bookingRow(host, v));
    for (const v of soon.bookings)
      if (LIVE.has(v.status) && (v.end ?? v.start) >= now) upcoming.push(bookingRow(host, v));
    if (waiting.more || soon.more) more.push(host.config.id);
  }
  const byStart = (a: BookingRow, b: BookingRow) => a.start - b.start;
  return {
    hosts: hosts.map((h) => hostRow(h, hostLinks(deps, h, managed))),
    syncs,
    notices,
    pending: pending.sort(byStart),
    upcoming: upcoming.sort(byStart).slice(0, UPCOMING_LIMIT),
    unlisted,
    ...(more.length > 0 && { more }),
    connect: await connectRows(deps, hosts),
  };
}
