/**
 * Time zones a calendar names (TZID), as frames that map floating wall-clock ms to instants.
 *
 * A TZID is read, in this order:
 * 1. an IANA name (also case-insensitively): IANA rules, even when the file carries a VTIMEZONE
 *    of that name, because exported VTIMEZONEs are often truncated to a few years
 *    (fixtures/recurrence R18) or carry only today's rule (Outlook's DTSTART:16010101);
 * 2. a Windows name ("Pacific Standard Time", Outlook and Exchange): its IANA zone (windows-iana,
 *    CLDR's mapping, first = the "001" territory zone);
 * 3. a path ending in an IANA name ("/mozilla.org/20050126_1/Europe/Berlin"): that name;
 * 4. a VTIMEZONE of that TZID in the same file ("Customized Time Zone"): its own rules, through
 *    ical.js's Timezone;
 * 5. anything else: unknown, read in the floating zone (the host's zone, the best guess for a
 *    host's own calendar) and reported to the caller in `unknownZones`.
 * Local times in a DST gap move forward by the gap and those in an overlap take the earlier
 * instant (RFC 5545 §3.3.5, Temporal's "compatible"), through src/protocol/time.
 */
import ICAL from "ical.js";
import { Temporal } from "temporal-polyfill";
import { findIana } from "windows-iana";
import { offsetMinutesAt, wallClockToInstant, type WallClock } from "../../protocol/time/index.js";

const DAY = 86_400_000;

export interface Zone {
  readonly id: string;
  /** The instant (epoch ms) of a floating wall clock (Date.UTC of it). */
  toInstant(local: number): number;
  /** The floating wall clock (Date.UTC of it) at an instant. */
  toLocal(instant: number): number;
}

const wall = (local: number): WallClock => {
  const d = new Date(local);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
};
const ianaZones = new Map<string, Zone>();

export function ianaZone(id: string): Zone {
  const known = ianaZones.get(id);
  if (known !== undefined) return known;
  const zone: Zone = {
    id,
    toInstant(local) {
      // Away from a transition (the offset a day before equals the one a day after) the
      // instant is plain arithmetic; near one, Temporal decides (gaps forward, overlaps earlier).
      const before = offsetMinutesAt(local - DAY, id);
      if (before === offsetMinutesAt(local + DAY, id)) return local - before * 60_000;
      const r = wallClockToInstant(wall(local), id, "compatible");
      if (!r.ok) throw new RangeError(`cannot place ${new Date(local).toISOString()} in ${id}`);
      return r.value;
    },
    toLocal: (instant) => instant + offsetMinutesAt(instant, id) * 60_000,
  };
  if (ianaZones.size < 1_000) ianaZones.set(id, zone);
  return zone;
}

export const UTC: Zone = { id: "UTC", toInstant: (l) => l, toLocal: (i) => i };

export function fixedOffsetZone(minutes: number): Zone {
  const ms = minutes * 60_000;
  return {
    id: `UTC${minutes >= 0 ? "+" : "-"}${Math.abs(minutes)}m`,
    toInstant: (l) => l - ms,
    toLocal: (i) => i + ms,
  };
}

/** The canonical IANA id of a name Temporal knows (any case), else undefined. */
export function canonicalIana(name: string): string | undefined {
  if (name === "" || /^[+-]/.test(name)) return undefined;
  try {
    return new Temporal.ZonedDateTime(0n, name).timeZoneId;
  } catch {
    return undefined;
  }
}

function windowsToIana(name: string): string | undefined {
  try {
    const found = findIana(name);
    return found.map((z) => canonicalIana(z)).find((z) => z !== undefined);
  } catch {
    return undefined;
  }
}

function suffixIana(name: string): string | undefined {
  const parts = name.split("/").filter((p) => p !== "");
  for (let i = 1; i < parts.length - 1; i++) {
    const z = canonicalIana(parts.slice(i).join("/"));
    if (z !== undefined) return z;
  }
  return undefined;
}

function vtimezoneZone(id: string, component: ICAL.Component): Zone {
  const tz = new ICAL.Timezone({ component, tzid: id });
  return {
    id,
    toInstant(local) {
      const w = wall(local);
      const t = ICAL.Time.fromData(
        {
          year: w.year,
          month: w.month,
          day: w.day,
          hour: w.hour,
          minute: w.minute,
          second: w.second,
          isDate: false,
        },
        tz,
      );
      return t.toUnixTime() * 1000 + w.millisecond;
    },
    toLocal(instant) {
      const z = utcTime(instant).convertToZone(tz);
      return (
        Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second) + (((instant % 1000) + 1000) % 1000)
      );
    },
  };
}

function utcTime(instant: number): ICAL.Time {
  const d = new Date(Math.floor(instant / 1000) * 1000);
  return ICAL.Time.fromData(
    {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      isDate: false,
    },
    ICAL.Timezone.utcTimezone,
  );
}

/** Resolves TZIDs for one calendar (its VTIMEZONEs) with the caller's floating zone as fallback. */
export class ZoneResolver {
  private readonly cache = new Map<string, Zone>();
  readonly unknown = new Set<string>();

  constructor(
    readonly floating: Zone,
    private readonly vtimezones: ReadonlyMap<string, ICAL.Component> = new Map(),
  ) {}

  resolve(tzid: string): Zone {
    const known = this.cache.get(tzid);
    if (known !== undefined) return known;
    const name = tzid.trim().replace(/^"|"$/g, "");
    const iana = canonicalIana(name) ?? windowsToIana(name) ?? suffixIana(name);
    let zone: Zone;
    if (iana !== undefined) zone = iana === "UTC" ? UTC : ianaZone(iana);
    else {
      const vtz = this.vtimezones.get(name);
      if (vtz !== undefined) zone = vtimezoneZone(name, vtz);
      else {
        this.unknown.add(name);
        zone = this.floating;
      }
    }
    this.cache.set(tzid, zone);
    return zone;
  }
}
