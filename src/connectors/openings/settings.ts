/**
 * Host configuration of an Openings business: `"type": "openings"` in the host's connector
 * settings. Openings' public API needs no key; what the configuration adds is what the API
 * does not say: the currency of its prices (it sends bare major-unit numbers) and, for a
 * business whose time zone Openings leaves null, the zone the operator states for it.
 */
import { err, type Result } from "../../protocol/result.js";
import { isKnownCurrency } from "../../protocol/money/index.js";
import { SettingsReader, type SettingsError } from "../http/settings.js";

export interface OpeningsSettings {
  /** The API origin, e.g. "https://api.openings.example"; requests go under its /v1. */
  readonly baseUrl: string;
  /** The business's public slug. */
  readonly businessSlug: string;
  /** Which location to offer; default: the business's only location (several: required). */
  readonly locationId?: string;
  /** ISO 4217 code of the business's prices (Openings prices carry no currency). */
  readonly currency: string;
  /**
   * The operator's stated IANA zone, used only when Openings reports none. Without either, the
   * connector places no local time in time: slots and bookings answer unsupported.
   */
  readonly timezone?: string;
  readonly maxPerSecond?: number;
  readonly timeoutMs?: number;
}

const SLUG = /^[a-z0-9][a-z0-9-]*$/i;

export function parseOpeningsSettings(value: unknown, base = ""): Result<OpeningsSettings, SettingsError> {
  const r = SettingsReader.of(value, base);
  if (!(r instanceof SettingsReader)) return err(r);
  const baseUrl = r.url("baseUrl");
  const businessSlug = r.string("businessSlug", true, SLUG, "a URL slug (letters, digits, hyphens)");
  const locationId = r.string("locationId", false);
  const currency = r.string("currency", true, /^[A-Z]{3}$/, 'an ISO 4217 code such as "USD"');
  if (currency !== undefined && !isKnownCurrency(currency)) {
    r.push(r.field("currency"), `currency ${currency} is not an ISO 4217 code`);
  }
  const timezone = r.timeZone("timezone", false);
  const maxPerSecond = r.positive("maxPerSecond", 1000);
  const timeoutMs = r.positive("timeoutMs", 120_000);
  if (baseUrl === undefined || businessSlug === undefined || currency === undefined) {
    return r.done({} as OpeningsSettings);
  }
  return r.done({
    baseUrl,
    businessSlug,
    currency,
    ...(locationId !== undefined ? { locationId } : {}),
    ...(timezone !== undefined ? { timezone } : {}),
    ...(maxPerSecond !== undefined ? { maxPerSecond } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
}
