/**
 * Pure calendar arithmetic: intervals, weekly hours, working-hours evaluation, iCalendar
 * recurrence expansion, busy and free time. No I/O.
 */
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
export type { EventTime, RawCalendarEvent } from "./raw-event.js";
export {
  DEFAULT_MAX_PER_SERIES,
  DEFAULT_MAX_TOTAL,
  expandEvents,
  expandIcs,
  type EventOccurrence,
  type EventsExpansion,
  type IcsExpansion,
  type IcsOccurrence,
} from "./recurrence/public.js";
export type { EventStatus } from "./recurrence/model.js";
export { busyIntervals, type BusyCandidate } from "./busy.js";
export {
  freeIntervals,
  slotStarts,
  subtractIntervals,
  workingIntervals,
  type FreeQuery,
  type SlotRules,
} from "./free.js";
