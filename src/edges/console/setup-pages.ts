/**
 * The console's "Add a business" and "Set up the host" pages, in the console's one look
 * (src/edges/http/layout.ts: no script, strict CSP). Every input has a <label for>, related
 * inputs sit in a fieldset with a legend, and a refused form comes back with its values, an error summary
 * (role=alert) linking to each bad input, and the message next to that input
 * (aria-describedby, aria-invalid).
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
import { escapeHtml as e, page } from "../http/layout.js";
import { CONSOLE_TITLE } from "./pages.js";

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`;
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

function input(
  errors: FormErrors,
  name: string,
  label: string,
  value: string,
  attrs = "",
  note?: string,
): string {
  return (
    `<label for="${e(name)}">${e(label)}</label>` +
    (note !== undefined ? `<p class="note" id="${e(name)}-note">${e(note)}</p>` : "") +
    `<input id="${e(name)}" name="${e(name)}" value="${e(value)}"${attrs}${described(errors, name, note !== undefined)}>` +
    errorText(errors, name)
  );
}

function radios(
  errors: FormErrors,
  name: string,
  legend: string,
  options: ReadonlyArray<readonly [string, string]>,
  value: string,
): string {
  return (
    `<fieldset${invalid(errors, name)}><legend>${e(legend)}</legend>` +
    options
      .map(
        ([v, text], i) =>
          `<div><input type="radio" id="${e(i === 0 ? name : `${name}-${i}`)}" name="${e(name)}" value="${e(v)}"` +
          `${v === value ? " checked" : ""}> <label for="${e(i === 0 ? name : `${name}-${i}`)}">${e(text)}</label></div>`,
      )
      .join("") +
    errorText(errors, name) +
    `</fieldset>`
  );
}

function checkboxes(
  errors: FormErrors,
  name: string,
  legend: string,
  options: ReadonlyArray<readonly [string, string]>,
  checked: readonly string[],
): string {
  return (
    `<fieldset${invalid(errors, name)}><legend>${e(legend)}</legend>` +
    options
      .map(
        ([v, text], i) =>
          `<div><input type="checkbox" id="${e(i === 0 ? name : `${name}-${i}`)}" name="${e(name)}" value="${e(v)}"` +
          `${checked.includes(v) ? " checked" : ""}> <label for="${e(i === 0 ? name : `${name}-${i}`)}">${e(text)}</label></div>`,
      )
      .join("") +
    errorText(errors, name) +
    `</fieldset>`
  );
}

export function newHostPage(
  csrf: string,
  offered: readonly ManagedHostSource[],
  values: Partial<NewHostValues> = {},
  errors: FormErrors = {},
  general?: string,
): string {
  return page(
    `Add a business · ${CONSOLE_TITLE}`,
    `<h1>Add a business</h1>` +
      summary(errors, general) +
      `<form method="post" action="/console/hosts/new">${csrfField(csrf)}` +
      input(
        errors,
        "name",
        "Business name",
        values.name ?? "",
        ' required maxlength="120" autocomplete="organization"',
      ) +
      input(
        errors,
        "host_id",
        "Host id",
        values.hostId ?? "",
        ' pattern="[a-z0-9]([a-z0-9_\\-]{0,62}[a-z0-9])?" maxlength="64"',
        "Part of the booking address agents use. Leave blank to make one from the name.",
      ) +
      input(
        errors,
        "timezone",
        "Time zone",
        values.timezone ?? "",
        ' required placeholder="Europe/Madrid"',
        "The IANA name of the business's local time zone.",
      ) +
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
        offered.map((s) => [s, SOURCE_NAME[s]] as const),
        values.source ?? "",
      ) +
      (offered.includes("square")
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
      `<button class="approve" type="submit">Continue</button></form>` +
      back,
  );
}

export function caldavPage(
  hostId: string,
  name: string,
  csrf: string,
  values: { serverUrl?: string; username?: string } = {},
  errors: FormErrors = {},
  general?: string,
): string {
  return page(
    `Connect a calendar · ${CONSOLE_TITLE}`,
    `<h1>Connect the calendar of ${e(name)}</h1>` +
      summary(errors, general) +
      `<form method="post" action="/console/hosts/${e(encodeURIComponent(hostId))}/caldav">${csrfField(csrf)}` +
      input(
        errors,
        "server_url",
        "CalDAV server URL",
        values.serverUrl ?? "",
        ' type="url" required',
        "Your provider's CalDAV address, such as https://caldav.fastmail.com/.",
      ) +
      input(errors, "username", "Username", values.username ?? "", ' required autocomplete="username"') +
      input(
        errors,
        "password",
        "Password",
        "",
        ' type="password" required autocomplete="current-password"',
        "An app password if your provider offers them. It is checked now and kept encrypted.",
      ) +
      `<button class="approve" type="submit">Connect</button></form>` +
      back,
  );
}

export interface SetupPageInput {
  readonly hostId: string;
  readonly name: string;
  readonly source: ManagedHostSource;
  readonly action: "setup" | "settings";
  readonly csrf: string;
  readonly values: SetupValues;
  readonly choices?: HostChoices;
  /** Why the choices could not be loaded (the form still takes typed ids). */
  readonly choicesError?: string;
  readonly errors?: FormErrors;
  readonly general?: string;
}

function calendarFieldsets(p: SetupPageInput, errors: FormErrors): string {
  const v = p.values;
  const calendars = p.choices?.kind === "calendar" ? p.choices.calendars : [];
  const pick =
    calendars.length > 0
      ? checkboxes(
          errors,
          "read",
          "Calendars to read (busy time in any of them is not offered)",
          calendars.map((c) => [c.id, c.primary ? `${c.name} (main)` : c.name] as const),
          v.read,
        ) +
        radios(
          errors,
          "write",
          "Calendar new bookings are written to",
          calendars.filter((c) => c.writable).map((c) => [c.id, c.name] as const),
          v.write,
        )
      : `<fieldset><legend>Calendar</legend>` +
        input(
          errors,
          "write",
          "Calendar id",
          v.write,
          " required",
          "The calendar's id (or CalDAV path) to read and write.",
        ) +
        `</fieldset>`;
  const hours = WEEKDAYS.map((day, i) => {
    const h = v.hours[i] ?? { open: "", close: "" };
    return (
      `<fieldset><legend>${e(day)}</legend>` +
      input(errors, `d${i + 1}_open`, `Opens (${day})`, h.open, ' type="time"') +
      input(errors, `d${i + 1}_close`, `Closes (${day})`, h.close, ' type="time"') +
      `</fieldset>`
    );
  }).join("");
  const services = serviceRows(v)
    .map(
      (s, i) =>
        `<fieldset><legend>Service ${i + 1}${i >= v.services.length ? " (optional)" : ""}</legend>` +
        (s.id !== "" ? `<input type="hidden" name="svc${i}_id" value="${e(s.id)}">` : "") +
        input(errors, `svc${i}_name`, `Name (service ${i + 1})`, s.name, ' maxlength="120"') +
        input(
          errors,
          `svc${i}_duration`,
          `Length in minutes (service ${i + 1})`,
          s.duration,
          ' inputmode="numeric"',
        ) +
        input(
          errors,
          `svc${i}_buffer`,
          `Pause after, minutes (service ${i + 1})`,
          s.buffer,
          ' inputmode="numeric"',
        ) +
        input(errors, `svc${i}_price`, `Price (service ${i + 1})`, s.price, ' inputmode="decimal"') +
        input(
          errors,
          `svc${i}_currency`,
          `Currency (service ${i + 1})`,
          s.currency,
          ' maxlength="3" placeholder="EUR"',
        ) +
        `</fieldset>`,
    )
    .join("");
  return (
    `<section aria-labelledby="cal-h"><h2 id="cal-h">Calendars</h2>${pick}</section>` +
    `<section aria-labelledby="cap-h"><h2 id="cap-h">Capacity</h2>` +
    radios(
      errors,
      "capacity",
      "Who or what is booked",
      [
        ["me", "Just me: one booking at a time"],
        ["units", "Several units (chairs, rooms…)"],
      ],
      v.capacity,
    ) +
    input(errors, "units", "Number of units", v.units, ' inputmode="numeric"') +
    input(errors, "resource_type", "A unit is a", v.resourceType, "", "Lowercase, such as chair or room.") +
    `</section>` +
    `<section aria-labelledby="svc-h"><h2 id="svc-h">Services</h2>${services}</section>` +
    `<section aria-labelledby="hours-h"><h2 id="hours-h">Working hours</h2>` +
    `<p class="note">Leave a day blank when closed.</p>${hours}</section>` +
    `<section aria-labelledby="appr-h"><h2 id="appr-h">Who approves bookings</h2>` +
    input(
      errors,
      "approver_email",
      "Approver e-mail",
      v.approverEmail,
      ' type="email" autocomplete="email"',
    ) +
    input(
      errors,
      "approver_phone",
      "Approver phone",
      v.approverPhone,
      ' type="tel" placeholder="+34600000000"',
    ) +
    `</section>`
  );
}

function squareFieldsets(p: SetupPageInput, errors: FormErrors): string {
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
          "Services agents may book",
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
    `<label for="payment">Taken up front</label>` +
    `<select id="payment" name="payment"${invalid(errors, "payment")}>` +
    [
      ["", "Not stated (agents hand off to Square)"],
      ...PAYMENT_REQUIREMENTS.map((r) => [r, r.replace("_", " ")]),
    ]
      .map(
        ([val, text]) =>
          `<option value="${e(val ?? "")}"${val === v.payment ? " selected" : ""}>${e(text ?? "")}</option>`,
      )
      .join("") +
    `</select>${errorText(errors, "payment")}` +
    input(errors, "version", "Square API version", v.version, ' pattern="\\d{4}-\\d{2}-\\d{2}"') +
    `</section>`
  );
}

function policyFieldsets(v: SetupValues, errors: FormErrors): string {
  return (
    `<section aria-labelledby="pol-h"><h2 id="pol-h">Policies</h2>` +
    radios(
      errors,
      "confirmation",
      "Confirming bookings",
      [
        ["host_approval", "The approver confirms each booking"],
        ["instant", "Bookings are confirmed at once"],
      ],
      v.confirmation,
    ) +
    `<label for="retention">Keep booking records for</label><select id="retention" name="retention"${invalid(errors, "retention")}>` +
    RETENTION_DAYS.map(
      (d) => `<option value="${d}"${d === v.retention ? " selected" : ""}>${d} days</option>`,
    ).join("") +
    `</select>${errorText(errors, "retention")}` +
    radios(
      errors,
      "access",
      "Who may book",
      [
        ["public", "Any agent"],
        ["contacts", "Only the agents listed below"],
      ],
      v.access,
    ) +
    `<label for="contacts">Agents allowed (one principal urn per line)</label>` +
    `<textarea id="contacts" name="contacts" rows="3"${invalid(errors, "contacts")}>${e(v.contacts)}</textarea>` +
    errorText(errors, "contacts") +
    `<fieldset><legend>Holds</legend>` +
    input(errors, "hold_ttl", "A hold lasts at most (minutes)", v.holdTtl, ' inputmode="numeric"') +
    input(
      errors,
      "holds_per_agent",
      "Holds one agent may keep at once",
      v.holdsPerAgent,
      ' inputmode="numeric"',
    ) +
    `</fieldset></section>`
  );
}

export function setupPage(p: SetupPageInput): string {
  const errors = p.errors ?? {};
  const title = p.action === "setup" ? `Set up ${p.name}` : `Settings of ${p.name}`;
  return page(
    `${title} · ${CONSOLE_TITLE}`,
    `<h1>${e(title)}</h1>` +
      `<p class="note">${e(SOURCE_NAME[p.source])} · host id <code>${e(p.hostId)}</code></p>` +
      summary(errors, p.general) +
      (p.choicesError !== undefined
        ? `<p class="flash error" role="alert">Could not load what the account offers: ${e(p.choicesError)}</p>`
        : "") +
      `<form method="post" action="/console/hosts/${e(encodeURIComponent(p.hostId))}/${p.action}">${csrfField(p.csrf)}` +
      (p.source === "square" ? squareFieldsets(p, errors) : calendarFieldsets(p, errors)) +
      policyFieldsets(p.values, errors) +
      `<button class="approve" type="submit">${p.action === "setup" ? "Start taking bookings" : "Save"}</button></form>` +
      back,
    { wide: true },
  );
}
