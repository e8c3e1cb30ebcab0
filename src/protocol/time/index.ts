export {
  compareWallClock,
  formatWallClock,
  isValidWallClock,
  parseInstant,
  parseLocalDate,
  parseLocalTime,
  parseWallClock,
  type LocalTime,
  type WallClock,
} from "./rfc3339.js";
export {
  formatInstant,
  instantToWallClock,
  isValidTimeZone,
  offsetMinutesAt,
  wallClockToInstant,
  type Disambiguation,
} from "./zone.js";
export { addDays, isValidDate, isoWeekday, type IsoWeekday, type LocalDate } from "./calendar.js";
export { formatOsbpDuration, formatSchcpDuration, parseRetention, parseSchcpDuration } from "./duration.js";
export { readableSpan, readableTime } from "./readable.js";
