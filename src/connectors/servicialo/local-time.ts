/** Dates and starts in the organization's zone (the host's `timezone` setting). */
import type { LocalDate } from "../../protocol/time/calendar.js";
import { formatInstant, instantToWallClock } from "../../protocol/time/index.js";
import type { ServicialoContext } from "./context.js";

export const isoDate = (d: LocalDate): string =>
  `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

export const localDay = (ctx: ServicialoContext, ms: number): LocalDate => {
  const w = instantToWallClock(ms, ctx.settings.timezone);
  return { year: w.year, month: w.month, day: w.day };
};

/** The slot's start text verbatim when this process saw it, else the instant with the zone's offset. */
export const startText = (ctx: ServicialoContext, ms: number): string =>
  ctx.startTexts.get(ms) ?? formatInstant(ms, ctx.settings.timezone);
