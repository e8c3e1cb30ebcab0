/**
 * The setup form: its values (kept as typed, so a refused form
 * comes back as the owner left it), the host entry they make — exactly a config file's entry
 * (docs/connectors.md; parse-config.ts and calendar/config.ts are the truth) — and the
 * way back from a config error's JSON pointer to the input it is about.
 *
 * The entry is checked here with the same parsers the gateway starts with (parseHostsConfig,
 * parseCalendarSection); ManagedHosts.activate checks it again in full (connector included).
 */
import { parseCalendarSection } from "../../../booking/calendar/config.js";
import { parseHostsConfig } from "../../../booking/hosts/index.js";
import type { ManagedHostRecord } from "../managed-hosts.js";
import { SQUARE_DEFAULT_VERSION, type HostChoices } from "./choices.js";
import type { FormErrors } from "./new-host.js";
import { zoneLocale } from "./zone-locale.js";

export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
/** Blank service rows offered below the filled ones (no script adds rows; saving adds room for more). */
const BLANK_SERVICE_ROWS = 2;
export const RETENTION_DAYS = ["30", "90", "365", "730"] as const;
export const PAYMENT_REQUIREMENTS = ["none", "deposit", "full_prepay"] as const;

export interface ServiceRow {
  readonly id: string;
  readonly name: string;
  readonly duration: string;
  readonly buffer: string;
  readonly price: string;
  readonly currency: string;
}

export interface SetupValues {
  // calendar sources
  readonly read: readonly string[];
  readonly write: string;
  readonly capacity: string;
  readonly units: string;
  readonly resourceType: string;
  readonly services: readonly ServiceRow[];
  /** Index 0 is Monday (ISO day 1). */
  readonly hours: ReadonlyArray<{ readonly open: string; readonly close: string }>;
  readonly approverEmail: string;
  readonly approverPhone: string;
  // Square
  readonly location: string;
  readonly offer: readonly string[];
  readonly payment: string;
  readonly version: string;
  // policies, every source
  readonly confirmation: string;
  readonly retention: string;
  readonly access: string;
  readonly contacts: string;
  /** A person's calendar (SchCP §7.7): the owner's principal, from the key app (key-app-page.ts). */
  readonly owner: string;
  readonly holdTtl: string;
  readonly holdsPerAgent: string;
}

export const DEFAULT_VALUES: SetupValues = {
  read: [],
  write: "",
  capacity: "me",
  units: "2",
  resourceType: "staff",
  services: [],
  hours: WEEKDAYS.map((_, i) => (i < 5 ? { open: "09:00", close: "17:00" } : { open: "", close: "" })),
  approverEmail: "",
  approverPhone: "",
  location: "",
  offer: [],
  payment: "",
  version: SQUARE_DEFAULT_VERSION,
  confirmation: "host_approval",
  retention: "365",
  access: "public",
  contacts: "",
  owner: "",
  holdTtl: "10",
  holdsPerAgent: "3",
};

/**
 * The services the form shows: the filled rows, then BLANK_SERVICE_ROWS blank ones, their
 * currency the business's own (zone-locale.ts) so a price typed there needs nothing more. A
 * row with only a currency is no service (buildHostEntry skips it).
 */
export function serviceRows(v: SetupValues, currency = ""): ServiceRow[] {
  const blank = { id: "", name: "", duration: "", buffer: "", price: "", currency };
  return [...v.services, ...Array.from({ length: BLANK_SERVICE_ROWS }, () => blank)];
}

/**
 * The defaults a first setup starts from once the account's calendars are known: the main (or
 * the only) calendar read and written, so a first save works without ticking anything. Values
 * the owner already chose are kept.
 */
export function withChoiceDefaults(v: SetupValues, choices: HostChoices | undefined): SetupValues {
  if (choices?.kind !== "calendar" || v.read.length > 0 || v.write !== "") return v;
  const calendars = choices.calendars;
  const main = calendars.length === 1 ? calendars[0] : calendars.find((c) => c.primary);
  const writable = calendars.filter((c) => c.writable);
  const write = main?.writable === true ? main : writable.length === 1 ? writable[0] : undefined;
  const read = [...new Set([main?.id, write?.id].filter((id): id is string => id !== undefined))];
  return { ...v, read, write: write?.id ?? "" };
}

/** A phone number as typed ("+1 (416) 555-0142") in the form the config takes ("+14165550142"). */
const phoneDigits = (s: string) => s.replace(/[\s().-]/g, "");

export function readSetupForm(form: URLSearchParams): SetupValues {
  const get = (k: string) => (form.get(k) ?? "").trim();
  const services: ServiceRow[] = [];
  for (let i = 0; i < 50 && form.has(`svc${i}_name`); i++) {
    const row = {
      id: get(`svc${i}_id`),
      name: get(`svc${i}_name`),
      duration: get(`svc${i}_duration`),
      buffer: get(`svc${i}_buffer`),
      price: get(`svc${i}_price`),
      currency: get(`svc${i}_currency`).toUpperCase(),
    };
    // A row left blank is no service (its currency may be prefilled): the form shows fresh
    // blank rows after the filled ones again, numbered as they will be read.
    if (row.name !== "" || row.duration !== "" || row.buffer !== "" || row.price !== "") services.push(row);
  }
  return {
    read: form.getAll("read").filter((s) => s !== ""),
    write: get("write"),
    capacity: get("capacity") || "me",
    units: get("units"),
    resourceType: get("resource_type"),
    services,
    hours: WEEKDAYS.map((_, i) => ({ open: get(`d${i + 1}_open`), close: get(`d${i + 1}_close`) })),
    approverEmail: get("approver_email"),
    approverPhone: phoneDigits(get("approver_phone")),
    location: get("location"),
    offer: form.getAll("offer").filter((s) => s !== ""),
    payment: get("payment"),
    version: get("version"),
    confirmation: get("confirmation"),
    retention: get("retention"),
    access: get("access"),
    contacts: form.get("contacts") ?? "",
    owner: get("owner"),
    holdTtl: get("hold_ttl"),
    holdsPerAgent: get("holds_per_agent"),
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
/** A scalar read back as form text; anything else as blank. */
const text = (v: unknown): string => (typeof v === "string" || typeof v === "number" ? String(v) : "");
const WHOLE = /^[0-9]{1,5}$/;
const AMOUNT = /^(?:0|[1-9][0-9]{0,9})(?:\.[0-9]{1,4})?$/;
const HHMM = /^(?:[01][0-9]|2[0-3]):[0-5][0-9]$/;
const SERVICE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const slug = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48) || "service";

export interface BuiltEntry {
  /** The host entry, as in a config file's `hosts` array. */
  readonly config: Json;
  /** JSON pointer prefixes (relative to the entry) → the input they came from. */
  readonly inputs: ReadonlyArray<readonly [string, string]>;
}

/** The input a config error is about: the longest pointer prefix that names one; "" for none. */
export function inputForField(field: string, inputs: BuiltEntry["inputs"]): string {
  let best: readonly [string, string] | undefined;
  for (const pair of inputs)
    if ((field === pair[0] || field.startsWith(`${pair[0]}/`)) && pair[0].length > (best?.[0].length ?? -1))
      best = pair;
  return best?.[1] ?? "";
}

const POLICY_INPUTS: ReadonlyArray<readonly [string, string]> = [
  ["/policies/confirmation", "confirmation"],
  ["/policies/retention", "retention"],
  ["/policies/access", "access"],
  ["/policies/contacts", "contacts"],
  ["/policies/holds/max_ttl", "hold_ttl"],
  ["/policies/holds/max_active_per_agent", "holds_per_agent"],
];

/**
 * The record's entry with the form's values in it; `errors` (input → message) for what the
 * form itself can tell. Members of the draft entry the form does not show (id, name, timezone,
 * kind, the connector's vault settings) are kept.
 */
export function buildHostEntry(
  record: Pick<ManagedHostRecord, "id" | "source" | "config">,
  v: SetupValues,
  choices?: HostChoices,
): { entry: BuiltEntry; errors: FormErrors } {
  const errors: FormErrors = {};
  const inputs: Array<readonly [string, string]> = [...POLICY_INPUTS, ["/owner", "owner"]];
  const local = zoneLocale(typeof record.config.timezone === "string" ? record.config.timezone : undefined);
  const draft = record.config;
  const person = draft.kind === "person";
  const policies = readPolicies(v, errors, person);
  const connector = isObject(draft.connector) ? draft.connector : {};
  const draftSettings = isObject(connector.settings) ? connector.settings : {};
  const base: Json = {
    id: record.id,
    name: draft.name,
    timezone: draft.timezone,
    ...(draft.kind !== undefined && { kind: draft.kind }),
    // SchCP §7.7: a person's calendar names its owner, the principal their key app shows.
    ...(person && { owner: v.owner }),
    ...(draft.domain !== undefined && { domain: draft.domain }),
    ...(draft.url !== undefined && { url: draft.url }),
    ...(draft.address !== undefined && { address: draft.address }),
    ...(draft.contact !== undefined && { contact: draft.contact }),
  };

  if (record.source === "square") {
    inputs.push(
      ["/connector/settings/locationId", "location"],
      ["/connector/settings/version", "version"],
      ["/connector/settings/paymentRequirement", "payment"],
      ["/timezone", "location"],
    );
    if (v.location === "") errors.location = "Choose the location this host books for.";
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v.version))
      errors.version = 'The Square-Version to pin, a date such as "2026-09-16".';
    if (v.payment !== "" && !(PAYMENT_REQUIREMENTS as readonly string[]).includes(v.payment))
      errors.payment = "Choose what the business takes up front.";
    const offered = choices?.kind === "square" ? choices.services : [];
    if (offered.length > 0 && v.offer.length === 0) errors.offer = "Offer at least one service.";
    const zone =
      choices?.kind === "square" ? choices.locations.find((l) => l.id === v.location)?.timezone : undefined;
    const settings: Json = {
      ...draftSettings,
      locationId: v.location,
      version: v.version,
      ...(v.payment !== "" ? { paymentRequirement: v.payment } : {}),
    };
    if (v.payment === "") delete settings.paymentRequirement;
    // Services not offered stay in Square but are not selectable through the gateway.
    const hidden = offered.filter((s) => !v.offer.includes(s.id));
    return {
      entry: {
        config: {
          ...base,
          ...(zone !== undefined && { timezone: zone }),
          connector: { type: "square", settings },
          policies,
          ...(hidden.length > 0 && {
            services: hidden.map((s) => ({ service_id: s.id, selectable: false })),
          }),
        },
        inputs,
      },
      errors,
    };
  }

  // Calendar sources: google, microsoft, caldav.
  inputs.push(
    ["/calendar/calendars", "read"],
    ["/calendar/write_calendar", "write"],
    ["/calendar/capacity", "units"],
    ["/calendar/capacity/resource_type", "resource_type"],
    ["/calendar/approver", "approver_email"],
    ["/calendar/approver/phone", "approver_phone"],
    ["/calendar/hours", "d1_open"],
    ["/calendar/services", "svc0_name"],
    ["/connector/settings/calendarPath", "write"],
  );
  const read = v.read.length > 0 ? v.read : v.write !== "" ? [v.write] : [];
  if (read.length === 0) errors.read = "Choose at least one calendar to read.";
  if (v.write === "") errors.write = "Choose the calendar new bookings are written to.";
  else if (!read.includes(v.write)) errors.write = "The write calendar must be one of the calendars read.";

  let capacity: unknown = "me";
  if (v.capacity === "units") {
    const n = Number(v.units);
    if (!WHOLE.test(v.units) || n < 1 || n > 100) errors.units = "Give a whole number of units, 1 to 100.";
    if (!/^[a-z][a-z0-9_]{0,31}$/.test(v.resourceType))
      errors.resource_type = "Name what a unit is in lowercase letters, such as chair or room.";
    capacity = { resource_type: v.resourceType, units: n };
  } else if (v.capacity !== "me") errors.capacity = 'Choose "just me" or a number of units.';

  const hours: Json[] = [];
  v.hours.forEach((h, i) => {
    if (h.open === "" && h.close === "") return;
    const day = i + 1;
    if (!HHMM.test(h.open))
      errors[`d${day}_open`] = `Give ${WEEKDAYS[i]}'s opening time as HH:MM, or leave both blank.`;
    if (!HHMM.test(h.close))
      errors[`d${day}_close`] = `Give ${WEEKDAYS[i]}'s closing time as HH:MM, or leave both blank.`;
    inputs.push(
      [`/calendar/hours/${hours.length}`, `d${day}_open`],
      [`/calendar/hours/${hours.length}/close`, `d${day}_close`],
    );
    hours.push({ day, open: h.open, close: h.close });
  });
  if (hours.length === 0) errors.d1_open = "Open on at least one day.";

  const services: Json[] = [];
  const ids = new Set<string>();
  v.services.forEach((s, i) => {
    if (s.name === "" && s.duration === "" && s.price === "" && s.buffer === "") return;
    const f = `svc${i}`;
    if (s.name === "" || s.name.length > 120) errors[`${f}_name`] = "Give the service a name.";
    if (!WHOLE.test(s.duration) || Number(s.duration) < 1 || Number(s.duration) > 1440)
      errors[`${f}_duration`] = "Give the length in minutes (1 to 1440).";
    if (s.buffer !== "" && (!WHOLE.test(s.buffer) || Number(s.buffer) > 1440))
      errors[`${f}_buffer`] = "Give the pause after in minutes, or leave it blank.";
    if (s.price !== "" && !AMOUNT.test(s.price))
      errors[`${f}_price`] = "Give the price as a number, such as 25.00.";
    if (s.price !== "" && !/^[A-Z]{3}$/.test(s.currency))
      errors[`${f}_currency`] =
        `Give the currency's three-letter code, such as ${local?.currency ?? "EUR or USD"}.`;
    let id = SERVICE_ID.test(s.id) ? s.id : slug(s.name);
    for (let n = 2; ids.has(id); n++) id = `${slug(s.name)}-${n}`;
    ids.add(id);
    const at = `/calendar/services/${services.length}`;
    inputs.push(
      [at, `${f}_name`],
      [`${at}/duration`, `${f}_duration`],
      [`${at}/buffer_after`, `${f}_buffer`],
      [`${at}/price`, `${f}_price`],
      [`${at}/price/currency`, `${f}_currency`],
    );
    services.push({
      id,
      name: s.name,
      duration: `PT${Number(s.duration)}M`,
      ...(s.buffer !== "" && Number(s.buffer) > 0 && { buffer_after: `PT${Number(s.buffer)}M` }),
      ...(s.price !== "" && { price: { amount: s.price, currency: s.currency } }),
    });
  });
  if (services.length === 0) errors.svc0_name = "Offer at least one service: give its name and length.";

  if (v.approverEmail === "" && v.approverPhone === "")
    errors.approver_email = "Give the e-mail or phone number that approves bookings.";
  else {
    if (v.approverEmail !== "" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.approverEmail))
      errors.approver_email = "Give an e-mail address such as ana@example.com.";
    if (v.approverPhone !== "" && !/^\+[1-9][0-9]{6,14}$/.test(v.approverPhone))
      errors.approver_phone =
        local === undefined
          ? "Give the number starting with + and its country code."
          : `Give the number with its country code, such as ${local.phoneExample}.`;
  }

  const settings: Json = { ...draftSettings };
  // CalDAV books into one collection: the connector's calendarPath is the write calendar.
  if (record.source === "caldav" && v.write !== "") settings.calendarPath = v.write;
  return {
    entry: {
      config: {
        ...base,
        connector: { type: record.source, settings },
        policies,
        calendar: {
          capacity,
          hours,
          services,
          calendars: read.map((id) => ({ id })),
          ...(v.write !== "" && { write_calendar: v.write }),
          approver: {
            ...(v.approverEmail !== "" && { email: v.approverEmail }),
            ...(v.approverPhone !== "" && { phone: v.approverPhone }),
          },
        },
      },
      inputs,
    },
    errors,
  };
}

function readPolicies(v: SetupValues, errors: FormErrors, person: boolean): Json {
  if (v.confirmation !== "host_approval" && v.confirmation !== "instant")
    errors.confirmation = "Choose how bookings are confirmed.";
  if (!(RETENTION_DAYS as readonly string[]).includes(v.retention))
    errors.retention = "Choose how long booking records are kept.";
  if (v.access !== "public" && v.access !== "contacts") errors.access = "Choose who may book.";
  const contacts = v.contacts
    .split(/\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  // A person's contacts are kept on their Contacts page (contacts-routes.ts, SchCP §7.8).
  if (v.access === "contacts" && contacts.length === 0 && !person)
    errors.contacts =
      "List at least one person allowed to book (their booking ID, one a line), or let anyone book.";
  const ttl = Number(v.holdTtl);
  if (!WHOLE.test(v.holdTtl) || ttl < 1 || ttl > 60) errors.hold_ttl = "Give 1 to 60 minutes.";
  const per = Number(v.holdsPerAgent);
  if (!WHOLE.test(v.holdsPerAgent) || per < 1 || per > 50) errors.holds_per_agent = "Give 1 to 50.";
  return {
    confirmation: v.confirmation,
    retention: `P${v.retention}D`,
    access: v.access,
    ...(contacts.length > 0 && { contacts: [...new Set(contacts)] }),
    holds: { max_ttl: `PT${ttl}M`, max_active_per_agent: per },
  };
}

/**
 * The checks the gateway starts with, on this one entry: parseHostsConfig (structure and
 * policies) and, for a calendar host, parseCalendarSection. The error's field is relative to
 * the entry ("/calendar/hours/0/open"), as ManagedHosts.activate reports it.
 */
export function checkHostEntry(config: Json): { field: string; message: string } | undefined {
  const parsed = parseHostsConfig({ hosts: [config] });
  const strip = (f: string) => (f.startsWith("/hosts/0") ? f.slice("/hosts/0".length) : f);
  if (!parsed.ok)
    return { field: strip(parsed.error.field), message: parsed.error.message.replace(/^\/hosts\/0/, "") };
  if (config.calendar !== undefined) {
    const section = parseCalendarSection(config.calendar, "/calendar");
    if (!section.ok) return { field: section.error.field, message: section.error.message };
  }
  return undefined;
}

/** The form's values back from an active host's entry (the settings page). */
export function valuesFromEntry(config: Readonly<Json>): SetupValues {
  const policies = isObject(config.policies) ? config.policies : {};
  const holds = isObject(policies.holds) ? policies.holds : {};
  const connector = isObject(config.connector) ? config.connector : {};
  const settings = isObject(connector.settings) ? connector.settings : {};
  const cal = isObject(config.calendar) ? config.calendar : {};
  const minutes = (d: unknown) => {
    const m = typeof d === "string" ? /^PT(\d+)M$/.exec(d) : null;
    return m?.[1] ?? "";
  };
  const capacity = isObject(cal.capacity) ? cal.capacity : undefined;
  const hours = DEFAULT_VALUES.hours.map(() => ({ open: "", close: "" }));
  for (const h of Array.isArray(cal.hours) ? cal.hours : [])
    if (isObject(h) && typeof h.day === "number" && h.day >= 1 && h.day <= 7)
      hours[h.day - 1] = { open: text(h.open), close: text(h.close) };
  const approver = isObject(cal.approver) ? cal.approver : {};
  const services = (Array.isArray(cal.services) ? cal.services : []).filter(isObject).map((s) => {
    const price = isObject(s.price) ? s.price : {};
    return {
      id: text(s.id),
      name: text(s.name),
      duration: minutes(s.duration),
      buffer: minutes(s.buffer_after),
      price: typeof price.amount === "string" ? price.amount : "",
      currency: typeof price.currency === "string" ? price.currency : "",
    };
  });
  const hidden = new Set(
    (Array.isArray(config.services) ? config.services : [])
      .filter((s): s is Json => isObject(s) && s.selectable === false)
      .map((s) => String(s.service_id)),
  );
  const retention =
    typeof policies.retention === "string" ? /^P(\d+)D$/.exec(policies.retention)?.[1] : undefined;
  return {
    ...DEFAULT_VALUES,
    read: (Array.isArray(cal.calendars) ? cal.calendars : []).filter(isObject).map((c) => String(c.id)),
    write: typeof cal.write_calendar === "string" ? cal.write_calendar : "",
    capacity: capacity === undefined ? "me" : "units",
    units: capacity === undefined ? DEFAULT_VALUES.units : text(capacity.units),
    resourceType: capacity === undefined ? DEFAULT_VALUES.resourceType : text(capacity.resource_type),
    services,
    hours,
    approverEmail: typeof approver.email === "string" ? approver.email : "",
    approverPhone: typeof approver.phone === "string" ? approver.phone : "",
    location: typeof settings.locationId === "string" ? settings.locationId : "",
    /** Everything not marked unselectable; the page intersects this with Square's current list. */
    offer: [...hidden].map((id) => `!${id}`),
    payment: typeof settings.paymentRequirement === "string" ? settings.paymentRequirement : "",
    version: typeof settings.version === "string" ? settings.version : SQUARE_DEFAULT_VERSION,
    confirmation: typeof policies.confirmation === "string" ? policies.confirmation : "host_approval",
    retention: retention ?? DEFAULT_VALUES.retention,
    access: typeof policies.access === "string" ? policies.access : "public",
    contacts: Array.isArray(policies.contacts) ? policies.contacts.join("\n") : "",
    owner: typeof config.owner === "string" ? config.owner : "",
    holdTtl: minutes(holds.max_ttl) || DEFAULT_VALUES.holdTtl,
    holdsPerAgent:
      typeof holds.max_active_per_agent === "number"
        ? String(holds.max_active_per_agent)
        : DEFAULT_VALUES.holdsPerAgent,
  };
}

/** Which Square services the form shows checked: every offered one but those the entry hides. */
export function offeredChecked(v: SetupValues, choices: HostChoices | undefined): readonly string[] {
  if (choices?.kind !== "square") return v.offer;
  if (!v.offer.some((o) => o.startsWith("!")))
    return v.offer.length > 0 ? v.offer : choices.services.map((s) => s.id);
  const hidden = new Set(v.offer.map((o) => o.slice(1)));
  return choices.services.map((s) => s.id).filter((id) => !hidden.has(id));
}
