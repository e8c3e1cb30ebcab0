/**
 * iCalendar text (RFC 5545) → the engine's model (model.ts), pure.
 *
 * ical.js does the text: escaping, parameters and value types (its parser is the one
 * Thunderbird uses and is lenient with real exports). We read its jCal (RFC 7265) arrays,
 * where every value keeps its written form, and resolve time zones ourselves (zones.ts).
 *
 * What cannot be read costs only itself, never the calendar, and makes the answer incomplete
 * (each is reported through `warn`): a UTF-8 byte-order mark is dropped; a line that is not a
 * content line (no ":", as Apple's "X-APPLE-RADIUS=…") is skipped; when ical.js still refuses
 * the text, each VEVENT is read on its own and the ones it refuses are skipped; a VEVENT
 * without DTSTART or with an unreadable value (DTSTART, DTEND, DURATION, RDATE, EXDATE,
 * RECURRENCE-ID) is skipped. Only VEVENTs are read.
 */
import ICAL from "ical.js";
import { parseDuration, type Component, type EventStatus, type RDateValue, type TimeValue } from "./model.js";
import { UTC, ZoneResolver, type Zone } from "./zones.js";
import { contentLinesOf } from "../../protocol/ical/content-lines.js";
import type { Logger } from "../../protocol/logger.js";

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];

/** How the reader reports what it skipped: the warn of the gateway's Logger (src/protocol/logger.ts). */
export type Warn = Logger["warn"];

export interface ParsedCalendar {
  readonly components: Component[];
  /** False when a line or a VEVENT could not be read. */
  readonly complete: boolean;
  readonly resolver: ZoneResolver;
}

/** At most this much of a skipped line goes into a log entry. */
const SNIPPET = 80;
const snippet = (line: string): string => (line.length > SNIPPET ? `${line.slice(0, SNIPPET)}…` : line);

/** Throws TypeError when `text` is not iCalendar. */
export function parseIcs(text: string, floating: Zone, warn: Warn = () => {}): ParsedCalendar {
  if (typeof text !== "string") throw new TypeError("not iCalendar: the text is not a string");
  // A UTF-8 byte-order mark (Windows tools write one) is not part of the content.
  const body = text.replace(/^\uFEFF/, "");
  if (!/^\s*BEGIN:VCALENDAR/i.test(body))
    throw new TypeError("not iCalendar: the text does not start with BEGIN:VCALENDAR");
  const lines = contentLines(body, warn);
  let complete = lines.complete;
  let roots: unknown[];
  try {
    roots = rootsOf(ICAL.parse(lines.text));
  } catch (e) {
    // ical.js refuses the text as a whole: read each VEVENT on its own, with the VTIMEZONEs.
    warn("calendar: the text cannot be read as a whole; reading each event on its own", {
      error: e instanceof Error ? e.message : String(e),
    });
    const pieces = componentsOf(lines.lines);
    if (pieces === undefined)
      throw new TypeError(`not iCalendar: ${e instanceof Error ? e.message : String(e)}`);
    roots = [];
    for (const piece of pieces) {
      try {
        roots.push(...rootsOf(ICAL.parse(["BEGIN:VCALENDAR", ...piece.lines, "END:VCALENDAR"].join("\r\n"))));
      } catch (err) {
        complete = false;
        warn("calendar: a component cannot be read; it is skipped", {
          line: piece.at,
          component: piece.name,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
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
  for (const cal of calendars)
    for (const ev of cal.getAllSubcomponents("vevent")) {
      const c = readEvent(ev, resolver);
      if (typeof c === "string") {
        complete = false;
        warn("calendar: an event cannot be read; it is skipped", {
          uid: String(ev.getFirstPropertyValue("uid") ?? ""),
          reason: c,
        });
      } else components.push(c);
    }
  return { components, complete, resolver };
}

const rootsOf = (parsed: unknown): unknown[] =>
  Array.isArray(parsed) && typeof parsed[0] === "string" ? [parsed] : (parsed as unknown[]);

/**
 * The text unfolded (RFC 5545 §3.1: a line break followed by one space or tab continues the
 * line; bare LF is accepted as well) before anything reads it line by line, so a break anywhere
 * (even inside a name: Mozilla and KOrganizer write "RRULE" CRLF SP ":FREQ=…") changes nothing.
 * Lines that are not content lines are dropped and reported. Inside VEVENTs, RRULE and EXRULE
 * are renamed: ical.js parses RRULE values while it reads the text and throws for the whole
 * calendar on one it does not accept ("FREQ=weekly", an X- part), so an RRULE reaches us as
 * written and rrule.ts judges it, for its event alone (VTIMEZONE rules stay: ical.js needs them).
 */
function contentLines(text: string, warn: Warn): { text: string; lines: string[]; complete: boolean } {
  const read = contentLinesOf(text, Number.POSITIVE_INFINITY);
  for (const skipped of read.skipped)
    warn("calendar: a line is not an iCalendar content line; it is skipped", {
      line: skipped.line,
      text: skipped.text,
    });
  const lines: string[] = [];
  let inEvent = false;
  for (const line of read.lines) {
    if (/^BEGIN:VEVENT\s*$/i.test(line)) inEvent = true;
    else if (/^END:VEVENT\s*$/i.test(line)) inEvent = false;
    lines.push(inEvent ? line.replace(/^(RRULE|EXRULE)(?=[;:])/i, "X-GATEWAY-$1") : line);
  }
  return { text: lines.join("\r\n"), lines, complete: read.skippedCount === 0 };
}

/**
 * The VTIMEZONE and VEVENT blocks of a calendar's lines, each with its first line number, for
 * reading one at a time; undefined when the text has no VCALENDAR to take them from.
 */
function componentsOf(lines: readonly string[]): { name: string; at: number; lines: string[] }[] | undefined {
  if (!lines.some((l) => /^BEGIN:VCALENDAR\s*$/i.test(l))) return undefined;
  const out: { name: string; at: number; lines: string[] }[] = [];
  let current: { name: string; at: number; lines: string[] } | undefined;
  let depth = 0;
  for (const [i, line] of lines.entries()) {
    const begin = /^BEGIN:(\S+)\s*$/i.exec(line)?.[1]?.toUpperCase();
    const end = /^END:(\S+)\s*$/i.exec(line)?.[1]?.toUpperCase();
    if (current === undefined) {
      if (begin === "VEVENT" || begin === "VTIMEZONE") {
        current = { name: begin, at: i + 1, lines: [line] };
        depth = 1;
      }
      continue;
    }
    current.lines.push(line);
    if (begin !== undefined) depth++;
    else if (end !== undefined && --depth === 0) {
      out.push(current);
      current = undefined;
    }
  }
  // An unterminated last block is kept: ical.js refuses it and it is reported like any other.
  if (current !== undefined) out.push(current);
  return out;
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

/** The event, or why it cannot be read. */
function readEvent(ev: ICAL.Component, resolver: ZoneResolver): Component | string {
  try {
    const one = (name: string): JCalProperty | undefined => props(ev, name)[0];
    const dtstart = one("dtstart");
    if (dtstart === undefined) return "no DTSTART";
    const time = (p: JCalProperty): TimeValue => timeOf(p[2], p[3], p[1], resolver);
    const start = time(dtstart);
    const dtend = one("dtend");
    const written = one("duration")?.[3];
    const durationText = written === undefined ? undefined : JSON.stringify(written).replace(/^"|"$/g, "");
    // DTEND wins over a (forbidden) DURATION next to it (fixtures/recurrence R03).
    const duration =
      dtend === undefined && durationText !== undefined ? parseDuration(durationText) : undefined;
    if (dtend === undefined && durationText !== undefined && duration === undefined)
      return `DURATION ${snippet(durationText)} is not a duration we can read`;
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
    const sequence = Number(one("sequence")?.[3]);
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
      ...(Number.isSafeInteger(sequence) && { sequence }),
    };
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
