/**
 * Durations as exact milliseconds.
 *
 * SchCP §2.1: P[nW][nD][T[nH][nM][n[.n]S]] exactly: at least one part, a T only before a time
 * part ("PT" and "P1DT" are invalid), ASCII digits only, a decimal point (never a comma) only
 * in seconds, no sign, upper case, weeks and days combinable (P2W3D), no years or months. A
 * week is 7 days and a day 86 400 s, so P1W = P7D = PT168H. Leading zeros in a number ("PT01H")
 * are digits and accepted; the writer never produces them.
 *
 * Deliberate limit: the gateway keeps milliseconds. Fraction digits past the third are
 * accepted only when they are zeros ("PT1.5000S"); "PT0.0001S" is refused with
 * sub_millisecond_precision rather than silently rounded. Results must be safe integers.
 *
 * Retention (SchCP §2.1, policies.retention): weeks and/or days only ("P365D", "P52W", "P0D").
 *
 * OSBP (Service.duration, Policy.cancellation_window, Policy.late_grace: "ISO 8601 duration
 * strings such as PT45M"): P[nD][T[nH][nM][n[.n]S]] with the same rules, no weeks (OSBP uses
 * none), no years or months (their length varies). Its writer uses hours, minutes and seconds
 * only ("PT45M", "PT1H30M", "PT6H", "PT48H"): an exact length, where "P2D" could be read as
 * two calendar days across a DST change.
 */
import { err, fieldError, ok, type Result } from "../result.js";
import type { TimeError } from "./errors.js";

const GRAMMAR =
  /^P(?:([0-9]+)W)?(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)(?:\.([0-9]+))?S)?)?$/;
const MAX_LENGTH = 100; // bounds BigInt work on hostile input; real durations are far shorter

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Dialect = "schcp" | "retention" | "osbp";

function parse(value: unknown, field: string, dialect: Dialect): Result<number, TimeError> {
  const invalid = (why: string) => err(fieldError("invalid_duration", field, why));
  if (typeof value !== "string") return err(fieldError("invalid_type", field, "a duration is a string"));
  const m = value.length <= MAX_LENGTH ? GRAMMAR.exec(value) : null;
  if (m === null) return invalid(`${JSON.stringify(value)} is not a duration P[nW][nD][T[nH][nM][n[.n]S]]`);
  const [, w, d, h, min, s, frac] = m;
  const hasTime = h !== undefined || min !== undefined || s !== undefined;
  if (w === undefined && d === undefined && !hasTime) return invalid("a duration has at least one part");
  if (value.includes("T") && !hasTime) return invalid("a T comes only before a time part");
  if (dialect === "retention" && hasTime) return invalid("a retention is in weeks or days only");
  if (dialect === "osbp" && w !== undefined) return invalid("an OSBP duration has no weeks");
  const extra = (frac ?? "").slice(3);
  if (/[1-9]/.test(extra)) {
    return err(fieldError("sub_millisecond_precision", field, "sub-millisecond precision is not supported"));
  }
  const big = (n: string | undefined) => BigInt(n ?? "0");
  const total =
    (big(w) * 7n + big(d)) * BigInt(DAY) +
    big(h) * BigInt(HOUR) +
    big(min) * BigInt(MINUTE) +
    big(s) * BigInt(SECOND) +
    big((frac ?? "").slice(0, 3).padEnd(3, "0"));
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    return err(fieldError("duration_out_of_range", field, "the duration is too long to handle exactly"));
  }
  return ok(Number(total));
}

/** SchCP §2.1 duration -> milliseconds. */
export function parseSchcpDuration(value: unknown, field: string): Result<number, TimeError> {
  return parse(value, field, "schcp");
}

/** SchCP §2.1 retention (weeks and/or days) -> milliseconds. */
export function parseRetention(value: unknown, field: string): Result<number, TimeError> {
  return parse(value, field, "retention");
}

/** OSBP duration (no weeks) -> milliseconds. */
export function parseOsbpDuration(value: unknown, field: string): Result<number, TimeError> {
  return parse(value, field, "osbp");
}

function assertMs(ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new TypeError(`a duration is a non-negative safe integer of milliseconds, got ${ms}`);
  }
}

function timePart(h: number, m: number, ms: number): string {
  const whole = Math.floor(ms / SECOND);
  const rest = ms % SECOND;
  const sec = rest === 0 ? `${whole}` : `${whole}.${String(rest).padStart(3, "0").replace(/0+$/, "")}`;
  const parts = `${h > 0 ? `${h}H` : ""}${m > 0 ? `${m}M` : ""}${ms > 0 ? `${sec}S` : ""}`;
  return parts === "" ? "" : `T${parts}`;
}

/**
 * Canonical SchCP writer (§2.1): days, hours, minutes and seconds only, never weeks, zero parts
 * left out, zero as PT0S, fractional seconds without trailing zeros (604 800 000 -> "P7D",
 * 90 061 000 -> "P1DT1H1M1S", 1500 -> "PT1.5S"). Throws TypeError for negative or non-integer ms.
 */
export function formatSchcpDuration(ms: number): string {
  assertMs(ms);
  if (ms === 0) return "PT0S";
  const days = Math.floor(ms / DAY);
  const rest = ms % DAY;
  const time = timePart(Math.floor(rest / HOUR), Math.floor((rest % HOUR) / MINUTE), rest % MINUTE);
  return `P${days > 0 ? `${days}D` : ""}${time}`;
}

/** OSBP writer: hours, minutes and seconds only ("PT45M", "PT1H30M", "PT48H"), zero as PT0S. */
export function formatOsbpDuration(ms: number): string {
  assertMs(ms);
  if (ms === 0) return "PT0S";
  return `P${timePart(Math.floor(ms / HOUR), Math.floor((ms % HOUR) / MINUTE), ms % MINUTE)}`;
}
