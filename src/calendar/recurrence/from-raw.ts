/**
 * A connector's RawCalendarEvent (raw-event.ts) → the engine's model (model.ts), pure.
 *
 * Times: `{ date }` is all-day; `{ dateTime }` ending in Z or an offset is that instant (read in
 * UTC or that fixed offset); `{ dateTime, zone }` is a wall clock in the zone (IANA, Windows,
 * else the floating zone: zones.ts); `{ dateTime }` alone floats. RDATE/EXDATE strings are read
 * in the start's form and zone unless they carry Z, an offset or (as whole content lines) a
 * TZID; an RDATE "start/end" or "start/duration" is a PERIOD. A value that cannot be read throws TypeError naming it.
 */
import type { EventTime, RawCalendarEvent } from "../raw-event.js";
import { parseDuration, parseTime, type Component, type RDateValue, type TimeValue } from "./model.js";
import { fixedOffsetZone, UTC, type Zone, type ZoneResolver } from "./zones.js";

function valueOf(text: string, form: { date: boolean; zone: Zone }, what: string): TimeValue {
  const t = parseTime(text);
  if (t === undefined) throw new TypeError(`${what}: ${JSON.stringify(text)} is not a date or date-time`);
  if (t.date) return { date: true, local: t.local };
  if (t.offsetMinutes !== undefined)
    return {
      date: false,
      local: t.local,
      zone: t.offsetMinutes === 0 ? UTC : fixedOffsetZone(t.offsetMinutes),
    };
  return { date: false, local: t.local, zone: form.zone };
}

function eventTime(e: EventTime, resolver: ZoneResolver, what: string): TimeValue {
  if ("date" in e) {
    const t = parseTime(e.date);
    if (t === undefined || !t.date)
      throw new TypeError(`${what}.date: ${JSON.stringify(e.date)} is not YYYY-MM-DD`);
    return { date: true, local: t.local };
  }
  const zone = e.zone === undefined || e.zone === "" ? resolver.floating : resolver.resolve(e.zone);
  const v = valueOf(e.dateTime, { date: false, zone }, `${what}.dateTime`);
  if (v.date) throw new TypeError(`${what}.dateTime: ${JSON.stringify(e.dateTime)} has no time`);
  return v;
}

/**
 * RDATE/EXDATE entries: values ("20260310T090000", "a,b"), or whole content lines as Google's
 * `recurrence` array holds them ("EXDATE;TZID=America/New_York:20260310T090000,…"), whose TZID
 * then applies to their values.
 */
function values(
  list: readonly string[] | undefined,
  form: { date: boolean; zone: Zone },
  resolver: ZoneResolver,
): { text: string; form: { date: boolean; zone: Zone } }[] {
  return (list ?? []).flatMap((entry) => {
    const line = /^(?:RDATE|EXDATE)((?:;[^:;]+)*):(.*)$/i.exec(entry.trim());
    const tzid = line === null ? undefined : /;TZID=("?)([^;"]+)\1/i.exec(line[1]!)?.[2];
    const own = tzid === undefined ? form : { date: form.date, zone: resolver.resolve(tzid) };
    return (line === null ? entry : line[2]!)
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
      .map((text) => ({ text, form: own }));
  });
}

export function fromRaw(e: RawCalendarEvent, resolver: ZoneResolver): Component {
  const what = `event ${JSON.stringify(e.eventId)}`;
  const start = eventTime(e.start, resolver, `${what} start`);
  const form = { date: start.date, zone: start.date ? resolver.floating : start.zone };
  const duration = e.end === undefined && e.duration !== undefined ? parseDuration(e.duration) : undefined;
  if (e.end === undefined && e.duration !== undefined && duration === undefined)
    throw new TypeError(`${what} duration: ${JSON.stringify(e.duration)} is not an RFC 5545 duration`);
  const rdates = values(e.rdate, form, resolver).map(({ text, form }): RDateValue => {
    const slash = text.indexOf("/");
    if (slash < 0) return { start: valueOf(text, form, `${what} rdate`) };
    const s = valueOf(text.slice(0, slash), form, `${what} rdate`);
    const rest = text.slice(slash + 1);
    const d = parseDuration(rest);
    return d !== undefined
      ? { start: s, duration: d }
      : { start: s, end: valueOf(rest, form, `${what} rdate`) };
  });
  return {
    uid: e.uid,
    eventId: e.eventId,
    start,
    ...(e.end !== undefined && { end: eventTime(e.end, resolver, `${what} end`) }),
    ...(duration !== undefined && { duration }),
    rrules: e.rrule === undefined || e.rrule.trim() === "" ? [] : [e.rrule.trim().replace(/^RRULE:/i, "")],
    rdates,
    exdates: values(e.exdate, form, resolver).map((v) => valueOf(v.text, v.form, `${what} exdate`)),
    ...(e.recurrenceId !== undefined && {
      recurrenceId: eventTime(e.recurrenceId, resolver, `${what} recurrenceId`),
    }),
    thisAndFuture: e.thisAndFuture === true,
    status: e.status === "tentative" ? "TENTATIVE" : e.status === "cancelled" ? "CANCELLED" : "CONFIRMED",
    transparent: e.transparency === "transparent",
    ...(Number.isSafeInteger(e.sequence) && { sequence: e.sequence }),
  };
}
