/**
 * A Microsoft 365 calendar host's connector settings, checked at start. Credentials are not
 * settings: the access token comes from the injected provider.
 */
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { didYouMean } from "../../protocol/nearest-name.js";

export interface MicrosoftCalendarSettings {
  /** Whose mailbox: "me" (the signed-in account, default) or a user id / principal name. */
  readonly user?: string;
  /** Graph's root with version; default https://graph.microsoft.com/v1.0 (national clouds differ). */
  readonly baseUrl?: string;
  /** `Prefer: odata.maxpagesize` for delta pages (1-1000); default Graph's own. */
  readonly pageSize?: number;
  /** Abort a call after this long, ms (default 30 000). */
  readonly timeoutMs?: number;
}

export interface ValidMicrosoftCalendarSettings {
  readonly user: string;
  readonly baseUrl: string;
  readonly pageSize?: number;
  readonly timeoutMs: number;
}

const KNOWN = new Set(["user", "baseUrl", "pageSize", "timeoutMs"]);

export function validateMicrosoftCalendarSettings(
  input: unknown,
): Result<ValidMicrosoftCalendarSettings, FieldError> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return err(fieldError("invalid_settings", "", "Microsoft 365 calendar settings must be an object"));
  }
  const s = input as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if (!KNOWN.has(key))
      return err(
        fieldError(
          "unknown_setting",
          `/${key}`,
          `unknown Microsoft 365 calendar setting "${key}"${didYouMean(key, KNOWN)}`,
        ),
      );
  }
  const user = s.user ?? "me";
  if (typeof user !== "string" || user.length === 0 || /[/?#\s]/.test(user)) {
    return err(
      fieldError("invalid_setting", "/user", 'user must be "me", a user id or a user principal name'),
    );
  }
  const baseUrl = s.baseUrl ?? "https://graph.microsoft.com/v1.0";
  if (typeof baseUrl !== "string" || !/^https:\/\/[^/?#]+\/v1\.0\/?$/.test(baseUrl)) {
    return err(
      fieldError("invalid_setting", "/baseUrl", "baseUrl must be an https Graph root ending in /v1.0"),
    );
  }
  const pageSize = s.pageSize;
  if (
    pageSize !== undefined &&
    (typeof pageSize !== "number" || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
  ) {
    return err(fieldError("invalid_setting", "/pageSize", "pageSize must be an integer from 1 to 1000"));
  }
  const timeoutMs = s.timeoutMs ?? 30_000;
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1) {
    return err(
      fieldError("invalid_setting", "/timeoutMs", "timeoutMs must be a positive integer (milliseconds)"),
    );
  }
  return ok({ user, baseUrl, timeoutMs, ...(pageSize !== undefined && { pageSize }) });
}
