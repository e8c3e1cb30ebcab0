/**
 * One host's week, Monday to Sunday in the host's own zone: its bookings (confirmed, and those
 * waiting for the host's approval or the upstream's answer), the busy time its calendars show,
 * and its opening hours. Plain data laid out in local days and minutes; week-page.ts draws it.
 *
 * Bookings come from the operator list (the same use case as the operator API), filtered to the
 * week; busy time from the calendar sync's stored days (ConsoleDeps.calendarBusy), which leaves
 * out the events the gateway wrote itself, so a booking is not shown twice.
 */
import type { HostRuntime } from "../../booking/api.js";
import {
  addDays,
  instantToWallClock,
  isoWeekday,
  parseLocalDate,
  wallClockToInstant,
  type LocalDate,
} from "../../protocol/time/index.js";
import type { ConsoleAppDeps } from "./app-deps.js";
import { walkBookings } from "./operate-view.js";
import type { CalendarBusy } from "./kit.js";

const DAY_MS = 86_400_000;
/** Pages of the operator list read for one week (each one bounded read of the store). */
const WALK_PAGES = 5;
/** An open-ended booking is drawn this long. */
const OPEN_END_MS = 30 * 60_000;

export type WeekItemKind = "booking" | "pending" | "tentative" | "busy";

export interface WeekItem {
  readonly kind: WeekItemKind;
  /** Minutes after the local day's midnight, as its wall clock reads (0–1440). */
  readonly from: number;
  readonly to: number;
  /** "09:00–10:00", in the host's zone (a piece of a longer item says where it runs on). */
  readonly time: string;
  readonly title: string;
  readonly bookingId?: string;
}

interface WeekDay {
  /** "2026-10-12". */
  readonly date: string;
  /** "Mon 12 Oct". */
  readonly label: string;
  /** Opening hours that day, minutes after midnight; empty when closed or not known. */
  readonly open: ReadonlyArray<readonly [number, number]>;
  readonly items: readonly WeekItem[];
}

export interface WeekView {
  readonly hostId: string;
  readonly name: string;
  readonly zone: string;
  /** The zone's name at the week's start ("Eastern Daylight Time"). */
  readonly zoneName: string;
  /** "12 Oct 2026". */
  readonly weekOf: string;
  readonly days: readonly WeekDay[];
  /** The Mondays of the weeks before and after, and of this one, as the `week` query takes them. */
  readonly previous: string;
  readonly next: string;
  readonly current: string;
  /** The minutes of the day the grid shows: whole hours around opening hours and items. */
  readonly range: readonly [number, number];
  /** Busy time was read (a calendar host); false: the host's platform keeps its own. */
  readonly busyShown: boolean;
  /** The bookings could not be listed; or more than this page reads. */
  readonly unlisted: boolean;
  readonly more: boolean;
}

const iso = (d: LocalDate) =>
  `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

const midnight = (d: LocalDate, zone: string): number => {
  const at = wallClockToInstant({ ...d, hour: 0, minute: 0, second: 0, millisecond: 0 }, zone, "compatible");
  if (!at.ok) throw new TypeError(`no midnight on ${iso(d)} in ${zone}`);
  return at.value;
};

/** The Monday of the week holding `week` ("YYYY-MM-DD"), or of the host's today when absent or not a date. */
export function mondayOf(week: string | undefined, now: number, zone: string): LocalDate {
  const asked = week === undefined ? undefined : parseLocalDate(week, "week");
  const day: LocalDate = asked?.ok === true ? asked.value : instantToWallClock(now, zone);
  const { year, month, day: d } = day;
  return addDays({ year, month, day: d }, 1 - isoWeekday({ year, month, day: d }));
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** Minutes after local midnight at `t`, by the wall clock (so a DST day reads as its clocks do). */
const minutesAt = (t: number, zone: string): number => {
  const w = instantToWallClock(t, zone);
  return w.hour * 60 + w.minute;
};

const minutesOf = (v: unknown): number | undefined => {
  const m = typeof v === "string" ? /^(\d{2}):(\d{2})$/.exec(v) : null;
  return m === null ? undefined : Number(m[1]) * 60 + Number(m[2]);
};

/**
 * When the business is open each ISO weekday, minutes after midnight: the union of its
 * resources' weekly hours as its catalog reads them (a calendar host's are its configured
 * hours), else, before a catalog is read, a calendar host's hours as written in its config.
 * A period that runs past midnight is shown to the day's end.
 */
function openingHours(host: HostRuntime): Map<number, Array<readonly [number, number]>> {
  const cal = host.config.calendar;
  const configured = typeof cal === "object" && cal !== null ? (cal as { hours?: unknown }).hours : undefined;
  const periods: unknown[] =
    host.catalog.resources.length > 0
      ? host.catalog.resources.flatMap((r) => r.hours)
      : Array.isArray(configured)
        ? configured
        : [];
  const byDay = new Map<number, Array<[number, number]>>();
  for (const p of periods) {
    if (typeof p !== "object" || p === null) continue;
    const { day, open, close } = p as { day?: unknown; open?: unknown; close?: unknown };
    const from = minutesOf(open);
    const to = minutesOf(close);
    if (typeof day !== "number" || from === undefined || to === undefined) continue;
    byDay.set(day, [...(byDay.get(day) ?? []), [from, to <= from ? 1440 : to]]);
  }
  const out = new Map<number, Array<readonly [number, number]>>();
  for (const [day, list] of byDay) {
    const merged: Array<[number, number]> = [];
    for (const [a, b] of list.sort((x, y) => x[0] - y[0])) {
      const last = merged[merged.length - 1];
      if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
      else merged.push([a, b]);
    }
    out.set(day, merged);
  }
  return out;
}

const KIND_OF: Readonly<Record<string, WeekItemKind>> = {
  confirmed: "booking",
  completed: "booking",
  no_show: "booking",
  pending_host: "pending",
  tentative: "tentative",
};

export async function weekView(
  deps: Pick<ConsoleAppDeps, "api" | "clock">,
  host: HostRuntime,
  week: string | undefined,
  calendarBusy?: CalendarBusy,
): Promise<WeekView> {
  const zone = host.config.timezone;
  const hostId = host.config.id;
  const monday = mondayOf(week, deps.clock.now(), zone);
  const dates = Array.from({ length: 8 }, (_, i) => addDays(monday, i));
  const starts = dates.map((d) => midnight(d, zone));
  const from = starts[0] ?? 0;
  const to = starts[7] ?? from + 7 * DAY_MS;

  // Bookings that start in the week, or the day before (one running past midnight into it).
  const listed = await walkBookings(deps, hostId, { from: from - DAY_MS, to }, WALK_PAGES);
  const busy = calendarBusy === undefined ? undefined : await calendarBusy(hostId, from, to);
  const spans: Array<{ kind: WeekItemKind; start: number; end: number; title: string; bookingId?: string }> =
    [];
  for (const b of listed?.bookings ?? []) {
    const kind = KIND_OF[b.status];
    if (kind === undefined) continue;
    const who = b.contract.resource?.name;
    spans.push({
      kind,
      start: b.start,
      end: b.end ?? b.start + OPEN_END_MS,
      title: `${b.contract.service.name}${who !== undefined ? ` with ${who}` : ""}`,
      bookingId: b.bookingId,
    });
  }
  for (const s of busy ?? [])
    spans.push({ kind: "busy", start: s.start, end: s.end, title: "Busy in the calendar" });

  const hours = openingHours(host);
  const label = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    weekday: "short",
    day: "numeric",
    month: "short",
  });
  const days: WeekDay[] = dates.slice(0, 7).map((d, i) => {
    const dayStart = starts[i] ?? 0;
    const dayEnd = starts[i + 1] ?? dayStart + DAY_MS;
    const items: WeekItem[] = spans
      .filter((s) => s.end > dayStart && s.start < dayEnd && s.end > s.start)
      .sort((a, b) => a.start - b.start || a.end - b.end)
      .map((s) => {
        const start = Math.max(s.start, dayStart);
        const end = Math.min(s.end, dayEnd);
        const fromMin = minutesAt(start, zone);
        const toMin = end >= dayEnd ? 1440 : Math.max(minutesAt(end, zone), fromMin + 1);
        const time =
          `${s.start < dayStart ? "…" : ""}${hhmm(fromMin)}–${hhmm(toMin)}` + (s.end > dayEnd ? "…" : "");
        return {
          kind: s.kind,
          from: fromMin,
          to: toMin,
          time,
          title: s.title,
          ...(s.bookingId !== undefined && { bookingId: s.bookingId }),
        };
      });
    return {
      date: iso(d),
      label: label.format(dayStart + 12 * 3_600_000),
      open: hours.get(isoWeekday(d)) ?? [],
      items,
    };
  });

  const edges = days.flatMap((d) => [...d.open.flat(), ...d.items.flatMap((i) => [i.from, i.to])]);
  const low = Math.min(8 * 60, ...edges);
  const high = Math.max(18 * 60, ...edges);
  return {
    hostId,
    name: host.config.name,
    zone,
    zoneName:
      new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "long" })
        .formatToParts(from)
        .find((p) => p.type === "timeZoneName")?.value ?? zone,
    weekOf: new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      day: "numeric",
      month: "short",
      year: "numeric",
    }).format(from + 12 * 3_600_000),
    days,
    previous: iso(addDays(monday, -7)),
    next: iso(addDays(monday, 7)),
    current: iso(mondayOf(undefined, deps.clock.now(), zone)),
    range: [Math.floor(low / 60) * 60, Math.min(1440, Math.ceil(high / 60) * 60)],
    busyShown: busy !== undefined,
    unlisted: listed === undefined,
    more: listed?.more === true,
  };
}
