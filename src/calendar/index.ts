/** Pure calendar arithmetic: intervals, weekly hours, working-hours evaluation. No I/O. */
export { mergeIntervals, overlaps, type Interval } from "./interval.js";
export {
  expandWeeklyHours,
  parseWorkingHours,
  type WeeklyHours,
  type WorkingPeriod,
} from "./weekly-hours.js";
export {
  isWithinWorkingHours,
  MAX_SPAN_DAYS,
  STRETCH_LOOKAHEAD_MS,
  workingStretchEnd,
} from "./working-hours.js";
export { HoursIndex, type ZoneClock, type ZonedHours } from "./hours-index.js";
