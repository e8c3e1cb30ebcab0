/**
 * The console's pages (src/edges/http/layout.ts gives the look): sign-in, and Operate. Every
 * form posts to a /console/ route and carries the session's CSRF token; nothing on a page
 * changes state by GET.
 * Tables have header cells with scope, each section a heading, the page a banner and a main
 * landmark, every input a label, and every action button names its booking for screen readers.
 */
import type { ConsoleViewer } from "./managed-hosts.js";
import { escapeHtml as e, page } from "../http/layout.js";
import type { BookingRow, OperateView } from "./operate-view.js";

export const CONSOLE_TITLE = "Booking Gateway console";

export interface SignInOptions {
  readonly error?: string;
}

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
  );
}

export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`;

const HEALTH_TEXT: Readonly<Record<string, string>> = {
  ok: "ok",
  degraded: "degraded",
  needs_reconnection: "needs reconnection",
};

function table(caption: string, head: readonly string[], rows: readonly string[]): string {
  return (
    `<table><caption class="note">${e(caption)}</caption><thead><tr>` +
    head.map((h) => `<th scope="col">${e(h)}</th>`).join("") +
    `</tr></thead><tbody>${rows.join("")}</tbody></table>`
  );
}

const td = (s: string | undefined) => `<td>${s === undefined ? "—" : e(s)}</td>`;

/** GET links only: Disconnect asks first (its page holds the POST form). */
function manageCell(h: OperateView["hosts"][number]): string {
  const links = [
    h.settingsHref !== undefined &&
      `<a href="${e(h.settingsHref)}" aria-label="${e(`Settings of ${h.name}`)}">Settings</a>`,
    h.a2aKeyHref !== undefined &&
      `<a href="${e(h.a2aKeyHref)}" aria-label="${e(`A2A API key of ${h.name}`)}">A2A key</a>`,
    h.disconnectHref !== undefined &&
      `<a href="${e(h.disconnectHref)}" aria-label="${e(`Disconnect ${h.name}`)}">Disconnect</a>`,
  ].filter((l): l is string => typeof l === "string");
  return links.length === 0 ? "<td>—</td>" : `<td>${links.join(" ")}</td>`;
}

function hostsSection(v: OperateView): string {
  return (
    `<section aria-labelledby="hosts-h"><h2 id="hosts-h">Hosts</h2>` +
    table(
      "Each host's upstream health, as this gateway process sees it",
      ["Host", "Health", "Since", "Last error", "Manage"],
      v.hosts.map(
        (h) =>
          `<tr><th scope="row">${e(h.name)} <span class="note">(${e(h.hostId)})</span></th>` +
          `<td class="${e(h.health)}">${e(HEALTH_TEXT[h.health] ?? h.health)}</td>${td(h.since)}` +
          td(
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
          `<tr><th scope="row">${e(s.hostName)}</th>${td(s.calendarId)}` +
          `${td(s.at === undefined ? "not synced yet" : `${s.at} (${s.kind ?? ""})`)}${td(s.outcome)}${td(s.error)}</tr>`,
      ),
    ) +
    `</section>`
  );
}

function noticesSection(v: OperateView): string {
  return (
    `<section aria-labelledby="notices-h"><h2 id="notices-h">Upstream notices</h2>` +
    (v.notices.length === 0
      ? `<p>No upstream has announced a deprecation or sunset of a call this gateway makes.</p>`
      : table(
          "Calls an upstream platform said it is retiring (Deprecation, Sunset headers)",
          ["Host", "Platform", "Call", "Deprecation", "Sunset", "Last seen"],
          v.notices.map(
            (n) =>
              `<tr><th scope="row">${e(n.hostName)}</th>${td(n.vendor)}${td(n.call)}` +
              `${td(n.deprecation)}${td(n.sunset)}${td(n.lastSeen)}</tr>`,
          ),
        )) +
    `</section>`
  );
}

const actionPath = (b: BookingRow, action: "approve" | "decline") =>
  `/console/hosts/${encodeURIComponent(b.hostId)}/bookings/${encodeURIComponent(b.bookingId)}/${action}`;

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
            return (
              `<tr><th scope="row"><code>${e(b.bookingId)}</code></th>${td(b.hostName)}${td(b.guest)}${td(b.service)}${td(b.when)}` +
              `${td(b.partySize === undefined ? undefined : String(b.partySize))}${td(b.answerBy)}<td>` +
              `<form method="post" action="${e(actionPath(b, "approve"))}">${csrfField(csrf)}` +
              `<button class="approve" type="submit" aria-label="${e(`Approve ${label}`)}">Approve</button></form>` +
              `<form method="post" action="${e(actionPath(b, "decline"))}">${csrfField(csrf)}` +
              `<button type="submit" aria-label="${e(`Decline ${label}`)}">Decline</button></form>` +
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
            ? `<td class="note">no OAuth client configured for ${e(platform)}</td>`
            : `<td><a href="${e(r.href)}" aria-label="${e(`${r.grant === "present" ? "Reconnect" : "Connect"} ${r.name} with ${platform}`)}">` +
              `${r.grant === "present" ? "Reconnect" : "Connect"}</a></td>`;
        return (
          `<tr><th scope="row">${e(r.name)} <span class="note">(${e(r.hostId)})</span></th>${td(platform)}` +
          `<td class="${r.grant === "present" ? "ok" : "degraded"}">${e(grant)}</td>${action}</tr>`
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
              `<tr><th scope="row">${e(b.when)}</th>${td(b.hostName)}${td(b.guest)}${td(b.service)}${td(b.resource)}` +
              `${td(b.status.replace("_", " "))}<td><code>${e(b.bookingId)}</code></td></tr>`,
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

/**
 * The banner of every signed-in page: who is signed in, the operator's link to Owners, and
 * sign-out (the one button in the nav).
 */
export function consoleHeader(csrf: string, viewer: ConsoleViewer = { kind: "operator" }): string {
  const who =
    viewer.kind === "owner"
      ? `<span class="note">Signed in as ${e(viewer.email)}</span> `
      : `<a href="/">Operate</a> <a href="/console/owners">Owners</a> `;
  const add = `<a href="/console/hosts/new">Add a business</a> `;
  return (
    `<p>${e(CONSOLE_TITLE)}</p><nav aria-label="Account">${who}${add}<form method="post" action="/console/sign-out">` +
    `${csrfField(csrf)}<button type="submit">Sign out</button></form></nav>`
  );
}

export const flashHtml = (flash?: { readonly text: string; readonly error?: boolean }): string =>
  flash !== undefined
    ? `<p class="flash${flash.error === true ? " error" : ""}" role="status">${e(flash.text)}</p>`
    : "";

export function operatePage(
  v: OperateView,
  csrf: string,
  flash?: { readonly text: string; readonly error?: boolean },
  viewer?: ConsoleViewer,
  drafts: ReadonlyArray<{ readonly id: string; readonly name: string }> = [],
): string {
  const header = consoleHeader(csrf, viewer);
  return page(
    `Operate · ${CONSOLE_TITLE}`,
    `<h1>Operate</h1>` +
      flashHtml(flash) +
      pendingSection(v, csrf) +
      (drafts.length > 0
        ? `<section aria-labelledby="drafts-h"><h2 id="drafts-h">Not set up yet</h2><ul>` +
          drafts
            .map(
              (d) =>
                `<li>${e(d.name)} <a href="/console/hosts/${e(encodeURIComponent(d.id))}/setup" aria-label="${e(`Continue setup of ${d.name}`)}">Continue setup</a></li>`,
            )
            .join("") +
          `</ul></section>`
        : "") +
      hostsSection(v) +
      connectSection(v) +
      syncSection(v) +
      noticesSection(v) +
      upcomingSection(v, viewer?.kind === "owner"),
    { wide: true, header },
  );
}

export function refusedPage(title: string, text: string): string {
  return page(title, `<h1>${e(title)}</h1><p>${e(text)}</p><p><a href="/">Back to the console</a></p>`);
}
