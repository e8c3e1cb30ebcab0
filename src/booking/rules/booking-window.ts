/**
 * When a start may be held (SchCP §5.2 "Who, when and where", §10 horizon), pure. Checked in
 * the spec's order: release schedule, min notice, max advance, then the horizon. Each refusal
 * names its policy and limit in basis (§9.2), so an agent can tell the human why.
 */
import { formatSchcpDuration } from "../../protocol/time/duration.js";
import { addDays } from "../../protocol/time/index.js";
import type { BookingRefusal, HostPolicies, ReleaseSchedule, ServiceRules } from "../api.js";
import { bookingRefusal } from "./refusal.js";
import { asZoneView, type ZoneView } from "./zone-view.js";

/**
 * §5.2 release schedule: the local day of `start` opens at `at` local time, `daysAhead`
 * days before it. Undefined when the zone or the time cannot be read (a config bug).
 */
export function releaseInstant(
  opens: ReleaseSchedule,
  start: number,
  zone: string | ZoneView,
): number | undefined {
  const view = asZoneView(zone);
  const day = view.wallClock(start);
  const opening = addDays({ year: day.year, month: day.month, day: day.day }, -opens.daysAhead);
  const [hour, minute] = opens.at.split(":").map(Number);
  if (hour === undefined || minute === undefined) return undefined;
  return view.instant({ ...opening, hour, minute, second: 0, millisecond: 0 });
}

export function checkReleaseSchedule(
  opens: ReleaseSchedule | undefined,
  start: number,
  now: number,
  zone: string | ZoneView,
): BookingRefusal | undefined {
  if (opens === undefined) return undefined;
  const at = releaseInstant(opens, start, zone);
  if (at !== undefined && now >= at) return undefined;
  return bookingRefusal("outside_booking_window", {
    reason: "not_yet_released",
    message: `that day opens for booking ${opens.daysAhead} day(s) ahead, at ${opens.at} local time`,
    basis: { policy: "booking_window.opens", days_ahead: opens.daysAhead, at: opens.at },
  });
}

/** A start in the past fails min notice too, with the default notice of zero. */
export function checkMinNotice(minNoticeMs: number | undefined, start: number, now: number) {
  const notice = minNoticeMs ?? 0;
  if (start >= now + notice) return undefined;
  return bookingRefusal("outside_booking_window", {
    reason: "min_notice",
    message:
      notice === 0
        ? "that time has passed"
        : `this service needs ${formatSchcpDuration(notice)} notice before the start`,
    basis: { policy: "booking_window.min_notice", limit: formatSchcpDuration(notice) },
  });
}

/** §5.2: a release schedule "replaces max_advance", so max_advance is not checked beside one. */
export function checkMaxAdvance(rules: ServiceRules | undefined, start: number, now: number) {
  const max = rules?.maxAdvanceMs;
  if (max === undefined || rules?.opens !== undefined || start <= now + max) return undefined;
  return bookingRefusal("outside_booking_window", {
    reason: "max_advance",
    message: `this service can be booked at most ${formatSchcpDuration(max)} ahead`,
    basis: { policy: "booking_window.max_advance", limit: formatSchcpDuration(max) },
  });
}

/**
 * SchCP §10, docs/ARCHITECTURE.md, Calendar sync: nothing is offered past the horizon the availability source was read
 * for; such times are refused as 409 SLOT_UNAVAILABLE availability_unknown.
 */
export function checkHorizon(horizonMs: number, start: number, now: number): BookingRefusal | undefined {
  if (start < now + horizonMs) return undefined;
  return bookingRefusal("slot_unavailable", {
    reason: "availability_unknown",
    message: `availability is known only ${formatSchcpDuration(horizonMs)} ahead`,
    basis: { policy: "horizon", limit: formatSchcpDuration(horizonMs) },
  });
}

/** Every "when" rule for one start, in the spec's order; undefined when it may be held. */
export function checkWhen(
  rules: ServiceRules | undefined,
  policies: Pick<HostPolicies, "horizonMs">,
  zone: string | ZoneView,
  start: number,
  now: number,
): BookingRefusal | undefined {
  return (
    checkReleaseSchedule(rules?.opens, start, now, zone) ??
    checkMinNotice(rules?.minNoticeMs, start, now) ??
    checkMaxAdvance(rules, start, now) ??
    checkHorizon(policies.horizonMs, start, now)
  );
}
