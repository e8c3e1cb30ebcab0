/**
 * parseHostsConfig: the hosts config file (config-schema.ts) to HostConfig[]. Never throws on
 * bad input: the first problem comes back as a FieldError whose field is a JSON pointer into
 * the file and whose message starts with it ("/hosts/1/policies/holds/max_ttl: …").
 */
import { parseSchcpMoney, parsePercent, type Money } from "../../protocol/money/index.js";
import { childPointer, err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { isValidTimeZone, parseRetention, parseSchcpDuration } from "../../protocol/time/index.js";
import type { PlaceLocation } from "../../connectors/port.js";
import { parseEd25519PublicJwk } from "../../protocol/jose/index.js";
import type {
  HostBrand,
  HostConfig,
  HostPolicies,
  ServiceRules,
  Surcharge,
  TrustedAttesterConfig,
} from "../api.js";
import { checkConfigShape } from "./config-schema.js";
import { DEFAULT_POLICIES } from "./defaults.js";
import { DEFAULT_POOL_CAPS } from "../public-pool/port.js";

type Json = Record<string, unknown>;

/** Thrown inside the reader and caught at its one entry: a bad value, already described. */
class ConfigError extends Error {
  constructor(readonly fieldError: FieldError) {
    super(fieldError.message);
  }
}

const fail = (code: string, field: string, why: string): never => {
  throw new ConfigError(fieldError(code, field, `${field}: ${why}`));
};

const PRINCIPAL = /^urn:schcp:principal:jwk-thumbprint:[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

function unwrap<T>(r: Result<T, FieldError>, field: string): T {
  if (r.ok) return r.value;
  return fail(r.error.code, r.error.field || field, r.error.message);
}

const durationMs = (v: unknown, field: string): number => unwrap(parseSchcpDuration(v, field), field);
const positiveMs = (v: unknown, field: string): number => {
  const ms = durationMs(v, field);
  return ms > 0 ? ms : fail("invalid_duration", field, "must be longer than zero");
};
const moneyOf = (v: unknown, field: string): Money => unwrap(parseSchcpMoney(v, field), field);

export function parseHostsConfig(json: unknown): Result<HostConfig[], FieldError> {
  const shape = checkConfigShape(json);
  if (!shape.ok) return shape;
  try {
    const hosts = ((json as Json).hosts as Json[]).map((h, i) => readHost(h, childPointer("/hosts", i)));
    const seen = new Set<string>();
    hosts.forEach((h, i) => {
      if (seen.has(h.id)) fail("duplicate_id", `/hosts/${i}/id`, `host id "${h.id}" is used twice`);
      seen.add(h.id);
    });
    return ok(hosts);
  } catch (e) {
    if (e instanceof ConfigError) return err(e.fieldError);
    throw e;
  }
}

function readHost(h: Json, at: string): HostConfig {
  const timezone = h.timezone as string;
  if (!isValidTimeZone(timezone)) fail("invalid_time_zone", `${at}/timezone`, "must be an IANA time zone");
  const services = ((h.services as Json[] | undefined) ?? []).map((s, i) =>
    readService(s, `${at}/services/${i}`),
  );
  services.forEach((s, i) => {
    if (services.findIndex((o) => o.serviceId === s.serviceId) !== i) {
      fail("duplicate_id", `${at}/services/${i}/service_id`, `service "${s.serviceId}" has rules twice`);
    }
  });
  const connector = h.connector as Json;
  const kind = (h.kind as HostConfig["kind"] | undefined) ?? "business";
  const owner = readOwner(h.owner, kind, at);
  return {
    id: h.id as string,
    name: h.name as string,
    kind,
    ...(owner !== undefined && { owner }),
    timezone,
    domain: (h.domain as string | null | undefined) ?? null,
    ...(h.url !== undefined && { url: h.url as string }),
    ...(h.address !== undefined && { address: h.address as Record<string, string> }),
    ...(h.location !== undefined && { location: h.location as PlaceLocation }),
    ...(h.contact !== undefined && { contact: h.contact as { phone?: string; url?: string } }),
    connector: { type: connector.type as string, settings: (connector.settings as Json | undefined) ?? {} },
    policies: readPolicies(
      (h.policies as Json | undefined) ?? {},
      `${at}/policies`,
      h.calendar !== undefined,
    ),
    services,
    ...(h.calendar !== undefined && { calendar: h.calendar }),
    ...(h.trust !== undefined && { trust: readTrust(h.trust as Json, `${at}/trust`) }),
    ...(h.brand !== undefined && { brand: readBrand(h.brand as Json, `${at}/brand`) }),
  };
}

/**
 * SchCP §7.7: "The host configuration names its owner, the person's own principal". Required for
 * a person's calendar (its offers name host.owner, §5.2); refused for a business, which has no
 * owner in SchCP's sense and whose offers never name one.
 */
function readOwner(v: unknown, kind: HostConfig["kind"], at: string): string | undefined {
  const field = `${at}/owner`;
  if (kind === "person") {
    if (v === undefined)
      return fail("required", field, 'a host of kind "person" names its owner\'s principal');
    if (typeof v !== "string" || !PRINCIPAL.test(v)) {
      return fail("invalid_principal", field, "must be urn:schcp:principal:jwk-thumbprint:<thumbprint>");
    }
    return v;
  }
  if (v !== undefined) return fail("not_allowed", field, 'only a host of kind "person" has an owner');
  return undefined;
}

/** §2.1 trust.attesters (§7.5): ids unique, every key an Ed25519 public JWK. */
function readTrust(t: Json, at: string): { attesters: TrustedAttesterConfig[] } {
  const attesters = (t.attesters as Json[]).map((a, i): TrustedAttesterConfig => {
    const field = `${at}/attesters/${i}`;
    const keys = (a.keys as unknown[]).map((k, j) =>
      unwrap(
        parseEd25519PublicJwk(k, `${field}/keys/${j}`, { allowKid: true, allowUse: true }),
        `${field}/keys/${j}`,
      ),
    );
    return { id: a.id as string, ...(a.name !== undefined && { name: a.name as string }), keys };
  });
  attesters.forEach((a, i) => {
    if (attesters.findIndex((o) => o.id === a.id) !== i) {
      fail("duplicate_id", `${at}/attesters/${i}/id`, `attester "${a.id}" is listed twice`);
    }
  });
  return { attesters };
}

/** §2.4 brand: its locations, each host id once. */
function readBrand(b: Json, at: string): HostBrand {
  const locations = ((b.locations as Json[] | undefined) ?? []).map((l) => ({
    hostId: l.host_id as string,
    ...(l.name !== undefined && { name: l.name as string }),
    ...(l.discovery !== undefined && { discovery: l.discovery as string }),
  }));
  locations.forEach((l, i) => {
    if (locations.findIndex((o) => o.hostId === l.hostId) !== i) {
      fail("duplicate_id", `${at}/locations/${i}/host_id`, `location "${l.hostId}" is listed twice`);
    }
  });
  return { id: b.id as string, name: b.name as string, locations };
}

/** A calendar host approves each booking unless its policies say otherwise (SchCP §10). */
function readPolicies(p: Json, at: string, calendarHost = false): HostPolicies {
  const d = DEFAULT_POLICIES;
  const holds = (p.holds as Json | undefined) ?? {};
  const pub = (p.public_booking as Json | undefined) ?? {};
  const retention = p.retention ?? d.retention;
  unwrap(parseRetention(retention, `${at}/retention`), `${at}/retention`);
  const contacts = p.contacts as string[] | undefined;
  contacts?.forEach((c, i) => {
    if (!PRINCIPAL.test(c)) fail("invalid_principal", `${at}/contacts/${i}`, "must be a principal id urn");
  });
  const area = p.service_area as { country: string; postal_prefixes?: string[] } | undefined;
  const reserve = p.walk_in_reserve as
    Array<{ resource_type: string; keep: number; days?: number[] }> | undefined;
  const data = p.data as { free_text_notes?: "accept" | "refuse"; intake_url?: string } | undefined;
  const num = (v: unknown, fallback: number) => (v as number | undefined) ?? fallback;
  const tentative = p.tentative as { max_confirm_within: string } | undefined;
  const reconfirm = p.reconfirm as { before: string; default?: "release" | "keep" } | undefined;
  const waitlist = p.waitlist as { offer_ttl: unknown; max_entries_per_agent?: number } | undefined;
  return {
    holds: {
      maxTtlMs:
        holds.max_ttl === undefined ? d.holds.maxTtlMs : positiveMs(holds.max_ttl, `${at}/holds/max_ttl`),
      maxActivePerAgent: num(holds.max_active_per_agent, d.holds.maxActivePerAgent),
      requiresMandate: (holds.requires_mandate as boolean | undefined) ?? d.holds.requiresMandate,
      maxActiveUnproven: num(holds.max_active_unproven, d.holds.maxActiveUnproven),
      maxActivePerAttester: num(holds.max_active_per_attester, d.holds.maxActivePerAttester),
    },
    confirmation:
      (p.confirmation as HostPolicies["confirmation"] | undefined) ??
      (calendarHost ? "host_approval" : d.confirmation),
    closedMandate: (p.closed_mandate as HostPolicies["closedMandate"] | undefined) ?? d.closedMandate,
    retention: retention as string,
    access: (p.access as HostPolicies["access"] | undefined) ?? d.access,
    ...(contacts !== undefined && { contacts }),
    ...(data !== undefined && {
      data: {
        freeTextNotes: data.free_text_notes ?? "accept",
        ...(data.intake_url !== undefined && { intakeUrl: data.intake_url }),
      },
    }),
    ...(area !== undefined && {
      serviceArea: { country: area.country, postalPrefixes: area.postal_prefixes ?? [] },
    }),
    ...(reserve !== undefined && {
      walkInReserve: reserve.map((r) => ({
        resourceType: r.resource_type,
        keep: r.keep,
        ...(r.days !== undefined && { days: r.days }),
      })),
    }),
    approvalTimeoutMs:
      p.approval_timeout === undefined
        ? d.approvalTimeoutMs
        : positiveMs(p.approval_timeout, `${at}/approval_timeout`),
    allowWildcardAudience: (p.allow_wildcard_audience as boolean | undefined) ?? d.allowWildcardAudience,
    sdJwtMandates: (p.sd_jwt_mandates as boolean | undefined) ?? d.sdJwtMandates ?? false,
    horizonMs: p.horizon === undefined ? d.horizonMs : positiveMs(p.horizon, `${at}/horizon`),
    ...(waitlist !== undefined && {
      waitlist: {
        offerTtlMs: positiveMs(waitlist.offer_ttl, `${at}/waitlist/offer_ttl`),
        // §5.9's example publishes 2.
        maxEntriesPerAgent: waitlist.max_entries_per_agent ?? 2,
      },
    }),
    publicBooking: {
      perHost: num(pub.max_per_host, DEFAULT_POOL_CAPS.perHost),
      perOrigin: num(pub.max_per_origin, DEFAULT_POOL_CAPS.perOrigin),
    },
    ...(tentative !== undefined && {
      tentative: {
        maxConfirmWithin: tentative.max_confirm_within,
        maxConfirmWithinMs: positiveMs(tentative.max_confirm_within, `${at}/tentative/max_confirm_within`),
      },
    }),
    ...(reconfirm !== undefined && {
      reconfirm: {
        before: reconfirm.before,
        beforeMs: positiveMs(reconfirm.before, `${at}/reconfirm/before`),
        default: reconfirm.default ?? "release",
      },
    }),
  };
}

function readService(s: Json, at: string): ServiceRules {
  const w = (s.booking_window as Json | undefined) ?? {};
  const opens = w.opens as { days_ahead: number; at: string } | undefined;
  if (opens !== undefined && w.max_advance !== undefined) {
    // §5.2: a release schedule "replaces max_advance"; stating both would publish two answers.
    fail("conflict", `${at}/booking_window/max_advance`, "a release schedule (opens) replaces max_advance");
  }
  const party = s.party_size as { min: number; max: number } | undefined;
  if (party !== undefined && party.min > party.max) {
    fail("invalid_range", `${at}/party_size/min`, "min is more than max");
  }
  const surcharges = (s.surcharges as Json[] | undefined)?.map((x, i) =>
    readSurcharge(x, `${at}/surcharges/${i}`),
  );
  return {
    serviceId: s.service_id as string,
    ...(w.min_notice !== undefined && {
      minNoticeMs: durationMs(w.min_notice, `${at}/booking_window/min_notice`),
    }),
    ...(w.max_advance !== undefined && {
      maxAdvanceMs: durationMs(w.max_advance, `${at}/booking_window/max_advance`),
    }),
    ...(opens !== undefined && { opens: { daysAhead: opens.days_ahead, at: opens.at } }),
    ...(party !== undefined && { partySize: { min: party.min, max: party.max } }),
    ...(s.location !== undefined && { location: s.location as ServiceRules["location"] }),
    ...(s.eligibility !== undefined && {
      eligibility: (s.eligibility as { guest: "returning" | "new" }).guest,
    }),
    ...(surcharges !== undefined && { surcharges }),
    ...(s.selectable !== undefined && { selectable: s.selectable as boolean }),
  };
}

function readSurcharge(x: Json, at: string): Surcharge {
  if ((x.amount === undefined) === (x.percent === undefined)) {
    fail("invalid_surcharge", at, "a surcharge states exactly one of amount and percent");
  }
  if (x.after !== undefined && x.when !== "after_hours") {
    fail("invalid_surcharge", `${at}/after`, 'after applies to "after_hours" surcharges only');
  }
  let percent: string | undefined;
  if (typeof x.percent === "number")
    percent = unwrap(parsePercent(x.percent, `${at}/percent`), `${at}/percent`);
  else if (typeof x.percent === "string") {
    percent = DECIMAL.test(x.percent)
      ? x.percent
      : fail("invalid_percent", `${at}/percent`, "must be a decimal");
  }
  if (percent !== undefined && !(Number(percent) > 0)) {
    fail("invalid_percent", `${at}/percent`, "must be more than zero");
  }
  return {
    when: x.when as Surcharge["when"],
    label: x.label as string,
    ...(x.amount !== undefined && { amount: moneyOf(x.amount, `${at}/amount`) }),
    ...(percent !== undefined && { percent }),
    ...(x.after !== undefined && { after: x.after as string }),
  };
}
