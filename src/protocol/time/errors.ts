import type { FieldError } from "../result.js";

/**
 * Why a time value was refused. Stable codes; the edges map them once (SchCP INVALID_REQUEST,
 * OSBP invalid_mandate for offset_not_allowed and missing_offset, per OSBP "Time Discipline").
 */
export type TimeErrorCode =
  | "invalid_type" // not a string
  | "invalid_instant" // not an RFC 3339 date-time
  | "missing_offset" // a date-time without Z or ±hh:mm where an instant is required
  | "invalid_wall_clock" // not a merchant-local wall-clock "YYYY-MM-DDTHH:MM[:SS[.fff]]"
  | "offset_not_allowed" // a wall-clock, date or time value that carries Z or an offset
  | "invalid_date"
  | "invalid_time"
  | "invalid_time_zone" // not an IANA time zone name
  | "nonexistent_local_time" // in a DST gap, under disambiguation "reject"
  | "ambiguous_local_time" // in a DST overlap, under disambiguation "reject"
  | "invalid_duration" // outside the duration grammar in force
  | "sub_millisecond_precision"
  | "duration_out_of_range";

export type TimeError = FieldError<TimeErrorCode>;
