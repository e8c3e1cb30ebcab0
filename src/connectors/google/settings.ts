/**
 * A Google Calendar host's connector settings, checked at start. Credentials are not
 * settings: the access token comes from the injected provider.
 */
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { didYouMean } from "../../protocol/nearest-name.js";

export interface GoogleCalendarSettings {
  /** events.list `maxResults` per page (Google allows up to 2500; default 250). */
  readonly pageSize?: number;
  /** Abort a call after this long, ms (default 30 000). */
  readonly timeoutMs?: number;
}

export interface ValidGoogleCalendarSettings {
  readonly pageSize: number;
  readonly timeoutMs: number;
}

const KNOWN = new Set(["pageSize", "timeoutMs"]);

export function validateGoogleCalendarSettings(
  input: unknown,
): Result<ValidGoogleCalendarSettings, FieldError> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return err(fieldError("invalid_settings", "", "Google Calendar settings must be an object"));
  }
  const s = input as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if (!KNOWN.has(key))
      return err(
        fieldError(
          "unknown_setting",
          `/${key}`,
          `unknown Google Calendar setting "${key}"${didYouMean(key, KNOWN)}`,
        ),
      );
  }
  const pageSize = s.pageSize ?? 250;
  if (typeof pageSize !== "number" || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 2500) {
    return err(fieldError("invalid_setting", "/pageSize", "pageSize must be an integer from 1 to 2500"));
  }
  const timeoutMs = s.timeoutMs ?? 30_000;
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1) {
    return err(
      fieldError("invalid_setting", "/timeoutMs", "timeoutMs must be a positive integer (milliseconds)"),
    );
  }
  return ok({ pageSize, timeoutMs });
}
