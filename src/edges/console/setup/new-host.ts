/**
 * "Add a business": the form's values, checked with messages per input, and the
 * draft host entry they make — id, name, timezone, kind and the connector's type with the
 * settings Connect needs (`credentials: "vault"` and the environment variables the gateway's
 * OAuth client is read from, docs/connectors.md "OAuth tokens in the gateway's vault"). The rest of the
 * entry (calendars, hours, services, location) is filled in on the setup page.
 */
import { HOST_ID_PATTERN } from "../../../booking/hosts/index.js";
import { isValidTimeZone } from "../../../protocol/time/index.js";
import type { ManagedHostSource } from "../managed-hosts.js";
import { SQUARE_DEFAULT_VERSION } from "./choices.js";

export const SOURCES: readonly ManagedHostSource[] = ["square", "google", "microsoft", "caldav"];

export const SOURCE_NAME: Readonly<Record<ManagedHostSource, string>> = {
  square: "Square",
  google: "Google Calendar",
  microsoft: "Microsoft 365 calendar",
  caldav: "CalDAV calendar (iCloud, Fastmail, Nextcloud…)",
};

/** Input name → message, shown next to that input and in the page's error summary. */
export type FormErrors = Record<string, string>;

export interface NewHostValues {
  readonly name: string;
  readonly hostId: string;
  readonly timezone: string;
  readonly kind: string;
  readonly source: string;
  readonly environment: string;
}

const HOST_ID = new RegExp(HOST_ID_PATTERN);

/** "Salón Lumen & Co." → "salon-lumen-co": lowercase ASCII, dashes, at most 64 characters. */
export function suggestHostId(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/g, "");
}

/** The OAuth client's environment variables, as the gateway reads them (cli/serve-env.ts). */
const CLIENT_ENV: Readonly<Record<Exclude<ManagedHostSource, "caldav">, string>> = {
  square: "SQUARE",
  google: "GOOGLE",
  microsoft: "MICROSOFT",
};

export function parseNewHost(
  form: URLSearchParams,
  offered: readonly ManagedHostSource[],
): { values: NewHostValues; errors: FormErrors } {
  const get = (k: string) => (form.get(k) ?? "").trim();
  const name = get("name");
  const values: NewHostValues = {
    name,
    hostId: get("host_id") === "" ? suggestHostId(name) : get("host_id"),
    timezone: get("timezone"),
    kind: get("kind") || "business",
    source: get("source"),
    environment: get("environment") || "production",
  };
  const errors: FormErrors = {};
  if (name === "" || name.length > 120) errors.name = "Give the business's name (up to 120 characters).";
  if (!HOST_ID.test(values.hostId))
    errors.host_id =
      "Use 1 to 64 lowercase letters, digits, dashes or underscores, starting and ending with a letter or digit.";
  if (!isValidTimeZone(values.timezone))
    errors.timezone = "Give an IANA time zone such as Europe/Madrid or America/New_York.";
  if (values.kind !== "business" && values.kind !== "person")
    errors.kind = "Choose a business or a single person.";
  if (!(offered as readonly string[]).includes(values.source))
    errors.source = "Choose where the business's time comes from.";
  if (values.environment !== "production" && values.environment !== "sandbox")
    errors.environment = "Choose production or sandbox.";
  return { values, errors };
}

/** The draft entry: enough for Connect (connect/wiring.ts hostAccess checks type and credentials) and the choices. */
export function draftConfig(v: NewHostValues): Record<string, unknown> {
  const source = v.source as ManagedHostSource;
  const base = { id: v.hostId, name: v.name, timezone: v.timezone, kind: v.kind };
  if (source === "caldav") return { ...base, connector: { type: "caldav", settings: {} } };
  const env = CLIENT_ENV[source];
  const settings: Record<string, unknown> = {
    credentials: "vault",
    clientIdEnv: `${env}_CLIENT_ID`,
    clientSecretEnv: `${env}_CLIENT_SECRET`,
    ...(source === "square" && { environment: v.environment, version: SQUARE_DEFAULT_VERSION }),
  };
  return { ...base, connector: { type: source, settings } };
}
