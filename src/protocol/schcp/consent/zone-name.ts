/**
 * The time-zone words of consent text: "Pacific time", "Eastern time", or "UTC−04:00".
 *
 * The name comes from ICU's generic long name ("Pacific Time") because it does not
 * change with daylight saving time, so a slot in October and one in January read alike.
 * Intl is pinned to "en-US" and given the zone explicitly, so neither the machine's
 * locale nor its TZ changes the text (SchCP §5.3: consent text is deterministic).
 */
import type { Temporal } from "temporal-polyfill";

const MINUS = "\u2212"; // a real minus sign, as typeset offsets use

/**
 * "UTC−04:00" for an offset in nanoseconds; "UTC" for zero. Offsets with seconds
 * (historic LMT only) keep them so the label is never wrong.
 */
export function utcOffsetLabel(offsetNs: number): string {
  if (offsetNs === 0) return "UTC";
  const total = Math.abs(offsetNs) / 1e9;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const hhmm = `${pad2(h)}:${pad2(m)}${s === 0 ? "" : `:${pad2(s)}`}`;
  return `UTC${offsetNs < 0 ? MINUS : "+"}${hhmm}`;
}

/**
 * The words for `zone` at `instant`. A named zone with an ICU generic name gets it
 * in lower-case "time" ("Pacific time", "India standard time"); a zone ICU can only
 * describe as "GMT-04:00" (Etc/GMT+4, UTC, a bare offset) gets the UTC offset.
 */
export function zoneWords(instant: Temporal.Instant, zone: string): string {
  const zoned = instant.toZonedDateTimeISO(zone);
  const generic = genericName(instant, zone);
  if (generic === null) return utcOffsetLabel(zoned.offsetNanoseconds);
  return generic.replace(/ Standard Time$/, " standard time").replace(/ Time$/, " time");
}

function genericName(instant: Temporal.Instant, zone: string): string | null {
  // A bare offset zone ("-07:00") has no name; Intl would only echo the offset.
  if (/^[+-]/.test(zone)) return null;
  // Asked at local noon of the same day: inside a repeated hour ICU swaps the generic name for
  // a location form ("Pacific Time (Canada)"), and the name of the day is what we want anyway.
  const noon = instant.toZonedDateTimeISO(zone).with({ hour: 12, minute: 0, second: 0, millisecond: 0 });
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    timeZoneName: "longGeneric",
  }).formatToParts(new Date(noon.epochMilliseconds));
  const name = parts.find((p) => p.type === "timeZoneName")?.value;
  if (name === undefined || name.startsWith("GMT") || !name.endsWith(" Time")) return null;
  return name;
}

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}
