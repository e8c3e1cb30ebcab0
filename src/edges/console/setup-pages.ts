/**
 * The console's "Add a business", "Connect a calendar" (CalDAV), "Set up the host" and
 * "Delete" pages, in the console's one look (src/edges/http/layout.ts: no script, strict CSP).
 * Every input has a <label for>, related inputs sit in a fieldset with a legend, and a refused
 * form comes back with its values, an error summary (role=alert) linking to each bad input, and
 * the message next to that input (aria-describedby, aria-invalid).
 *
 * Words are the owner's: what the business offers, when it is open, who confirms, who may book;
 * the setting a capability needs is named only where it is missing, with what turns it on.
 */
import type { ManagedHostSource } from "./managed-hosts.js";
import type { HostChoices } from "./setup/choices.js";
import { SOURCE_NAME, type FormErrors, type NewHostValues } from "./setup/new-host.js";
import {
  offeredChecked,
  PAYMENT_REQUIREMENTS,
  RETENTION_DAYS,
  serviceRows,
  WEEKDAYS,
  type SetupValues,
} from "./setup/setup-form.js";
import { zoneLocale } from "./setup/zone-locale.js";
import { escapeHtml as e, page } from "../http/layout.js";
import { CONSOLE_TITLE, csrfField, hostPath } from "./pages.js";

const back = `<p><a href="/">Back to the console</a></p>`;

function summary(errors: FormErrors, general?: string): string {
  const names = Object.keys(errors);
  if (names.length === 0 && general === undefined) return "";
  return (
    `<div class="flash error" role="alert" id="error-summary"><p><strong>Please correct this:</strong></p><ul>` +
    (general !== undefined ? `<li>${e(general)}</li>` : "") +
    names.map((n) => `<li><a href="#${e(n)}">${e(errors[n] ?? "")}</a></li>`).join("") +
    `</ul></div>`
  );
}

/** The attributes that tie an input to its error message. */
const invalid = (errors: FormErrors, name: string) =>
  errors[name] !== undefined ? ` aria-invalid="true" aria-describedby="${e(name)}-error"` : "";
/** An input's note and error, both read out with it. */
const described = (errors: FormErrors, name: string, hasNote: boolean) => {
  const ids = [
    ...(hasNote ? [`${name}-note`] : []),
    ...(errors[name] !== undefined ? [`${name}-error`] : []),
  ];
  return (
    (errors[name] !== undefined ? ` aria-invalid="true"` : "") +
    (ids.length > 0 ? ` aria-describedby="${e(ids.join(" "))}"` : "")
  );
};
const errorText = (errors: FormErrors, name: string) =>
  errors[name] !== undefined ? `<p class="error" id="${e(name)}-error">${e(errors[name] ?? "")}</p>` : "";

/**
 * A labelled input. `label` is what a sighted reader sees; `hidden` is read out after it only
 * (a column of inputs whose heading says the rest: "Name" + " (service 1)").
 */
function input(
  errors: FormErrors,
  name: string,
  label: string,
  value: string,
  attrs = "",
  note?: string,
  hidden?: string,
): string {
  return (
    `<label for="${e(name)}">${e(label)}${hidden !== undefined ? `<span class="vh">${e(hidden)}</span>` : ""}</label>` +
    (note !== undefined ? `<p class="note" id="${e(name)}-note">${e(note)}</p>` : "") +
    `<input id="${e(name)}" name="${e(name)}" value="${e(value)}"${attrs}${described(errors, name, note !== undefined)}>` +
    errorText(errors, name)
  );
}

/** Radios or checkboxes, each label beside its box. `hides`: the option that hides the `.dependent` parts. */
function choices(
  type: "radio" | "checkbox",
  errors: FormErrors,
  name: string,
  legend: string,
  options: ReadonlyArray<readonly [string, string]>,
  checked: (v: string) => boolean,
  opts: { readonly note?: string; readonly hides?: string } = {},
): string {
  const id = (i: number) => (i === 0 ? name : `${name}-${i}`);
  return (
    `<fieldset${invalid(errors, name)}><legend>${e(legend)}</legend>` +
    (opts.note !== undefined ? `<p class="note">${e(opts.note)}</p>` : "") +
    options
      .map(
        ([v, text], i) =>
          `<div class="choice"><input type="${type}" id="${e(id(i))}" name="${e(name)}" value="${e(v)}"` +
          `${v === opts.hides ? ' class="hides"' : ""}${checked(v) ? " checked" : ""}>` +
          `<label for="${e(id(i))}">${e(text)}</label></div>`,
      )
      .join("") +
    errorText(errors, name) +
    `</fieldset>`
  );
}

const radios = (
  errors: FormErrors,
  name: string,
  legend: string,
  options: ReadonlyArray<readonly [string, string]>,
  value: string,
  opts?: { readonly note?: string; readonly hides?: string },
) => choices("radio", errors, name, legend, options, (v) => v === value, opts);

const checkboxes = (
  errors: FormErrors,
  name: string,
  legend: string,
  options: ReadonlyArray<readonly [string, string]>,
  checked: readonly string[],
) => choices("checkbox", errors, name, legend, options, (v) => checked.includes(v));

function select(
  errors: FormErrors,
  name: string,
  label: string,
  options: ReadonlyArray<readonly [string, string]>,
  value: string,
  cls = "",
): string {
  return (
    `<label for="${e(name)}">${e(label)}</label>` +
    `<select id="${e(name)}" name="${e(name)}"${cls !== "" ? ` class="${cls}"` : ""}${invalid(errors, name)}>` +
    options
      .map(([v, text]) => `<option value="${e(v)}"${v === value ? " selected" : ""}>${e(text)}</option>`)
      .join("") +
    `</select>${errorText(errors, name)}`
  );
}

/** A source "Add a business" cannot offer here, and what would turn it on. */
export interface UnavailableSource {
  readonly source: ManagedHostSource;
  readonly why: string;
}

export interface NewHostPageInput {
  readonly csrf: string;
  /** The console's banner (pages.ts consoleHeader). */
  readonly header: string;
  readonly offered: readonly ManagedHostSource[];
  readonly unavailable?: readonly UnavailableSource[];
  readonly values?: Partial<NewHostValues>;
  readonly errors?: FormErrors;
  readonly general?: string;
}

/** Every IANA zone this Node knows, for the time zone input's suggestions (no script needed). */
const ZONE_LIST =
  `<datalist id="zones">` +
  Intl.supportedValuesOf("timeZone")
    .map((z) => `<option value="${e(z)}">`)
    .join("") +
  `</datalist>`;

function unavailableList(unavailable: readonly UnavailableSource[]): string {
  if (unavailable.length === 0) return "";
  return (
    `<div class="note" id="source-note"><p>Not available on this gateway yet:</p><ul>` +
    unavailable.map((u) => `<li>${e(SOURCE_NAME[u.source])}: ${e(u.why)}</li>`).join("") +
    `</ul></div>`
  );
}

export function newHostPage(p: NewHostPageInput): string {
  const errors = p.errors ?? {};
  const values = p.values ?? {};
  const unavailable = p.unavailable ?? [];
  const title = `Add a business · ${CONSOLE_TITLE}`;
  if (p.offered.length === 0)
    return page(
      title,
      `<h1>Add a business</h1>` +
        `<div class="flash error" role="alert"><p>This gateway cannot connect a business's calendar or booking system yet.</p></div>` +
        unavailableList(unavailable) +
        back,
      { header: p.header },
    );
  // One source only: it is the answer, already chosen.
  const source = values.source ?? (p.offered.length === 1 ? (p.offered[0] ?? "") : "");
  return page(
    title,
    `<h1>Add a business</h1>` +
      summary(errors, p.general) +
      `<form method="post" action="/console/hosts/new">${csrfField(p.csrf)}` +
      input(
        errors,
        "name",
        "Business name",
        values.name ?? "",
        ' required maxlength="120" autocomplete="organization"',
      ) +
      input(
        errors,
        "timezone",
        "Time zone",
        values.timezone ?? "",
        ' required list="zones" autocomplete="off" spellcheck="false" placeholder="America/Toronto"',
        "Where the business is, as a city-based zone name such as America/Toronto or Europe/Madrid: its hours and bookings are kept in this zone.",
      ) +
      ZONE_LIST +
      radios(
        errors,
        "kind",
        "This is",
        [
          ["business", "A business (several people or rooms)"],
          ["person", "One person"],
        ],
        values.kind ?? "business",
      ) +
      radios(
        errors,
        "source",
        "Where its time comes from",
        p.offered.map((s) => [s, SOURCE_NAME[s]] as const),
        source,
      ) +
      unavailableList(unavailable) +
      (p.offered.includes("square")
        ? radios(
            errors,
            "environment",
            "Square account (Square only)",
            [
              ["production", "Production"],
              ["sandbox", "Sandbox (testing)"],
            ],
            values.environment ?? "production",
          )
        : "") +
      input(
        errors,
        "host_id",
        "Host id (optional)",
        values.hostId ?? "",
        ' pattern="[a-z0-9]([a-z0-9_\\-]{0,62}[a-z0-9])?" maxlength="64" autocomplete="off" spellcheck="false"',
        "The short name in the business's booking address. Leave it blank to make one from the name.",
      ) +
      `<div class="actions"><button class="approve" type="submit">Continue</button><a href="/">Cancel</a></div></form>`,
    { header: p.header },
  );
}

export interface CaldavPageInput {
  readonly hostId: string;
  readonly name: string;
  readonly csrf: string;
  readonly header: string;
  readonly values?: { serverUrl?: string; username?: string };
  readonly errors?: FormErrors;
  readonly general?: string;
  /** Why this gateway cannot keep the password (the form is not shown then). */
  readonly cannot?: string;
}

export function caldavPage(p: CaldavPageInput): string {
  const errors = p.errors ?? {};
  const values = p.values ?? {};
  const title = `Connect a calendar · ${CONSOLE_TITLE}`;
  const heading = `<h1>Connect the calendar of ${e(p.name)}</h1>`;
  const remove = `<p><a href="${e(`${hostPath(p.hostId)}/delete`)}">Delete ${e(p.name)}</a> · <a href="/">Back to the console</a></p>`;
  if (p.cannot !== undefined)
    return page(
      title,
      heading + `<div class="flash error" role="alert"><p>${e(p.cannot)}</p></div>` + remove,
      { header: p.header },
    );
  return page(
    title,
    heading +
      summary(errors, p.general) +
      `<form method="post" action="/console/hosts/${e(encodeURIComponent(p.hostId))}/caldav">${csrfField(p.csrf)}` +
      input(
        errors,
        "server_url",
        "CalDAV server URL",
        values.serverUrl ?? "",
        ' type="url" required autocomplete="url" spellcheck="false"',
        "Your provider's CalDAV address, such as https://caldav.fastmail.com/ or your Nextcloud's https://cloud.example.com/remote.php/dav/.",
      ) +
      input(
        errors,
        "username",
        "Username",
        values.username ?? "",
        ' required autocomplete="username" spellcheck="false"',
      ) +
      input(
        errors,
        "password",
        "Password",
        "",
        ' type="password" required autocomplete="current-password"',
        "An app password if your provider offers them. It is checked now and kept encrypted.",
      ) +
      `<div class="actions"><button class="approve" type="submit">Connect</button><a href="/">Cancel</a></div></form>` +
      remove,
    { header: p.header },
  );
}

export interface SetupPageInput {
  readonly hostId: string;
  readonly name: string;
  readonly source: ManagedHostSource;
  readonly action: "setup" | "settings";
  readonly csrf: string;
  /** The console's banner (pages.ts consoleHeader). */
  readonly header: string;
  /** The business's IANA zone: its currency and phone examples (zone-locale.ts). */
  readonly timezone?: string;
  readonly values: SetupValues;
  readonly choices?: HostChoices;
  /** Why the choices could not be loaded (the form still takes typed ids). */
  readonly choicesError?: string;
  readonly errors?: FormErrors;
  readonly general?: string;
  /** A person's own calendar (SchCP §7.7): the form asks whose it is. */
  readonly person?: boolean;
}

/** What a unit of a several-at-once business can be (config `capacity.resource_type`). */
const UNIT_KINDS: ReadonlyArray<readonly [string, string]> = [
  ["staff", "person on the team"],
  ["chair", "chair"],
  ["room", "room"],
  ["table", "table"],
  ["desk", "desk"],
  ["bay", "bay"],
  ["court", "court"],
  ["vehicle", "vehicle"],
];

function calendarPick(p: SetupPageInput, errors: FormErrors): string {
  const v = p.values;
  const calendars = p.choices?.kind === "calendar" ? p.choices.calendars : [];
  if (calendars.length === 0)
    return input(
      errors,
      "write",
      "Calendar id",
      v.write,
      " required",
      "The calendar's id (or CalDAV path) to read and write.",
    );
  return (
    checkboxes(
      errors,
      "read",
      "Calendars that show when you are busy",
      calendars.map((c) => [c.id, c.primary ? `${c.name} (main)` : c.name] as const),
      v.read,
    ) +
    radios(
      errors,
      "write",
      "Calendar new bookings go into",
      calendars.filter((c) => c.writable).map((c) => [c.id, c.name] as const),
      v.write,
    )
  );
}

function servicesSection(p: SetupPageInput, errors: FormErrors): string {
  const v = p.values;
  const currency = zoneLocale(p.timezone)?.currency ?? "";
  const rows = serviceRows(v, currency)
    .map((s, i) => {
      const n = ` (service ${i + 1})`;
      return (
        // One service is needed; the blank rows past it are there to add more.
        `<fieldset><legend>Service ${i + 1}${i >= Math.max(1, v.services.length) ? " (optional)" : ""}</legend>` +
        (s.id !== "" ? `<input type="hidden" name="svc${i}_id" value="${e(s.id)}">` : "") +
        `<div class="row"><div class="wide">` +
        input(errors, `svc${i}_name`, "Name", s.name, ' maxlength="120"', undefined, n) +
        `</div><div class="narrow">` +
        input(
          errors,
          `svc${i}_duration`,
          "Length in minutes",
          s.duration,
          ' type="number" min="1" max="1440" inputmode="numeric"',
          undefined,
          n,
        ) +
        `</div><div class="narrow">` +
        input(
          errors,
          `svc${i}_buffer`,
          "Break after, minutes",
          s.buffer,
          ' type="number" min="0" max="1440" inputmode="numeric"',
          undefined,
          n,
        ) +
        `</div><div class="narrow">` +
        input(errors, `svc${i}_price`, "Price", s.price, ' inputmode="decimal"', undefined, n) +
        `</div><div class="narrow">` +
        input(
          errors,
          `svc${i}_currency`,
          "Currency",
          s.currency,
          ` maxlength="3" autocomplete="off" spellcheck="false"${currency !== "" ? ` placeholder="${e(currency)}"` : ""}`,
          undefined,
          n,
        ) +
        `</div></div></fieldset>`
      );
    })
    .join("");
  return (
    `<section aria-labelledby="svc-h"><h2 id="svc-h">What you offer</h2>` +
    `<p class="note">Fill in one row per service; leave the others blank. A price is optional.</p>${rows}</section>`
  );
}

/** A time input labelled for screen readers only (its column heading says it to the eye). */
function timeCell(errors: FormErrors, name: string, column: string, label: string, value: string): string {
  return (
    `<td data-label="${e(column)}"><label class="vh" for="${e(name)}">${e(label)}</label>` +
    `<input id="${e(name)}" name="${e(name)}" type="time" value="${e(value)}"${described(errors, name, false)}>` +
    `${errorText(errors, name)}</td>`
  );
}

function hoursSection(v: SetupValues, errors: FormErrors): string {
  const days = WEEKDAYS.map((day, i) => {
    const h = v.hours[i] ?? { open: "", close: "" };
    const d = `d${i + 1}`;
    return (
      `<tr><th scope="row">${e(day)}</th>` +
      timeCell(errors, `${d}_open`, "Opens", `Opens (${day})`, h.open) +
      timeCell(errors, `${d}_close`, "Closes", `Closes (${day})`, h.close) +
      `</tr>`
    );
  }).join("");
  return (
    `<section aria-labelledby="hours-h"><h2 id="hours-h">Opening hours</h2>` +
    `<p class="note" id="hours-note">Leave both times blank on a day you are closed.</p>` +
    `<table class="form" aria-describedby="hours-note"><caption class="vh">Opening hours by day</caption>` +
    `<thead><tr><th scope="col">Day</th><th scope="col">Opens</th><th scope="col">Closes</th></tr></thead>` +
    `<tbody>${days}</tbody></table></section>`
  );
}

function capacitySection(v: SetupValues, errors: FormErrors): string {
  const kinds = UNIT_KINDS.some(([k]) => k === v.resourceType)
    ? UNIT_KINDS
    : [...UNIT_KINDS, [v.resourceType, v.resourceType] as const];
  return (
    `<section aria-labelledby="cap-h" class="toggle"><h2 id="cap-h">How many bookings at once</h2>` +
    radios(
      errors,
      "capacity",
      "Who or what is booked",
      [
        ["me", "Just me: one booking at a time"],
        ["units", "Several at once (chairs, rooms, people on the team…)"],
      ],
      v.capacity,
      { hides: "me" },
    ) +
    `<div class="dependent row"><div class="narrow">` +
    input(
      errors,
      "units",
      "How many at once",
      v.units,
      ' type="number" min="1" max="100" inputmode="numeric"',
    ) +
    `</div><div>${select(errors, "resource_type", "Each one is a", kinds, v.resourceType)}</div></div>` +
    `</section>`
  );
}

function approvalSection(p: SetupPageInput, errors: FormErrors, withApprover: boolean): string {
  const v = p.values;
  const phone = zoneLocale(p.timezone)?.phoneExample;
  return (
    `<section aria-labelledby="appr-h"><h2 id="appr-h">Confirming bookings</h2>` +
    radios(
      errors,
      "confirmation",
      "When someone books",
      [
        ["host_approval", "The approver confirms each booking"],
        ["instant", "Bookings are confirmed at once"],
      ],
      v.confirmation,
    ) +
    (withApprover
      ? `<div class="row"><div>` +
        input(
          errors,
          "approver_email",
          "Approver e-mail",
          v.approverEmail,
          ' type="email" autocomplete="email" spellcheck="false"',
          "Booking requests and changes are sent here (or to the phone).",
        ) +
        `</div><div>` +
        input(
          errors,
          "approver_phone",
          "Approver phone",
          v.approverPhone,
          ` type="tel" autocomplete="tel"${phone !== undefined ? ` placeholder="${e(phone)}"` : ""}`,
          phone !== undefined ? `With the country code, such as ${phone}.` : "With + and the country code.",
        ) +
        `</div></div>`
      : "") +
    `</section>`
  );
}

/**
 * SchCP §7.7: "The host configuration names its owner, the person's own principal". The key app
 * (key-app-page.ts) makes the person's key in this browser and shows the principal to paste here.
 */
function ownerSection(p: SetupPageInput, errors: FormErrors): string {
  return (
    `<section aria-labelledby="owner-h"><h2 id="owner-h">Whose calendar</h2>` +
    input(
      errors,
      "owner",
      "Your principal",
      p.values.owner,
      ' spellcheck="false" autocomplete="off" placeholder="urn:schcp:principal:jwk-thumbprint:…"',
      "Open your key app (Key app, in the menu) in this browser: it makes your own key and shows your principal. Paste it here: your own bookings then need nobody's yes, and the rules you sign answer for you.",
    ) +
    `</section>`
  );
}

function squareSection(p: SetupPageInput, errors: FormErrors): string {
  const v = p.values;
  const c = p.choices?.kind === "square" ? p.choices : undefined;
  const location =
    c !== undefined && c.locations.length > 0
      ? radios(
          errors,
          "location",
          "Square location",
          c.locations.map(
            (l) => [l.id, l.timezone !== undefined ? `${l.name} (${l.timezone})` : l.name] as const,
          ),
          v.location,
        )
      : input(errors, "location", "Square location id", v.location, " required");
  const services =
    c !== undefined && c.services.length > 0
      ? checkboxes(
          errors,
          "offer",
          "Services that can be booked here",
          c.services.map(
            (s) =>
              [
                s.id,
                s.durationMinutes !== undefined ? `${s.name} (${s.durationMinutes} min)` : s.name,
              ] as const,
          ),
          offeredChecked(v, p.choices),
        )
      : "";
  const team =
    c !== undefined && c.team.length > 0
      ? `<p class="note">Team members offered (as bookable in Square): ${e(c.team.map((m) => m.name).join(", "))}.</p>`
      : "";
  return (
    `<section aria-labelledby="sq-h"><h2 id="sq-h">Square</h2>${location}${services}${team}` +
    select(
      errors,
      "payment",
      "Paid when booking",
      [
        ["", "Not stated (the guest settles with you through Square)"],
        ...PAYMENT_REQUIREMENTS.map((r) => [r, PAYMENT_TEXT[r]] as const),
      ],
      v.payment,
    ) +
    `</section>`
  );
}

const PAYMENT_TEXT: Readonly<Record<(typeof PAYMENT_REQUIREMENTS)[number], string>> = {
  none: "Nothing up front",
  deposit: "A deposit",
  full_prepay: "The full price",
};

/** The settings most owners leave as they are, folded away (opened when one needs correcting). */
const MORE_FIELDS = ["access", "contacts", "retention", "hold_ttl", "holds_per_agent", "version"];

function moreSection(p: SetupPageInput, errors: FormErrors): string {
  const v = p.values;
  const open = MORE_FIELDS.some((f) => errors[f] !== undefined);
  return (
    `<details${open ? " open" : ""}><summary>More settings: who may book, records, holds</summary>` +
    `<div class="toggle">` +
    radios(
      errors,
      "access",
      "Who may book",
      [
        ["public", "Anyone, through any booking assistant"],
        ["contacts", "Only the people I list below"],
      ],
      v.access,
      { hides: "public" },
    ) +
    `<div class="dependent"><label for="contacts">People allowed to book</label>` +
    `<p class="note" id="contacts-note">One a line: the booking ID each person's assistant shows them (it starts with urn:).</p>` +
    `<textarea id="contacts" name="contacts" rows="3" spellcheck="false"${described(errors, "contacts", true)}>${e(v.contacts)}</textarea>` +
    errorText(errors, "contacts") +
    `</div></div>` +
    select(
      errors,
      "retention",
      "Keep booking records for",
      RETENTION_DAYS.map((d) => [d, `${d} days`] as const),
      v.retention,
      "short",
    ) +
    `<div class="row"><div>` +
    input(
      errors,
      "hold_ttl",
      "Minutes a time is held while someone decides",
      v.holdTtl,
      ' type="number" min="1" max="60" inputmode="numeric"',
    ) +
    `</div><div>` +
    input(
      errors,
      "holds_per_agent",
      "Times one booking assistant may hold at once",
      v.holdsPerAgent,
      ' type="number" min="1" max="50" inputmode="numeric"',
    ) +
    `</div></div>` +
    (p.source === "square"
      ? input(
          errors,
          "version",
          "Square API version",
          v.version,
          ' pattern="\\d{4}-\\d{2}-\\d{2}" spellcheck="false"',
          "The dated Square API this business is read with; change it only when told to.",
        )
      : "") +
    `</details>`
  );
}

export function setupPage(p: SetupPageInput): string {
  const errors = p.errors ?? {};
  const title = p.action === "setup" ? `Set up ${p.name}` : `Settings of ${p.name}`;
  const calendar = p.source !== "square";
  return page(
    `${title} · ${CONSOLE_TITLE}`,
    `<h1>${e(title)}</h1>` +
      `<p class="note">${e(SOURCE_NAME[p.source])} · host id <code>${e(p.hostId)}</code>` +
      (p.timezone !== undefined ? ` · times in ${e(p.timezone)}` : "") +
      `</p>` +
      summary(errors, p.general) +
      (p.choicesError !== undefined
        ? `<p class="flash error" role="alert">Could not load what the account offers: ${e(p.choicesError)}</p>`
        : "") +
      `<form method="post" action="/console/hosts/${e(encodeURIComponent(p.hostId))}/${p.action}">${csrfField(p.csrf)}` +
      (p.person === true ? ownerSection(p, errors) : "") +
      (calendar
        ? `<section aria-labelledby="cal-h"><h2 id="cal-h">Your calendar</h2>${calendarPick(p, errors)}</section>` +
          servicesSection(p, errors) +
          hoursSection(p.values, errors) +
          capacitySection(p.values, errors)
        : squareSection(p, errors)) +
      approvalSection(p, errors, calendar) +
      moreSection(p, errors) +
      `<div class="actions"><button class="approve" type="submit">${p.action === "setup" ? "Start taking bookings" : "Save"}</button>` +
      `<a href="/">Cancel</a></div></form>` +
      (p.action === "setup"
        ? `<p><a href="${e(`${hostPath(p.hostId)}/delete`)}">Delete ${e(p.name)}</a></p>`
        : ""),
    { wide: true, header: p.header },
  );
}

/** "Delete this draft?": what goes, and the one button that does it. */
export function deleteDraftPage(p: {
  readonly hostId: string;
  readonly name: string;
  readonly source: ManagedHostSource;
  readonly csrf: string;
  readonly header: string;
}): string {
  const what =
    p.source === "caldav"
      ? "its CalDAV password, if one was saved"
      : `the ${SOURCE_NAME[p.source]} access granted to it, if any (revoked where ${SOURCE_NAME[p.source]} allows)`;
  return page(
    `Delete ${p.name}? · ${CONSOLE_TITLE}`,
    `<h1>Delete ${e(p.name)}?</h1>` +
      `<p>${e(p.name)} is not set up yet and takes no bookings. Deleting it removes it and ${e(what)}. ` +
      `Its host id <code>${e(p.hostId)}</code> becomes free again.</p>` +
      `<form method="post" action="${e(`${hostPath(p.hostId)}/delete`)}">${csrfField(p.csrf)}` +
      `<div class="actions"><button class="danger" type="submit">Delete ${e(p.name)}</button><a href="/">Keep it</a></div></form>`,
    { header: p.header },
  );
}
