/**
 * A person's own calendar in the console (SchCP §7.7): their contacts (§7.8) and the rules they
 * signed (§7.9), and the key app that signs them (key-app-script.ts). Server-rendered like every
 * console page (src/edges/http/layout.ts); the key page and the Rules page also load the key
 * app's one script from this origin (KEY_APP_CSP).
 */
import { escapeHtml as e, page, pageCsp } from "../http/layout.js";
import { CONSOLE_TITLE, csrfField, flashHtml, hostPath } from "./pages.js";

/** The console's page policy, plus the key app's own script from this origin and nothing else. */
export const KEY_APP_CSP = `${pageCsp()}; script-src 'self'`;
export const KEY_APP_PATH = "/console/key-app.js";
const script = `<script src="${KEY_APP_PATH}" defer></script>`;

type Flash = { readonly text: string; readonly error?: boolean } | undefined;

export interface ContactRow {
  readonly principal: string;
  readonly name: string;
  readonly added: string;
}

const tabs = (hostId: string, name: string, current: "contacts" | "rules") =>
  `<nav aria-label="${e(`Calendar of ${name}`)}"><ul>` +
  `<li><a href="${e(hostPath(hostId))}">Bookings this week</a></li>` +
  `<li><a href="${e(`${hostPath(hostId)}/contacts`)}"${current === "contacts" ? ' aria-current="page"' : ""}>Contacts</a></li>` +
  `<li><a href="${e(`${hostPath(hostId)}/rules`)}"${current === "rules" ? ' aria-current="page"' : ""}>Rules</a></li>` +
  `<li><a href="${e(`${hostPath(hostId)}/settings`)}">Settings</a></li></ul></nav>`;

export function contactsPage(p: {
  readonly hostId: string;
  readonly name: string;
  readonly header: string;
  readonly csrf: string;
  readonly contacts: readonly ContactRow[];
  readonly contactsOnly: boolean;
  readonly flash?: Flash;
  readonly values?: { readonly principal: string; readonly name: string };
}): string {
  const action = `${hostPath(p.hostId)}/contacts`;
  const rows = p.contacts.map(
    (c) =>
      `<tr><th scope="row">${e(c.name)}</th>` +
      `<td data-label="Principal"><code>${e(c.principal)}</code></td>` +
      `<td data-label="Added">${e(c.added)}</td>` +
      `<td data-label="Remove"><form method="post" action="${e(`${action}/remove`)}">${csrfField(p.csrf)}` +
      `<input type="hidden" name="principal" value="${e(c.principal)}">` +
      `<button type="submit" aria-label="${e(`Remove ${c.name}`)}">Remove</button></form></td></tr>`,
  );
  return page(
    `Contacts of ${p.name} · ${CONSOLE_TITLE}`,
    `<h1>${e(`Contacts of ${p.name}`)}</h1>` +
      tabs(p.hostId, p.name, "contacts") +
      flashHtml(p.flash) +
      `<p>${
        p.contactsOnly
          ? "Only the people listed here (and you) can see your free time and ask for it."
          : "Anyone can see your free time now (Settings: who may book). The list takes effect when you choose “Only the people I list”."
      } The list is yours: it is never published, and nobody on it sees who else is.</p>` +
      `<section aria-labelledby="add-h"><h2 id="add-h">Add a contact</h2>` +
      `<form method="post" action="${e(action)}">${csrfField(p.csrf)}` +
      `<label for="contact-name">Name</label>` +
      `<input id="contact-name" name="name" maxlength="100" required autocomplete="off" value="${e(p.values?.name ?? "")}">` +
      `<label for="contact-principal">Their principal</label>` +
      `<p class="note" id="contact-principal-note">The ID their booking assistant shows them; it starts with urn:schcp:principal:.</p>` +
      `<input id="contact-principal" name="principal" required spellcheck="false" autocomplete="off" aria-describedby="contact-principal-note" value="${e(p.values?.principal ?? "")}">` +
      `<div class="actions"><button class="approve" type="submit">Add contact</button></div></form></section>` +
      `<section aria-labelledby="list-h"><h2 id="list-h">Your contacts</h2>` +
      (rows.length === 0
        ? `<p>Nobody yet.</p>`
        : `<table class="stack"><caption class="note">${rows.length} ${rows.length === 1 ? "contact" : "contacts"}, by name</caption>` +
          `<thead><tr><th scope="col">Name</th><th scope="col">Principal</th><th scope="col">Added</th><th scope="col">Remove</th></tr></thead>` +
          `<tbody>${rows.join("")}</tbody></table>`) +
      `</section>`,
    { wide: true, header: p.header },
  );
}

/** GET /console/key: the key app on its own, so a person can make their key before setting up. */
export function keyPage(p: { readonly header: string }): string {
  return page(
    `Your key · ${CONSOLE_TITLE}`,
    `<h1>Your key</h1>` +
      `<p>Your key lives in this browser only: it is made here, kept here, and cannot be copied out of it. ` +
      `It signs the rules that let your calendar say yes for you.</p>` +
      `<p id="key-status" class="flash info" role="status">Making your key…</p>` +
      `<label for="principal">Your principal</label>` +
      `<p class="note" id="principal-note">Paste this as “Your principal” when you set up your calendar. It is public: it names your key, it is not the key.</p>` +
      `<input id="principal" readonly spellcheck="false" aria-describedby="principal-note">` +
      `<noscript><p class="flash error">The key app needs JavaScript.</p></noscript>` +
      script,
    { header: p.header },
  );
}

export interface RuleRow {
  readonly jti: string;
  readonly label: string;
  /** What it covers, in words. */
  readonly covers: string;
  readonly until: string;
}

const WEEKDAY_NAMES: ReadonlyArray<readonly [string, string]> = [
  ["mon", "Monday"],
  ["tue", "Tuesday"],
  ["wed", "Wednesday"],
  ["thu", "Thursday"],
  ["fri", "Friday"],
  ["sat", "Saturday"],
  ["sun", "Sunday"],
];

export function rulesPage(p: {
  readonly hostId: string;
  readonly name: string;
  readonly header: string;
  readonly csrf: string;
  readonly timezone: string;
  /** The host's owner principal: only its key may sign. */
  readonly owner: string;
  /** SchCP §7.9 cnf.jkt: the thumbprint of the calendar's own signing key, which answers by rule. */
  readonly agentJkt: string;
  readonly services: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly rules: readonly RuleRow[];
  readonly flash?: Flash;
}): string {
  const action = `${hostPath(p.hostId)}/rules`;
  const box = (name: string, value: string, label: string, i: string) =>
    `<div class="choice"><input type="checkbox" id="${e(`${name}-${i}`)}" name="${e(name)}" value="${e(value)}">` +
    `<label for="${e(`${name}-${i}`)}">${e(label)}</label></div>`;
  const rows = p.rules.map(
    (r) =>
      `<tr><th scope="row">${e(r.label)}</th>` +
      `<td data-label="Covers">${e(r.covers)}</td>` +
      `<td data-label="Until">${e(r.until)}</td>` +
      `<td data-label="Remove"><form method="post" action="${e(`${action}/remove`)}">${csrfField(p.csrf)}` +
      `<input type="hidden" name="jti" value="${e(r.jti)}">` +
      `<button type="submit" aria-label="${e(`Remove the rule ${r.label}`)}">Remove</button></form></td></tr>`,
  );
  return page(
    `Rules of ${p.name} · ${CONSOLE_TITLE}`,
    `<h1>${e(`Rules of ${p.name}`)}</h1>` +
      tabs(p.hostId, p.name, "rules") +
      flashHtml(p.flash) +
      `<p>Your calendar asks you before it says yes to anyone. A rule you sign lets it say yes for you ` +
      `to what the rule covers; every booking it answers says so, with the rule's label. Rules never say no.</p>` +
      `<section aria-labelledby="rules-h"><h2 id="rules-h">Your rules</h2>` +
      (rows.length === 0
        ? `<p>No rules: your calendar asks you every time.</p>`
        : `<table class="stack"><caption class="note">The rules your calendar answers by</caption>` +
          `<thead><tr><th scope="col">Rule</th><th scope="col">Covers</th><th scope="col">Until</th><th scope="col">Remove</th></tr></thead>` +
          `<tbody>${rows.join("")}</tbody></table>`) +
      `</section>` +
      `<section aria-labelledby="new-h"><h2 id="new-h">Sign a new rule</h2>` +
      `<p id="key-status" class="flash info" role="status">Loading your key…</p>` +
      `<noscript><p class="flash error">Signing a rule needs JavaScript: your key signs it in this browser.</p></noscript>` +
      `<form id="rule-form" method="post" action="${e(action)}" data-jkt="${e(p.agentJkt)}" data-owner="${e(p.owner)}" data-tz="${e(p.timezone)}">` +
      csrfField(p.csrf) +
      `<input type="hidden" name="rule" value="">` +
      `<label for="label">Label</label>` +
      `<p class="note" id="label-note">The rule in your own words; it is shown wherever the rule answers.</p>` +
      `<input id="label" name="label" maxlength="120" required aria-describedby="label-note" placeholder="Weekend coffee with my contacts">` +
      `<fieldset><legend>Which kinds of meeting (none ticked: every kind)</legend>` +
      p.services.map((s, i) => box("services", s.id, s.name, String(i))).join("") +
      `</fieldset>` +
      `<fieldset><legend>On which days (none ticked: every day)</legend>` +
      WEEKDAY_NAMES.map(([v, n]) => box("weekdays", v, n, v)).join("") +
      `<label for="tz">Days are read in the time zone</label>` +
      `<input id="tz" name="tz" class="short" value="${e(p.timezone)}" spellcheck="false"></fieldset>` +
      `<label for="organizers">Only from these people (optional)</label>` +
      `<p class="note" id="organizers-note">Their principals, one a line; left empty, the rule covers anyone who may book you.</p>` +
      `<textarea id="organizers" name="organizers" rows="2" spellcheck="false" aria-describedby="organizers-note"></textarea>` +
      `<label for="exp">Until</label>` +
      `<p class="note" id="exp-note">The rule ends at the end of this day in the time zone above; left empty, in 90 days.</p>` +
      `<input id="exp" name="exp" type="date" class="short" aria-describedby="exp-note">` +
      `<div class="actions"><button class="approve" type="submit">Sign and save the rule</button></div></form>` +
      `<details><summary>Your principal</summary>` +
      `<label for="principal">The principal of the key in this browser</label>` +
      `<input id="principal" readonly spellcheck="false"></details>` +
      `</section>` +
      script,
    { wide: true, header: p.header },
  );
}
