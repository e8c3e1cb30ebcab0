/**
 * Times as a person reads them in a page or a message: the host's wall clock with its zone
 * named, "Sat, 5 Dec 2026, 07:52 (Europe/Madrid)", so a reader elsewhere (an approver
 * travelling, a phone set to another zone) is never left to guess whose 07:52 it is. The IANA
 * name rather than an abbreviation: ICU has none for many zones ("GMT-3" for Santiago), and an
 * abbreviation can name several zones.
 *
 * Intl with a pinned locale ("en-GB": weekday, day before month, 24-hour clock) and the zone
 * given explicitly, so neither the machine's locale nor its TZ changes the text.
 */

const formats = new Map<string, { readonly day: Intl.DateTimeFormat; readonly clock: Intl.DateTimeFormat }>();

function formatsFor(zone: string) {
  let f = formats.get(zone);
  if (f === undefined) {
    f = {
      day: new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        weekday: "short",
        day: "numeric",
        month: "short",
        year: "numeric",
      }),
      clock: new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }),
    };
    // A zone is a host's: few, and each formatter is reused for every time of that host.
    if (formats.size < 1_000) formats.set(zone, f);
  }
  return f;
}

const dayAndClock = (ms: number, zone: string): { day: string; clock: string } => {
  const f = formatsFor(zone);
  return { day: f.day.format(ms), clock: f.clock.format(ms) };
};

/** "Sat, 5 Dec 2026, 07:52 (Europe/Madrid)": an instant (epoch ms) on the zone's wall clock. */
export function readableTime(ms: number, zone: string): string {
  const { day, clock } = dayAndClock(ms, zone);
  return `${day}, ${clock} (${zone})`;
}

/**
 * "Mon, 7 Dec 2026, 10:00–10:45 (Europe/Madrid)": a span on the zone's wall clock, its end's
 * day repeated only when it falls on another day; a span without an end is its start.
 */
export function readableSpan(start: number, end: number | undefined, zone: string): string {
  if (end === undefined) return readableTime(start, zone);
  const from = dayAndClock(start, zone);
  const to = dayAndClock(end, zone);
  return from.day === to.day
    ? `${from.day}, ${from.clock}–${to.clock} (${zone})`
    : `${from.day}, ${from.clock} – ${to.day}, ${to.clock} (${zone})`;
}
