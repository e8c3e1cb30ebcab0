export {
  compareWallClock,
  formatWallClock,
  isValidWallClock,
  parseInstant,
  parseLocalDate,
  parseLocalTime,
  parseWallClock,
  type Instant,
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
export {
  addDays,
  isLeapYear,
  isValidDate,
  isoWeekday,
  daysInMonth,
  type IsoWeekday,
  type LocalDate,
} from "./calendar.js";
export {
  formatOsbpDuration,
  formatSchcpDuration,
  parseOsbpDuration,
  parseRetention,
  parseSchcpDuration,
} from "./duration.js";
export type { TimeError, TimeErrorCode } from "./errors.js";
