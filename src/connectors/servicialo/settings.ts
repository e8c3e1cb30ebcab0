/**
 * Host configuration of a Servicialo (Coordinalo) business: `"type": "servicialo"` in the host's
 * connector settings. The organization API key comes from here (the operator's configuration),
 * never from an agent (Servicialo v1.2.0 "Authentication over A2A"; OSBP "Durable secrets stay
 * server-side").
 */
import { childPointer, err, type Result } from "../../protocol/result.js";
import { EMAIL_SHAPE, SettingsReader, type SettingsError } from "../http/settings.js";

interface ServicialoProvider {
  readonly id: string;
  readonly name: string;
}

export interface ServicialoSettings {
  /** The platform's origin, e.g. "https://coordinalo.com" (REST lives under /api/servicialo/{orgSlug}). */
  readonly baseUrl: string;
  readonly orgSlug: string;
  /** X-Org-Api-Key for cancel and reschedule; without it those answer unauthorized. */
  readonly apiKey?: string;
  /** The organization's IANA zone (availability answers carry it too; the catalog needs it first). */
  readonly timezone: string;
  /**
   * The providers to offer. Servicialo lists providers only inside availability answers; without
   * this list the platform picks its default ("first assigned") provider for each service.
   */
  readonly providers?: readonly ServicialoProvider[];
  /**
   * Servicialo requires clientEmail on every booking (it is the client identity key). When the
   * booking carries no email, this business-owned address is sent instead; absent: such a
   * booking is refused as invalid_request.
   */
  readonly fallbackClientEmail?: string;
  /** The platform's published request rate; absent: unspaced (the spec publishes none for REST). */
  readonly maxPerSecond?: number;
  readonly timeoutMs?: number;
  /** Payment the business takes upfront, if the operator knows it (the services list does not say). */
  readonly paymentRequirement?: "none" | "deposit" | "full_prepay";
  /**
   * The business's own page where a person pays up front or finishes a booking that needs it
   * (its checkout, or its Coordinalo client portal), if the operator gives one. Servicialo's 402
   * names no such page (v1.2.0 "3. book_session", Error Responses: `{ error, code, ... }`), so
   * this is where the payment handoff's link comes from. https only: it is shown to a person.
   */
  readonly paymentUrl?: string;
}

/** An absolute https URL without credentials in it (a page a person is sent to). */
function isPersonFacingUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === "https:" && u.username === "" && u.password === "";
  } catch {
    return false;
  }
}

const SLUG = /^[a-z0-9][a-z0-9-]*$/i;

export function parseServicialoSettings(
  value: unknown,
  base = "",
): Result<ServicialoSettings, SettingsError> {
  const r = SettingsReader.of(value, base);
  if (!(r instanceof SettingsReader)) return err(r);
  const baseUrl = r.url("baseUrl");
  const orgSlug = r.string("orgSlug", true, SLUG, "a URL slug (letters, digits, hyphens)");
  const apiKey = r.string("apiKey", false);
  const timezone = r.timeZone("timezone", true);
  const fallbackClientEmail = r.string("fallbackClientEmail", false, EMAIL_SHAPE, "an email address");
  const maxPerSecond = r.positive("maxPerSecond", 1000);
  const timeoutMs = r.positive("timeoutMs", 120_000);
  const payment = r.raw("paymentRequirement");
  if (payment !== undefined && payment !== "none" && payment !== "deposit" && payment !== "full_prepay") {
    r.push(r.field("paymentRequirement"), 'paymentRequirement must be "none", "deposit" or "full_prepay"');
  }
  const paymentUrl = r.string("paymentUrl", false);
  if (paymentUrl !== undefined && !isPersonFacingUrl(paymentUrl)) {
    r.push(r.field("paymentUrl"), "paymentUrl must be an absolute https URL without credentials");
  }
  const providersRaw = r.raw("providers");
  const providers: ServicialoProvider[] = [];
  if (providersRaw !== undefined) {
    if (!Array.isArray(providersRaw))
      r.push(r.field("providers"), "providers must be an array of {id, name}");
    else {
      for (const [i, p] of providersRaw.entries()) {
        const at = childPointer(r.field("providers"), i);
        const item = p as { id?: unknown; name?: unknown } | null;
        if (
          typeof item?.id !== "string" ||
          item.id === "" ||
          typeof item.name !== "string" ||
          item.name === ""
        ) {
          r.push(at, "each provider needs a non-empty id and name");
        } else providers.push({ id: item.id, name: item.name });
      }
    }
  }
  if (baseUrl === undefined || orgSlug === undefined || timezone === undefined)
    return r.done({} as ServicialoSettings);
  return r.done({
    baseUrl,
    orgSlug,
    timezone,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(providersRaw !== undefined ? { providers } : {}),
    ...(fallbackClientEmail !== undefined ? { fallbackClientEmail } : {}),
    ...(maxPerSecond !== undefined ? { maxPerSecond } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(payment !== undefined ? { paymentRequirement: payment as "none" | "deposit" | "full_prepay" } : {}),
    ...(paymentUrl !== undefined && isPersonFacingUrl(paymentUrl) ? { paymentUrl } : {}),
  });
}
