/**
 * The hosts config file (JSON) as a JSON Schema (2020-12), checked with Ajv before the values
 * are read. The schema settles the structure (members, types, enums, whole numbers); the
 * grammar of values (SchCP durations, money, time zones, principal ids) is checked in
 * parse-config.ts with the protocol parsers, so each error names its field and says exactly
 * what is wrong with the value. Names follow the SchCP discovery document (§2.1) where one
 * exists, so a host's config reads like what it publishes. Closed at every depth: a
 * misspelt member is an error, never a silently ignored setting.
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { childPointer, err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { didYouMean, nearestName } from "../../protocol/nearest-name.js";

type Schema = Record<string, unknown>;

const closed = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const str: Schema = { type: "string", minLength: 1 };
const bool: Schema = { type: "boolean" };
const count: Schema = { type: "integer", minimum: 0 };
const positive: Schema = { type: "integer", minimum: 1 };
/** Grammar checked in code (parseSchcpDuration / parseRetention) for a precise message. */
const duration: Schema = { type: "string" };
/** Checked in code with parseSchcpMoney (currency exponent, §2.1). */
const money: Schema = { type: "object" };
const hhmm: Schema = { type: "string", pattern: "^(?:[01][0-9]|2[0-3]):[0-5][0-9]$" };

/** Host ids become URL path segments (/schcp/v0/{hostId}) and SchCP Ids. */
export const HOST_ID_PATTERN = "^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$";

const policies = closed({
  holds: closed({
    max_ttl: duration,
    max_active_per_agent: count,
    requires_mandate: bool,
    max_active_unproven: count,
    max_active_per_attester: count,
  }),
  confirmation: { enum: ["instant", "host_approval"] },
  closed_mandate: { enum: ["never", "always"] },
  retention: duration,
  access: { enum: ["public", "contacts"] },
  contacts: { type: "array", items: str, uniqueItems: true },
  service_area: closed(
    { country: { type: "string", pattern: "^[A-Z]{2}$" }, postal_prefixes: { type: "array", items: str } },
    ["country"],
  ),
  walk_in_reserve: {
    type: "array",
    items: closed(
      {
        resource_type: str,
        keep: positive,
        days: { type: "array", items: { type: "integer", minimum: 1, maximum: 7 }, uniqueItems: true },
      },
      ["resource_type", "keep"],
    ),
  },
  approval_timeout: duration,
  public_booking: closed({ max_per_host: count, max_per_origin: count }),
  allow_wildcard_audience: bool,
  sd_jwt_mandates: bool,
  horizon: duration,
  data: closed({
    free_text_notes: { enum: ["accept", "refuse"] },
    intake_url: { type: "string", pattern: "^https://" },
  }),
  // SchCP §5.10 participants and reconfirmation.
  tentative: closed({ max_confirm_within: duration }, ["max_confirm_within"]),
  reconfirm: closed({ before: duration, default: { enum: ["release", "keep"] } }, ["before"]),
  waitlist: closed({ offer_ttl: duration, max_entries_per_agent: positive }, ["offer_ttl"]),
});

const service = closed(
  {
    service_id: str,
    booking_window: closed({
      min_notice: duration,
      max_advance: duration,
      opens: closed({ days_ahead: count, at: hhmm }, ["days_ahead", "at"]),
    }),
    party_size: closed({ min: positive, max: positive }, ["min", "max"]),
    location: { enum: ["host", "guest", "elsewhere"] },
    eligibility: closed({ guest: { enum: ["returning", "new"] } }, ["guest"]),
    surcharges: {
      type: "array",
      items: closed(
        {
          when: { enum: ["same_day", "weekend", "after_hours"] },
          label: str,
          amount: money,
          percent: { type: ["number", "string"] },
          after: hhmm,
        },
        ["when", "label"],
      ),
    },
    selectable: bool,
  },
  ["service_id"],
);

/** Where a sibling's discovery document is (§2.4): https, or plain http on loopback (§3.1). */
const discoveryUrl: Schema = {
  type: "string",
  format: "uri",
  pattern:
    "^(https://|http://(127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|localhost|\\[::1\\])(:[0-9]{1,5})?(/|$))",
};

// SchCP §2.1 trust.attesters (§7.5): each key is checked as an Ed25519 JWK in parse-config.ts.
const trust = closed(
  {
    attesters: {
      type: "array",
      items: closed({ id: str, name: str, keys: { type: "array", items: { type: "object" }, minItems: 1 } }, [
        "id",
        "keys",
      ]),
    },
  },
  ["attesters"],
);

// SchCP §2.4: a location without discovery is one this gateway serves (its own URL is published).
const brand = closed(
  {
    id: str,
    name: str,
    locations: {
      type: "array",
      items: closed(
        { host_id: { type: "string", pattern: HOST_ID_PATTERN }, name: str, discovery: discoveryUrl },
        ["host_id"],
      ),
    },
  },
  ["id", "name"],
);

const host = closed(
  {
    id: { type: "string", pattern: HOST_ID_PATTERN },
    name: str,
    kind: { enum: ["business", "person"] },
    // SchCP §7.7: a person's calendar names its owner's principal (checked in parse-config.ts).
    owner: str,
    timezone: str,
    domain: { type: ["string", "null"], format: "hostname" },
    url: { type: "string", format: "uri" },
    address: closed({ street: str, locality: str, region: str, postal_code: str, country: str }),
    // Where the business is, for agents to show (OSBP Slot schedule_address, schedule_latitude,
    // schedule_longitude): a one-line address and WGS 84 coordinates, given together.
    location: {
      ...closed({
        address: str,
        latitude: { type: "number", minimum: -90, maximum: 90 },
        longitude: { type: "number", minimum: -180, maximum: 180 },
      }),
      minProperties: 1,
      dependentRequired: { latitude: ["longitude"], longitude: ["latitude"] },
    },
    contact: { ...closed({ phone: str, url: { type: "string", format: "uri" } }), minProperties: 1 },
    connector: closed({ type: str, settings: { type: "object" } }, ["type"]),
    // A calendar host's capacity, hours, services and approver (src/booking/calendar/config.ts
    // reads it, naming its fields).
    calendar: { type: "object" },
    policies,
    services: { type: "array", items: service },
    trust,
    brand,
  },
  ["id", "name", "timezone", "connector"],
);

const HOSTS_CONFIG_SCHEMA: Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://booking-gateway.local/schemas/hosts-config.json",
  ...closed({ $schema: { type: "string" }, hosts: { type: "array", items: host } }, ["hosts"]),
};

let validate: ReturnType<Ajv2020["compile"]> | undefined;

function validator() {
  if (validate !== undefined) return validate;
  const ajv = new Ajv2020({
    allErrors: false,
    strict: true,
    allowUnionTypes: true,
    validateFormats: true,
    unicodeRegExp: true,
    // The failing schema on each error: an unknown member is answered with the known ones.
    verbose: true,
  });
  ajv.addFormat("uri", fullFormats.uri);
  ajv.addFormat("hostname", fullFormats.hostname);
  validate = ajv.compile(HOSTS_CONFIG_SCHEMA);
  return validate;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "additionalProperties":
      return unknownSetting(String(p.additionalProperty), e.parentSchema);
    case "required":
      return "is required";
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "pattern":
      return e.instancePath.endsWith("/id")
        ? "must be lower-case letters, digits, - and _ (it is part of URLs)"
        : 'must be "HH:MM" (00:00 to 23:59)';
    default:
      return e.message ?? "is invalid";
  }
}

/** "unknown setting", with the nearest known one, or the known ones when none is near. */
function unknownSetting(name: string, schema: unknown): string {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  const known = Object.keys(properties ?? {}).filter((k) => k !== "$schema");
  const near = didYouMean(name, known);
  if (near !== "" || known.length === 0) return `unknown setting${near}`;
  return `unknown setting (the settings here: ${known.join(", ")})`;
}

/** The structure check: the first problem, its field a JSON pointer ("/hosts/1/policies"). */
export function checkConfigShape(json: unknown): Result<void, FieldError> {
  const fn = validator();
  if (fn(json)) return ok(undefined);
  const e = fn.errors?.[0];
  if (e === undefined) return err(fieldError("invalid_config", "", "the hosts config is not valid"));
  const p = e.params as Record<string, unknown>;
  // A required setting written wrong ("timeZone") is missing only because of the slip: name it.
  const slip = typeof p.missingProperty === "string" ? misspelt(json, e, p.missingProperty) : undefined;
  if (slip !== undefined) {
    const field = childPointer(e.instancePath, slip);
    return err(
      fieldError(
        "invalid_config",
        field,
        `${field}: unknown setting; did you mean \`${String(p.missingProperty)}\`?`,
      ),
    );
  }
  const member = p.additionalProperty ?? p.missingProperty;
  const field = typeof member === "string" ? childPointer(e.instancePath, member) : e.instancePath;
  return err(fieldError("invalid_config", field, `${field || "the config"}: ${describe(e)}`));
}

/** A member of the object at the error that is not a setting there and is nearest `missing`. */
function misspelt(json: unknown, e: ErrorObject, missing: string): string | undefined {
  let at: unknown = json;
  for (const token of e.instancePath.split("/").slice(1)) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  }
  if (typeof at !== "object" || at === null) return undefined;
  const known = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return Object.keys(at).find((k) => !Object.hasOwn(known, k) && nearestName(k, [missing]) !== undefined);
}
