/**
 * A calendar host's `calendar` section: what a calendar cannot say about the
 * business — its capacity, working hours, services, which calendars count and who approves —
 * read into the pieces the sync job and the calendar host connector need. Errors name the
 * field as a JSON pointer into the config file, like every other config error.
 *
 *   "calendar": {
 *     "capacity": { "resource_type": "chair", "units": 2 },          // or "me" (one person)
 *     "hours": [{ "day": 1, "open": "09:00", "close": "17:00" }],
 *     "services": [{ "id": "cut", "name": "Haircut", "duration": "PT45M",
 *                    "buffer_after": "PT15M", "price": { "amount": "25.00", "currency": "EUR" } }],
 *     "granularity": "PT15M",
 *     "calendars": [{ "id": "<calendar id or URL>", "resource": "chair-1" }],   // optional
 *     "write_calendar": "<calendar id>",                                       // optional
 *     "approver": { "email": "ana@example.com", "phone": "+34600000000" },
 *     "sync_every": "PT5M",
 *     "push_url": "https://gateway.example"                                   // optional
 *   }
 *
 * `push_url` is the gateway's public HTTPS base URL as Google or Graph reach it: with it, a
 * Google/Microsoft host is also synced when its calendar says it changed (a watch channel or
 * subscription posting to <push_url>/push/<vendor>/<hostId>, src/jobs/calendar-push); without
 * it, push is off and the periodic sync alone keeps the copy current.
 *
 * Walk-ins exist only once written down: a calendar host's capacity is free unless its
 * calendar says otherwise, so a walk-in must be entered in the calendar to block time.
 */
import { parseWorkingHours, type WeeklyHours } from "../../calendar/index.js";
import type { CatalogService } from "../../connectors/port.js";
import { parseSchcpMoney } from "../../protocol/money/index.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { didYouMean } from "../../protocol/nearest-name.js";
import { parseSchcpDuration } from "../../protocol/time/index.js";
import { unitsFor, type CalendarUnits } from "./units.js";

export interface CalendarSection {
  readonly units: CalendarUnits;
  readonly hours: WeeklyHours;
  readonly services: readonly CatalogService[];
  readonly granularityMs: number;
  /** Absent: the connector's own calendar. */
  readonly calendars?: ReadonlyArray<{ readonly calendarId: string; readonly resourceId?: string }>;
  readonly writeCalendar?: string;
  readonly approver: { readonly email?: string; readonly phone?: string };
  readonly syncEveryMs: number;
  /** The public HTTPS base URL push notifications reach (no trailing slash); absent: push off. */
  readonly pushUrl?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

class SectionError extends Error {
  constructor(readonly error: FieldError) {
    super(error.message);
  }
}
const fail = (code: string, field: string, why: string): never => {
  throw new SectionError(fieldError(code, field, `${field}: ${why}`));
};

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const KNOWN = new Set([
  "capacity",
  "hours",
  "services",
  "granularity",
  "calendars",
  "write_calendar",
  "approver",
  "sync_every",
  "push_url",
]);

function duration(v: unknown, field: string, positive = true): number {
  const r = parseSchcpDuration(v, field);
  if (!r.ok) return fail(r.error.code, field, r.error.message.replace(`${field}: `, ""));
  if (positive && r.value <= 0) return fail("invalid_duration", field, "must be longer than zero");
  return r.value;
}

/** `at` is the section's pointer, e.g. "/hosts/2/calendar". */
export function parseCalendarSection(value: unknown, at: string): Result<CalendarSection, FieldError> {
  try {
    return ok(read(value, at));
  } catch (e) {
    if (e instanceof SectionError) return err(e.error);
    throw e;
  }
}

function read(value: unknown, at: string): CalendarSection {
  if (!isObject(value))
    return fail("invalid_type", at, "a calendar host needs a calendar section (an object)");
  for (const k of Object.keys(value))
    if (!KNOWN.has(k))
      fail("unknown_field", `${at}/${k}`, `is not a calendar setting${didYouMean(k, KNOWN)}`);
  const units = readCapacity(value.capacity, `${at}/capacity`);
  const hoursRead = parseWorkingHours(value.hours, `${at}/hours`);
  if (!hoursRead.ok)
    fail(hoursRead.error.code, hoursRead.error.field || `${at}/hours`, hoursRead.error.message);
  const hours = (hoursRead as { value: WeeklyHours }).value;
  if (hours.length === 0) fail("invalid_value", `${at}/hours`, "a calendar host needs working hours");
  const services = readServices(value.services, `${at}/services`, units.resourceType);
  const calendars =
    value.calendars === undefined ? undefined : readCalendars(value.calendars, `${at}/calendars`, units);
  const write = value.write_calendar;
  if (write !== undefined && (typeof write !== "string" || write.length === 0)) {
    fail("invalid_type", `${at}/write_calendar`, "must be a calendar id");
  }
  if (calendars !== undefined && write !== undefined && !calendars.some((c) => c.calendarId === write)) {
    fail("unknown_calendar", `${at}/write_calendar`, "must be one of the calendars listed in calendars");
  }
  return {
    units,
    hours,
    services,
    granularityMs:
      value.granularity === undefined ? 15 * 60_000 : duration(value.granularity, `${at}/granularity`),
    ...(calendars !== undefined && { calendars }),
    ...(typeof write === "string" && { writeCalendar: write }),
    approver: readApprover(value.approver, `${at}/approver`),
    syncEveryMs: value.sync_every === undefined ? 5 * 60_000 : duration(value.sync_every, `${at}/sync_every`),
    ...(value.push_url !== undefined && { pushUrl: readPushUrl(value.push_url, `${at}/push_url`) }),
  };
}

/** Google and Graph post only to HTTPS; a query or fragment would be lost on the receiver's path. */
function readPushUrl(v: unknown, at: string): string {
  let url: URL | undefined;
  try {
    url = typeof v === "string" ? new URL(v) : undefined;
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    url.protocol !== "https:" ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== "" ||
    url.password !== ""
  )
    return fail(
      "invalid_value",
      at,
      "must be an https URL without query or fragment, such as https://gateway.example",
    );
  return url.href.replace(/\/+$/, "");
}

function readCapacity(v: unknown, at: string): CalendarUnits {
  if (v === undefined || v === "me") return unitsFor({ resourceType: "person", units: 1 });
  if (!isObject(v)) return fail("invalid_type", at, 'must be "me" or { "resource_type", "units" }');
  const type = v.resource_type;
  const n = v.units;
  if (typeof type !== "string" || !/^[a-z][a-z0-9_]{0,31}$/.test(type)) {
    fail("invalid_value", `${at}/resource_type`, "must be a lowercase resource type such as chair or bay");
  }
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 100) {
    fail("invalid_value", `${at}/units`, "must be a whole number from 1 to 100");
  }
  return unitsFor({ resourceType: type as string, units: n as number });
}

function readServices(v: unknown, at: string, resourceType: string): CatalogService[] {
  if (!Array.isArray(v) || v.length === 0)
    return fail("invalid_value", at, "a calendar host needs at least one service");
  const seen = new Set<string>();
  return v.map((s: unknown, i) => {
    const f = `${at}/${i}`;
    if (!isObject(s)) return fail("invalid_type", f, "must be an object");
    if (typeof s.id !== "string" || !ID.test(s.id))
      return fail("invalid_value", `${f}/id`, "must be a short id");
    if (seen.has(s.id)) fail("duplicate_id", `${f}/id`, `service id "${s.id}" is used twice`);
    seen.add(s.id);
    if (typeof s.name !== "string" || s.name.length === 0)
      fail("invalid_value", `${f}/name`, "must be a name");
    const price = s.price === undefined ? undefined : parseSchcpMoney(s.price, `${f}/price`);
    if (price !== undefined && !price.ok)
      fail(price.error.code, price.error.field || `${f}/price`, price.error.message);
    return {
      id: s.id,
      name: s.name as string,
      duration: duration(s.duration, `${f}/duration`),
      bufferAfterMs: s.buffer_after === undefined ? 0 : duration(s.buffer_after, `${f}/buffer_after`, false),
      ...(price !== undefined && price.ok && { price: price.value }),
      requires: [{ resourceType }],
      payment: { requirement: "none" as const },
    };
  });
}

function readCalendars(v: unknown, at: string, units: CalendarUnits) {
  if (!Array.isArray(v) || v.length === 0)
    return fail("invalid_value", at, "must list at least one calendar");
  return v.map((c: unknown, i) => {
    const f = `${at}/${i}`;
    if (!isObject(c) || typeof c.id !== "string" || c.id.length === 0)
      return fail("invalid_value", `${f}/id`, "must be a calendar id");
    if (c.resource !== undefined && (typeof c.resource !== "string" || !units.ids.includes(c.resource))) {
      fail("unknown_resource", `${f}/resource`, `must be one of ${units.ids.join(", ")}`);
    }
    return { calendarId: c.id, ...(typeof c.resource === "string" && { resourceId: c.resource }) };
  });
}

function readApprover(v: unknown, at: string): { email?: string; phone?: string } {
  if (!isObject(v))
    return fail("invalid_value", at, "a calendar host approves bookings: give an email or phone");
  const email = v.email;
  const phone = v.phone;
  if (email !== undefined && (typeof email !== "string" || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))) {
    fail("invalid_value", `${at}/email`, "must be an e-mail address");
  }
  if (phone !== undefined && (typeof phone !== "string" || !/^\+[1-9][0-9]{6,14}$/.test(phone))) {
    fail("invalid_value", `${at}/phone`, "must be an E.164 number such as +34600000000");
  }
  if (email === undefined && phone === undefined) fail("invalid_value", at, "give an email or a phone");
  return {
    ...(typeof email === "string" && { email }),
    ...(typeof phone === "string" && { phone }),
  };
}
