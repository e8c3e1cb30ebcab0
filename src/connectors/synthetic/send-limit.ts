/**
 * The synthetic platform's limit on verification sends, as real platforms have one (SMS
 * costs money and is an abuse vector; OSBP "Known Limitations": verification.send "is bounded
 * only by platform rate-limit and safety controls"). At most `maxSends` codes per contact in
 * any sliding window of `windowMs`; the next one is refused with HTTP 429 and a Retry-After
 * saying when the oldest counted send leaves the window.
 *
 * Both backends decide with `admitInWindow`'s rule (Redis in Lua, memory here), atomically,
 * so several gateway processes sharing one platform can never exceed it together.
 */

export interface VerificationSendLimit {
  /** Sends admitted per contact in one window, ≥ 1. */
  readonly maxSends: number;
  /** Window length, ms ≥ 1,000. */
  readonly windowMs: number;
}

/** Three codes per contact per ten minutes, a common platform default. */
export const DEFAULT_VERIFICATION_SEND_LIMIT: VerificationSendLimit = { maxSends: 3, windowMs: 10 * 60_000 };

export type SendAdmission =
  | { readonly admitted: true }
  /** retryAfterMs > 0: when the oldest counted send leaves the window. */
  | { readonly admitted: false; readonly retryAfterMs: number };

export function isSendLimit(v: unknown): v is VerificationSendLimit {
  if (typeof v !== "object" || v === null) return false;
  const { maxSends, windowMs } = v as Partial<VerificationSendLimit>;
  return (
    typeof maxSends === "number" &&
    Number.isSafeInteger(maxSends) &&
    maxSends >= 1 &&
    typeof windowMs === "number" &&
    Number.isSafeInteger(windowMs) &&
    windowMs >= 1000
  );
}

/**
 * The rule, on a log of admitted send times (mutated: entries out of the window are dropped,
 * an admitted send is appended). A send at `t` counts while `t > now - windowMs`; refused
 * attempts are not counted, so a client backing off as told always gets through.
 */
export function admitInWindow(log: number[], now: number, limit: VerificationSendLimit): SendAdmission {
  const live = log.filter((t) => t > now - limit.windowMs);
  log.splice(0, log.length, ...live);
  if (live.length >= limit.maxSends) {
    const oldest = Math.min(...live);
    return { admitted: false, retryAfterMs: oldest + limit.windowMs - now };
  }
  log.push(now);
  return { admitted: true };
}
