/**
 * Pure calendar arithmetic: intervals, weekly hours, working-hours evaluation, iCalendar
 * recurrence expansion, busy and free time. No I/O.
 */
export { mergeIntervals, overlaps, type Interval } from "./interval.js";
export { parseWorkingHours, type WeeklyHours, type WorkingPeriod } from "./weekly-hours.js";
export { isWithinWorkingHours, workingStretchEnd } from "./working-hours.js";
export { HoursIndex, type ZoneClock } from "./hours-index.js";
export type { EventTime, RawCalendarEvent } from "./raw-event.js";
export { expandEvents, expandIcs, type EventOccurrence, type IcsExpansion } from "./recurrence/public.js";
export { busyIntervals } from "./busy.js";
export { freeIntervals, slotStarts, subtractIntervals, workingIntervals } from "./free.js";
