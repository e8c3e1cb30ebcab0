/**
 * A Square host's connector settings (the `"type": "square"` entry of host configuration) and
 * their validator. Errors name the field, so a bad configuration is refused at start with a
 * message an operator can act on.
 *
 * The access token comes from exactly one place: `accessToken` in configuration (a personal or
 * sandbox token), or the token provider the integrator passes in deps (OAuth, refreshed and
 * decrypted by the gateway's onboarding). It is never echoed in an error.
 */
import { childPointer, err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { didYouMean } from "../../protocol/nearest-name.js";

export type SquareEnvironmentName = "sandbox" | "production";

export interface SquareSettings {
  readonly environment: SquareEnvironmentName;
  /** The Square location whose services, team and bookings this host is. */
  readonly locationId: string;
  /** The Square-Version pinned on every request ("YYYY-MM-DD"). */
  readonly version: string;
  /** A static access token; absent when deps.tokenProvider supplies one. */
  readonly accessToken?: string;
  /** Per-request timeout, ms (default 10,000). */
  readonly timeoutMs?: number;
  /**
   * How far ahead findByIdempotencyKey looks for a booking made under a key, days (default 93:
   * past Square's usual maximum booking lead time; one ListBookings call per 31 days).
   */
  readonly lookaheadDays?: number;
  /**
   * Overrides the environment's Square origin (tests against a loopback fake, or an egress
   * proxy). Never defaulted: absent, requests go to the environment's own origin. The
   * environment still names which Square this host is (sandbox or production).
   */
  readonly baseUrl?: string;
  /**
   * The webhook subscription's signature key (Developer Console → Webhooks), for the booking
   * webhook receiver (POST /webhooks/square/{hostId}); absent: that host's webhooks are refused.
   */
  readonly webhookSignatureKey?: string;
  /**
   * What the business takes up front, as its operator states it: Square's Bookings API does not
   * say whether a service needs a card or a deposit (that is configured in the Square Dashboard),
   * so without it every service's payment requirement is "unknown" and OSBP hands off instead of
   * booking (OSBP "Security and Privacy": unknown payment requirements fail closed).
   */
  readonly paymentRequirement?: "none" | "deposit" | "full_prepay";
}

/** The SDK's SquareEnvironment values, written out so that settings load without the SDK (sdk.ts). */
export const BASE_URLS: Readonly<Record<SquareEnvironmentName, string>> = {
  sandbox: "https://connect.squareupsandbox.com",
  production: "https://connect.squareup.com",
};

const VERSION = /^\d{4}-\d{2}-\d{2}$/;
// Square location ids are short uppercase alphanumerics ("L88917AVBK2S5"); 32 is the API's max.
const LOCATION_ID = /^[A-Za-z0-9_-]{1,32}$/;
const MEMBERS = new Set([
  "type",
  "environment",
  "locationId",
  "version",
  "accessToken",
  "timeoutMs",
  "lookaheadDays",
  "baseUrl",
  "webhookSignatureKey",
  "paymentRequirement",
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An http(s) URL with no query, fragment or credentials (a path prefix is allowed, for proxies). */
function isOrigin(value: unknown): value is string {
  if (typeof value !== "string") return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === "https:" || url.protocol === "http:") &&
    url.username === "" &&
    url.password === "" &&
    url.search === "" &&
    url.hash === ""
  );
}

/** The origin requests go to: the override when configured, else the environment's. */
export function baseUrlOf(settings: SquareSettings): string {
  return settings.baseUrl ?? BASE_URLS[settings.environment];
}

/**
 * Reads settings from host configuration at `field` (e.g. "/hosts/0/connector").
 * `hasTokenProvider`: whether deps carry a token provider, so a missing accessToken is fine.
 */
export function validateSquareSettings(
  value: unknown,
  hasTokenProvider: boolean,
  field = "",
): Result<SquareSettings, FieldError> {
  const at = (name: string) => childPointer(field, name);
  if (!isRecord(value)) return err(fieldError("invalid_type", field, "Square settings are an object"));
  for (const key of Object.keys(value))
    if (!MEMBERS.has(key))
      return err(
        fieldError("unknown_member", at(key), `Square settings have no "${key}"${didYouMean(key, MEMBERS)}`),
      );
  if (value["type"] !== undefined && value["type"] !== "square")
    return err(fieldError("invalid_value", at("type"), 'type must be "square"'));

  const { environment, locationId, version, accessToken, timeoutMs, lookaheadDays, baseUrl } = value;
  const { webhookSignatureKey, paymentRequirement } = value;
  if (
    paymentRequirement !== undefined &&
    paymentRequirement !== "none" &&
    paymentRequirement !== "deposit" &&
    paymentRequirement !== "full_prepay"
  )
    return err(
      fieldError(
        "invalid_value",
        at("paymentRequirement"),
        'paymentRequirement is "none", "deposit" or "full_prepay" (what the business takes up front)',
      ),
    );
  if (environment !== "sandbox" && environment !== "production")
    return err(fieldError("invalid_value", at("environment"), 'environment is "sandbox" or "production"'));
  if (typeof locationId !== "string" || !LOCATION_ID.test(locationId))
    return err(
      fieldError(
        "invalid_value",
        at("locationId"),
        "locationId is the Square location id (1-32 letters and digits)",
      ),
    );
  if (
    typeof version !== "string" ||
    !VERSION.test(version) ||
    Number.isNaN(Date.parse(`${version}T00:00:00Z`))
  )
    return err(
      fieldError("invalid_value", at("version"), 'version is the pinned Square-Version, a date "YYYY-MM-DD"'),
    );
  if (accessToken !== undefined && (typeof accessToken !== "string" || accessToken.trim() === ""))
    // The value itself is never quoted: it may be a credential.
    return err(fieldError("invalid_value", at("accessToken"), "accessToken must be a non-empty string"));
  if (accessToken === undefined && !hasTokenProvider)
    return err(
      fieldError(
        "missing_member",
        at("accessToken"),
        "an access token is required: accessToken, or a token provider",
      ),
    );
  if (accessToken !== undefined && hasTokenProvider)
    return err(
      fieldError("conflicting_members", at("accessToken"), "give accessToken or a token provider, not both"),
    );
  if (
    timeoutMs !== undefined &&
    !(Number.isSafeInteger(timeoutMs) && (timeoutMs as number) >= 100 && (timeoutMs as number) <= 120_000)
  )
    return err(
      fieldError("invalid_value", at("timeoutMs"), "timeoutMs is a whole number from 100 to 120000"),
    );
  if (
    lookaheadDays !== undefined &&
    !(
      Number.isSafeInteger(lookaheadDays) &&
      (lookaheadDays as number) >= 1 &&
      (lookaheadDays as number) <= 400
    )
  )
    return err(
      fieldError("invalid_value", at("lookaheadDays"), "lookaheadDays is a whole number from 1 to 400"),
    );

  if (baseUrl !== undefined && !isOrigin(baseUrl))
    return err(
      fieldError(
        "invalid_value",
        at("baseUrl"),
        "baseUrl is an http(s) origin, e.g. https://proxy.example:8443",
      ),
    );
  if (
    webhookSignatureKey !== undefined &&
    (typeof webhookSignatureKey !== "string" || webhookSignatureKey.trim() === "")
  )
    return err(
      fieldError(
        "invalid_value",
        at("webhookSignatureKey"),
        "webhookSignatureKey must be a non-empty string",
      ),
    );

  return ok({
    environment,
    locationId,
    version,
    ...(accessToken === undefined ? {} : { accessToken }),
    ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
    ...(lookaheadDays === undefined ? {} : { lookaheadDays: lookaheadDays as number }),
    ...(baseUrl === undefined ? {} : { baseUrl: baseUrl.replace(/\/+$/, "") }),
    ...(webhookSignatureKey === undefined ? {} : { webhookSignatureKey: webhookSignatureKey }),
    ...(paymentRequirement === undefined ? {} : { paymentRequirement }),
  });
}
