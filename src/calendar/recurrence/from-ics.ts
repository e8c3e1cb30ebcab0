/**
 * iCalendar text (RFC 5545) → the engine's model (model.ts), pure.
 *
 * ical.js does the text: line unfolding, escaping, parameters and value types (its parser is
 * the one Thunderbird uses and is lenient with real exports). We read its jCal (RFC 7265)
 * arrays, where every value keeps its written form, and resolve time zones ourselves
 * (zones.ts). Only VEVENTs are read; a VEVENT without DTSTART or with an unreadable one is
 * skipped and makes the answer incomplete.
 */
import ICAL from "ical.js";
import { parseDuration, type Component, type EventStatus, type RDateValue, type TimeValue } from "./model.js";
import { UTC, ZoneResolver, type Zone } from "./zones.js";

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];

export interface ParsedCalendar {
  readonly components: Component[];
  /** False when a VEVENT could not be read. */
  readonly complete: boolean;
  readonly resolver: ZoneResolver;
}

/** Throws TypeError when `text` is not iCalendar. */
export function parseIcs(text: string, floating: Zone): ParsedCalendar {
  if (typeof text !== "string" || !/^\s*BEGIN:VCALENDAR/i.test(text))
    throw new TypeError("not iCalendar: the text does not start with BEGIN:VCALENDAR");
  let parsed: unknown;
  try {
    parsed = ICAL.parse(rawRules(text));
  } catch (e) {
    throw new TypeError(`not iCalendar: ${e instanceof Error ? e.message : String(e)}`);
  }
  const roots = Array.isArray(parsed) && typeof parsed[0] === "string" ? [parsed] : (parsed as unknown[]);
  const calendars = roots
    .map((r) => new ICAL.Component(r as unknown[]))
    .filter((c) => c.name === "vcalendar");
  if (calendars.length === 0) throw new TypeError("not iCalendar: no VCALENDAR component");

  const vtimezones = new Map<string, ICAL.Component>();
  for (const cal of calendars)
    for (const tz of cal.getAllSubcomponents("vtimezone")) {
      const id = tz.getFirstPropertyValue("tzid");
      if (typeof id === "string") vtimezones.set(id, tz);
    }
  const resolver = new ZoneResolver(floating, vtimezones);
  const components: Component[] = [];
  let complete = true;
  for (const cal of calendars)
    for (const ev of cal.getAllSubcomponents("vevent")) {
      const c = readEvent(ev, resolver);
      if (c === undefined) complete = false;
      else components.push(c);
    }
  return { components, complete, resolver };
}

/**
 * ical.js parses RRULE values while it reads the text and throws for the whole calendar on
 * one it does not accept ("FREQ=weekly", an X- part). Renamed inside VEVENTs (never inside
 * VTIMEZONEs, whose rules ical.js needs), an RRULE reaches us as written and rrule.ts judges
 * it, for its event alone. EXRULE (deprecated, not expanded) is renamed for the same reason.
 */
function rawRules(text: string): string {
  let inEvent = false;
  return text
    .split(/(?<=\n)/)
    .map((line) => {
      if (/^BEGIN:VEVENT\s*$/i.test(line)) inEvent = true;
      else if (/^END:VEVENT\s*$/i.test(line)) inEvent = false;
      return inEvent ? line.replace(/^(RRULE|EXRULE)(?=[;:])/i, "X-GATEWAY-$1") : line;
    })
    .join("");
}

const props = (ev: ICAL.Component, name: string): JCalProperty[] =>
  ev.getAllProperties(name).map((p) => p.toJSON() as JCalProperty);

function timeOf(
  type: string,
  value: unknown,
  params: Record<string, unknown>,
  resolver: ZoneResolver,
): TimeValue {
  if (typeof value !== "string") throw new TypeError(`not a ${type} value: ${JSON.stringify(value)}`);
  // A DATE written without VALUE=DATE ("DTSTART:20180110") reaches us from ical.js as
  // "2018-01-10T::": read it as the date it is.
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z)?|T::)?$/.exec(value);
  if (m === null) throw new TypeError(`not a date or date-time: ${value}`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const local = Date.UTC(y, mo - 1, d, h, mi, s);
  if (m[4] === undefined) return { date: true, local };
  const tzid = params["tzid"];
  const zone = m[7] === "Z" ? UTC : typeof tzid === "string" ? resolver.resolve(tzid) : resolver.floating;
  return { date: false, local, zone };
}

function readEvent(ev: ICAL.Component, resolver: ZoneResolver): Component | undefined {
  try {
    const one = (name: string): JCalProperty | undefined => props(ev, name)[0];
    const dtstart = one("dtstart");
    if (dtstart === undefined) return undefined;
    const time = (p: JCalProperty): TimeValue => timeOf(p[2], p[3], p[1], resolver);
    const start = time(dtstart);
    const dtend = one("dtend");
    const durationText = one("duration")?.[3];
    // DTEND wins over a (forbidden) DURATION next to it (fixtures/recurrence R03).
    const duration =
      dtend === undefined && typeof durationText === "string" ? parseDuration(durationText) : undefined;
    const rid = one("recurrence-id");
    const rdates: RDateValue[] = props(ev, "rdate").flatMap((p) =>
      p.slice(3).map((v): RDateValue => {
        if (p[2] !== "period") return { start: timeOf(p[2], v, p[1], resolver) };
        const [s, e] = v as [string, string];
        const startValue = timeOf("date-time", s, p[1], resolver);
        const d = parseDuration(e);
        return d !== undefined
          ? { start: startValue, duration: d }
          : { start: startValue, end: timeOf("date-time", e, p[1], resolver) };
      }),
    );
    const exdates = props(ev, "exdate").flatMap((p) =>
      p.slice(3).map((v) => timeOf(p[2], v, p[1], resolver)),
    );
    const rrules = props(ev, "x-gateway-rrule").map((p) => String(p[3]));
    const status = String(ev.getFirstPropertyValue("status") ?? "").toUpperCase();
    const uid = ev.getFirstPropertyValue("uid");
    return {
      uid: typeof uid === "string" ? uid : "",
      eventId: typeof uid === "string" ? uid : "",
      start,
      ...(dtend !== undefined && { end: time(dtend) }),
      ...(duration !== undefined && { duration }),
      rrules,
      rdates,
      exdates,
      ...(rid !== undefined && { recurrenceId: time(rid) }),
      thisAndFuture: rid !== undefined && String(rid[1]["range"]).toUpperCase() === "THISANDFUTURE",
      status: (["TENTATIVE", "CONFIRMED", "CANCELLED"].includes(status) ? status : null) as EventStatus,
      transparent: String(ev.getFirstPropertyValue("transp") ?? "").toUpperCase() === "TRANSPARENT",
    };
  } catch {
    return undefined;
  }
}
