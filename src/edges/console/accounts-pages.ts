/**
 * The console's account pages: the operator's Owners page (invite by email, see
 * who has signed up, disable or re-enable an account) and the owner's invitation page (choose
 * a password). The invitation link is shown once, on the answer to the form that made it; it
 * is never stored in a readable form, so it cannot be shown again — a new one can be made.
 */
import type { ConsoleViewer } from "./managed-hosts.js";
import type { OwnerAccount } from "./accounts.js";
import { MIN_PASSWORD_LENGTH } from "./accounts-password.js";
import { escapeHtml as e, page } from "../http/layout.js";
import { CONSOLE_TITLE, consoleHeader, csrfField, flashHtml, publicHeader } from "./pages.js";

interface InvitedLink {
  readonly email: string;
  readonly link: string;
  readonly expires: string;
}

export interface OwnersPageOptions {
  readonly invited?: InvitedLink;
  readonly flash?: { readonly text: string; readonly error?: boolean };
}

const OPERATOR: ConsoleViewer = { kind: "operator" };

function stateOf(a: OwnerAccount): string {
  if (a.disabled === true) return "disabled";
  return a.passwordHash === undefined ? "invited" : "active";
}

function ownerRow(a: OwnerAccount, csrf: string): string {
  const action = a.disabled === true ? "enable" : "disable";
  const label = `${action === "enable" ? "Enable" : "Disable"} ${a.email}`;
  return (
    `<tr><th scope="row">${e(a.email)}</th><td data-label="Owner id"><code>${e(a.ownerId)}</code></td>` +
    `<td data-label="State">${e(stateOf(a))}</td><td data-label="Action"><form method="post" action="/console/owners/${encodeURIComponent(a.ownerId)}/${action}">${csrfField(csrf)}` +
    `<button type="submit" aria-label="${e(label)}">${action === "enable" ? "Enable" : "Disable"}</button></form></td></tr>`
  );
}

export function ownersPage(
  accounts: readonly OwnerAccount[],
  csrf: string,
  opts: OwnersPageOptions = {},
): string {
  const invited =
    opts.invited === undefined
      ? ""
      : `<section aria-labelledby="invited-h" class="flash" role="status"><h2 id="invited-h">Invitation for ${e(opts.invited.email)}</h2>` +
        `<p>Send this link to the owner. It works once, until ${e(opts.invited.expires)}, and is shown only now:</p>` +
        `<p><code id="invitation-link">${e(opts.invited.link)}</code></p></section>`;
  const sorted = [...accounts].sort((a, b) => a.email.localeCompare(b.email));
  return page(
    `Owners · ${CONSOLE_TITLE}`,
    `<h1>Owners</h1>` +
      flashHtml(opts.flash) +
      invited +
      `<section aria-labelledby="invite-h"><h2 id="invite-h">Invite a business owner</h2>` +
      `<form method="post" action="/console/owners">${csrfField(csrf)}` +
      `<label for="email">Owner's email</label>` +
      `<input id="email" name="email" type="email" autocomplete="off" required>` +
      `<p class="note">The owner gets a one-time link, valid for 72 hours, to choose a password. ` +
      `They will see and change only the hosts they own.</p>` +
      `<button class="approve" type="submit">Create invitation link</button></form></section>` +
      `<section aria-labelledby="owners-h"><h2 id="owners-h">Accounts</h2>` +
      (sorted.length === 0
        ? `<p>No owner has been invited yet.</p>`
        : `<table class="stack"><caption class="note">Business owners who may sign in to this console</caption><thead><tr>` +
          `<th scope="col">Email</th><th scope="col">Owner id</th><th scope="col">State</th><th scope="col">Action</th>` +
          `</tr></thead><tbody>${sorted.map((a) => ownerRow(a, csrf)).join("")}</tbody></table>`) +
      `</section>`,
    { wide: true, header: consoleHeader(csrf, OPERATOR, "owners") },
  );
}

export function invitationPage(token: string, email: string, error?: string): string {
  return page(
    `Choose a password · ${CONSOLE_TITLE}`,
    `<h1>Welcome, ${e(email)}</h1>` +
      (error !== undefined ? `<p class="flash error" role="alert">${e(error)}</p>` : "") +
      `<p>Choose the password you will sign in to the console with.</p>` +
      `<form method="post" action="/console/invite/${encodeURIComponent(token)}">` +
      `<input type="hidden" name="email" value="${e(email)}" autocomplete="username">` +
      `<label for="password">New password</label>` +
      `<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required autofocus>` +
      `<p class="note">At least ${MIN_PASSWORD_LENGTH} characters.</p>` +
      `<label for="confirm">Confirm the password</label>` +
      `<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>` +
      `<button class="approve" type="submit">Set password and sign in</button></form>`,
    { header: publicHeader() },
  );
}
