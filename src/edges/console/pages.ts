/**
 * The console's pages (src/edges/http/layout.ts gives the look): sign-in, and Operate. Every
 * form posts to a /console/ route and carries the session's CSRF token; nothing on a page
 * changes state by GET.
 * Tables have header cells with scope, each section a heading, the page a banner and a main
 * landmark, every input a label, and every action button names its booking for screen readers.
 * Every page has the console's banner: its name, and once signed in the navigation
 * (consoleHeader), so no page is a dead end.
 */
import type { ConsoleViewer } from "./managed-hosts.js";
import { escapeHtml as e, page } from "../http/layout.js";
import type { BookingRow, OperateView } from "./operate-view.js";
import { counterPath } from "./counter-path.js";

export const CONSOLE_TITLE = "Booking Gateway console";

export interface SignInOptions {
  readonly error?: string;
}

/** The banner of a page seen before signing in: the console's name, no navigation. */
export const publicHeader = (): string => `<p class="brand">${e(CONSOLE_TITLE)}</p>`;

export function signInPage(opts: SignInOptions = {}): string {
  return page(
    `Sign in · ${CONSOLE_TITLE}`,
    `<h1>Sign in to the operator console</h1>` +
      (opts.error !== undefined ? `<p class="flash error" role="alert">${e(opts.error)}</p>` : "") +
      `<section aria-labelledby="operator-h"><h2 id="operator-h">Operator</h2>` +
      `<form method="post" action="/console/sign-in">` +
      `<label for="credential">Operator credential</label>` +
      `<input id="credential" name="credential" type="password" autocomplete="current-password" required autofocus>` +
      `<p class="note">The credential the gateway printed when it started (OPERATOR_TOKEN, or the ` +
      `<code>operator-token</code> file in its data directory).</p>` +
      `<button class="approve" type="submit">Sign in</button></form></section>` +
      `<section aria-labelledby="owner-h"><h2 id="owner-h">Business owner</h2>` +
      `<form method="post" action="/console/sign-in">` +
      `<label for="email">Email</label>` +
      `<input id="email" name="email" type="email" autocomplete="username" required>` +
      `<label for="password">Password</label>` +
      `<input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<button type="submit">Sign in as owner</button></form></section>`,
    { header: publicHeader() },
  );
}

export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`;

const HEALTH_TEXT: Readonly<Record<string, string>> = {
  ok: "ok",
  degraded: "degraded",
  needs_reconnection: "needs reconnection",
};

/** A table that stacks into one card per row on a narrow screen (layout.ts `stack`). */
function table(caption: string, head: readonly string[], rows: readonly string[]): string {
  return (
    `<table class="stack"><caption class="note">${e(caption)}</caption><thead><tr>` +
    head.map((h) => `<th scope="col">${e(h)}</th>`).join("") +
    `</tr></thead><tbody>${rows.join("")}</tbody></table>`
  );
}

/** A cell with its column's name, which a stacked row shows before the value. */
const td = (label: string, s: string | undefined, cls?: string) =>
  `<td data-label="${e(label)}"${cls !== undefined ? ` class="${e(cls)}"` : ""}>${s === undefined ? "—" : e(s)}</td>`;

/** A host's own page: its week (host-routes.ts). */
export const hostPath = (hostId: string) => `/console/hosts/${encodeURIComponent(hostId)}`;

/** GET links only: Disconnect asks first (its page holds the POST form). */
function manageCell(h: OperateView["hosts"][number]): string {
  const links = [
    `<a href="${e(hostPath(h.hostId))}" aria-label="${e(`Week of ${h.name}`)}">Week</a>`,
    h.settingsHref !== undefined &&
      `<a href="${e(h.settingsHref)}" aria-label="${e(`Settings of ${h.name}`)}">Settings</a>`,
    h.contactsHref !== undefined &&
      `<a href="${e(h.contactsHref)}" aria-label="${e(`Contacts of ${h.name}`)}">Contacts</a>`,
    h.rulesHref !== undefined &&
      `<a href="${e(h.rulesHref)}" aria-label="${e(`Rules of ${h.name}`)}">Rules</a>`,
    h.a2aKeyHref !== undefined &&
      `<a href="${e(h.a2aKeyHref)}" aria-label="${e(`A2A key of ${h.name}`)}">A2A key</a>`,
    h.disconnectHref !== undefined &&
      `<a href="${e(h.disconnectHref)}" aria-label="${e(`Disconnect ${h.name}`)}">Disconnect</a>`,
  ].filter((l): l is string => typeof l === "string");
  return `<td data-label="Manage" class="links">${links.join(" ")}</td>`;
}

function hostsSection(v: OperateView, owner: boolean, drafts: number): string {
  const head = `<section aria-labelledby="hosts-h"><h2 id="hosts-h">${owner ? "Your businesses" : "Hosts"}</h2>`;
  if (v.hosts.length === 0)
    return (
      head +
      `<p>${
        drafts > 0
          ? "None is taking bookings yet: finish setting one up (Not set up yet, above)."
          : owner
            ? "You have no business here yet."
            : "This gateway serves no host."
      }</p></section>`
    );
  return (
    head +
    table(
      "Each host's upstream health, as this gateway process sees it",
      ["Host", "Health", "Since", "Last error", "Manage"],
      v.hosts.map(
        (h) =>
          `<tr><th scope="row"><a href="${e(hostPath(h.hostId))}">${e(h.name)}</a> <span class="note">(${e(h.hostId)})</span></th>` +
          `<td data-label="Health" class="${e(h.health)}">${e(HEALTH_TEXT[h.health] ?? h.health)}</td>${td("Since", h.since)}` +
          td(
            "Last error",
            h.lastError &&
              `${h.lastError.reason ?? h.lastError.code}: ${h.lastError.message} (${h.lastError.at})`,
          ) +
          manageCell(h) +
          `</tr>`,
      ),
    ) +
    `</section>`
  );
}

function syncSection(v: OperateView): string {
  if (v.syncs.length === 0) return "";
  return (
    `<section aria-labelledby="sync-h"><h2 id="sync-h">Calendar sync</h2>` +
    table(
      "The last sync of each calendar host's calendars",
      ["Host", "Calendar", "Last sync", "Outcome", "Error"],
      v.syncs.map(
        (s) =>
          `<tr><th scope="row">${e(s.hostName)}</th>${td("Calendar", s.calendarId)}` +
          `${td("Last sync", s.at === undefined ? "not synced yet" : `${s.at} (${s.kind ?? ""})`)}${td("Outcome", s.outcome)}${td("Error", s.error)}</tr>`,
      ),
    ) +
    `</section>`
  );
}

function noticesSection(v: OperateView, owner: boolean): string {
  // An owner has nothing to do about an API's retirement unless one is announced.
  if (owner && v.notices.length === 0) return "";
  return (
    `<section aria-labelledby="notices-h"><h2 id="notices-h">Upstream notices</h2>` +
    (v.notices.length === 0
      ? `<p>No upstream has announced a deprecation or sunset of a call this gateway makes.</p>`
      : table(
          "Calls an upstream platform said it is retiring (Deprecation, Sunset headers)",
          ["Host", "Platform", "Call", "Deprecation", "Sunset", "Last seen"],
          v.notices.map(
            (n) =>
              `<tr><th scope="row">${e(n.hostName)}</th>${td("Platform", n.vendor)}${td("Call", n.call)}` +
              `${td("Deprecation", n.deprecation)}${td("Sunset", n.sunset)}${td("Last seen", n.lastSeen)}</tr>`,
          ),
        )) +
    `</section>`
  );
}

const actionPath = (b: BookingRow, action: "approve" | "decline" | "meeting") =>
  `/console/hosts/${encodeURIComponent(b.hostId)}/bookings/${encodeURIComponent(b.bookingId)}/${action}`;

/**
 * SchCP §5.12: a meeting is answered with the person's own signed acceptance, on its member
 * page (the host's approve would not do), so its row links there instead of asking here.
 */
const meetingAnswer = (b: BookingRow, label: string): string =>
  `<a class="button" href="${e(actionPath(b, "meeting"))}" aria-label="${e(`Answer the meeting invitation: ${label}`)}">Answer the invitation</a>` +
  `<p class="note">A meeting of several people: you accept by signing it with your key, or decline with a message.</p>`;

function pendingSection(v: OperateView, csrf: string): string {
  return (
    `<section aria-labelledby="pending-h"><h2 id="pending-h">Waiting for approval</h2>` +
    (v.pending.length === 0
      ? `<p>No booking is waiting for an answer.</p>`
      : table(
          "Bookings the host has yet to approve or decline",
          ["Booking", "Host", "Guest", "Service", "When", "Party", "Answer by", "Answer"],
          v.pending.map((b) => {
            const label = `${b.service}, ${b.when}`;
            const cells =
              `<tr><th scope="row"><code>${e(b.bookingId)}</code></th>${td("Host", b.hostName)}${td("Guest", b.guest)}${td("Service", b.service)}${td("When", b.when)}` +
              `${td("Party", b.partySize === undefined ? undefined : String(b.partySize))}${td("Answer by", b.answerBy)}<td data-label="Answer">`;
            if (b.meeting === true) return `${cells}${meetingAnswer(b, label)}</td></tr>`;
            return (
              cells +
              `<form method="post" action="${e(actionPath(b, "approve"))}">${csrfField(csrf)}` +
              `<button class="approve" type="submit" aria-label="${e(`Approve ${label}`)}">Approve</button></form>` +
              `<form method="post" action="${e(actionPath(b, "decline"))}">${csrfField(csrf)}` +
              `<button type="submit" aria-label="${e(`Decline ${label}`)}">Decline</button></form>` +
              // §5.11: other terms instead of yes or no (counter-page.ts).
              `<a href="${e(counterPath(b.hostId, b.bookingId))}" aria-label="${e(`Suggest another time or place for ${label}`)}">Suggest another time or place</a>` +
              (b.counter !== undefined
                ? `<p class="note">You suggested ${e(b.counter)}; waiting for the guest.</p>`
                : "") +
              `</td></tr>`
            );
          }),
        )) +
    `</section>`
  );
}

const PROVIDER_NAME: Readonly<Record<string, string>> = {
  square: "Square",
  google: "Google Calendar",
  microsoft: "Microsoft 365",
};

/** GET links: start only redirects; the callback writes, behind a single-use state bound to the session. */
function connectSection(v: OperateView): string {
  if (v.connect.length === 0) return "";
  return (
    `<section aria-labelledby="connect-h"><h2 id="connect-h">Connect</h2>` +
    table(
      "Hosts whose access is granted by their owner and kept in this gateway's token vault",
      ["Host", "Platform", "Grant", "Action"],
      v.connect.map((r) => {
        const platform = PROVIDER_NAME[r.provider] ?? r.provider;
        const grant =
          r.grant === "present" ? "connected" : r.grant === "absent" ? "not connected" : "unreadable";
        const action =
          r.href === undefined
            ? `<td data-label="Action" class="note">no OAuth client configured for ${e(platform)}</td>`
            : `<td data-label="Action"><a href="${e(r.href)}" aria-label="${e(`${r.grant === "present" ? "Reconnect" : "Connect"} ${r.name} with ${platform}`)}">` +
              `${r.grant === "present" ? "Reconnect" : "Connect"}</a></td>`;
        return (
          `<tr><th scope="row">${e(r.name)} <span class="note">(${e(r.hostId)})</span></th>${td("Platform", platform)}` +
          td("Grant", grant, r.grant === "present" ? "ok" : "degraded") +
          `${action}</tr>`
        );
      }),
    ) +
    `</section>`
  );
}

function upcomingSection(v: OperateView, owner: boolean): string {
  return (
    `<section aria-labelledby="upcoming-h"><h2 id="upcoming-h">Upcoming bookings</h2>` +
    (v.upcoming.length === 0
      ? `<p>No upcoming booking.</p>`
      : table(
          `The next ${v.upcoming.length} booking(s) across ${owner ? "your hosts" : "every host"}`,
          ["When", "Host", "Guest", "Service", "With", "Status", "Booking"],
          v.upcoming.map(
            (b) =>
              `<tr><th scope="row">${e(b.when)}</th>${td("Host", b.hostName)}${td("Guest", b.guest)}${td("Service", b.service)}${td("With", b.resource)}` +
              `${td("Status", b.status.replace("_", " "))}<td data-label="Booking"><code>${e(b.bookingId)}</code></td></tr>`,
          ),
        )) +
    (v.unlisted.length > 0
      ? `<p class="flash error" role="alert">Bookings could not be listed for: ${e(v.unlisted.join(", "))}.</p>`
      : "") +
    (v.more !== undefined && v.more.length > 0
      ? `<p class="note" role="status">More bookings than this page reads for: ${e(v.more.join(", "))}. ` +
        `The operator API lists every one, a page at a time ` +
        `(<code>GET /operator/v0/{host}/bookings?status=pending_host</code>, then <code>?cursor=</code>).</p>`
      : "") +
    `</section>`
  );
}

/** Which entry of the navigation a page is (marked aria-current). */
export type ConsolePlace = "home" | "owners" | "new" | "key";

/**
 * The banner of every signed-in page: the console's name (a link home), the navigation (the
 * operator's Owners, Add a business), who is signed in, and sign-out (the one button in the nav).
 */
export function consoleHeader(
  csrf: string,
  viewer: ConsoleViewer = { kind: "operator" },
  current?: ConsolePlace,
): string {
  const link = (href: string, text: string, place: ConsolePlace) =>
    `<li><a href="${href}"${current === place ? ' aria-current="page"' : ""}>${e(text)}</a></li>`;
  return (
    `<a class="brand" href="/">${e(CONSOLE_TITLE)}</a><nav aria-label="Account"><ul>` +
    link("/", "Operate", "home") +
    (viewer.kind === "operator" ? link("/console/owners", "Owners", "owners") : "") +
    link("/console/hosts/new", "Add a business", "new") +
    link("/console/key", "Key app", "key") +
    (viewer.kind === "owner" ? `<li class="who">Signed in as ${e(viewer.email)}</li>` : "") +
    `<li><form method="post" action="/console/sign-out">${csrfField(csrf)}` +
    `<button type="submit">Sign out</button></form></li></ul></nav>`
  );
}

export const flashHtml = (flash?: { readonly text: string; readonly error?: boolean }): string =>
  flash !== undefined
    ? `<p class="flash${flash.error === true ? " error" : ""}" role="status">${e(flash.text)}</p>`
    : "";

/** A business added but not set up yet: where to carry on, and its delete confirmation. */
export interface DraftRow {
  readonly id: string;
  readonly name: string;
  /** The next step: the CalDAV account, the provider's consent, or the setup form. */
  readonly next: string;
}

function draftsSection(drafts: readonly DraftRow[]): string {
  if (drafts.length === 0) return "";
  return (
    `<section aria-labelledby="drafts-h"><h2 id="drafts-h">Not set up yet</h2>` +
    table(
      "Businesses added here that take no bookings yet",
      ["Business", "Next step", "Remove"],
      drafts.map(
        (d) =>
          `<tr><th scope="row">${e(d.name)} <span class="note">(${e(d.id)})</span></th>` +
          `<td data-label="Next step"><a href="${e(d.next)}" aria-label="${e(`Continue setup of ${d.name}`)}">Continue setup</a></td>` +
          `<td data-label="Remove"><a href="${e(`${hostPath(d.id)}/delete`)}" aria-label="${e(`Delete ${d.name}`)}">Delete</a></td></tr>`,
      ),
    ) +
    `</section>`
  );
}

/** The way forward on a home page with nothing on it yet. */
function startSection(owner: boolean): string {
  return (
    `<section aria-labelledby="start-h" class="flash info"><h2 id="start-h">Get started</h2>` +
    `<p>${
      owner
        ? "Add your business: connect the calendar or booking system its time lives in, say what you offer and when, and agents can book it."
        : "Add a business from here, or serve hosts from a config file (booking-gateway serve --config)."
    }</p>` +
    `<p><a class="button approve" href="/console/hosts/new">Add your first business</a></p></section>`
  );
}

export function operatePage(
  v: OperateView,
  csrf: string,
  flash?: { readonly text: string; readonly error?: boolean },
  viewer?: ConsoleViewer,
  drafts: readonly DraftRow[] = [],
): string {
  const header = consoleHeader(csrf, viewer, "home");
  const owner = viewer?.kind === "owner";
  const empty = v.hosts.length === 0 && drafts.length === 0;
  return page(
    `Operate · ${CONSOLE_TITLE}`,
    `<h1>Operate</h1>` +
      flashHtml(flash) +
      (empty ? startSection(owner) : "") +
      // No host, no booking: those sections would only say so.
      (v.hosts.length > 0 ? pendingSection(v, csrf) : "") +
      draftsSection(drafts) +
      hostsSection(v, owner, drafts.length) +
      connectSection(v) +
      syncSection(v) +
      noticesSection(v, owner) +
      (v.hosts.length > 0 ? upcomingSection(v, owner) : ""),
    { wide: true, header },
  );
}

/** A refusal or "not found": with the console's banner when the viewer is signed in. */
export function refusedPage(title: string, text: string, header: string = publicHeader()): string {
  return page(title, `<h1>${e(title)}</h1><p>${e(text)}</p><p><a href="/">Back to the console</a></p>`, {
    header,
  });
}
