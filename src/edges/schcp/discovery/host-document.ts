/**
 * A host's discovery document (SchCP §2.1), served at {origin}/hosts/{hostId}/scheduling.json.
 *
 * - endpoint: {origin}/schcp/v0/{hostId}, from the configured public origin (§3.2), never a
 *   request's Host header;
 * - operator: the gateway names itself for every host it serves. The endpoint is on the
 *   gateway's origin, so even a host with its own domain is only authorized through §2.2
 *   rule 2 (both sides claim the relationship);
 * - keys: every signing key with its kid and use "sig"; the first one signs;
 * - policies: as the offers will state them, with the contact list never published (§7.8);
 * - taxes: the tax rules the lines are computed with (§5.2 "tax rules in discovery"; the
 *   schema names no member for them, and discovery is open, so they go in "taxes");
 * - trust.attesters (§2.1, §7.5) with their keys, and "attestations" in capabilities, when the
 *   host trusts any: a host that trusts none publishes neither and behaves as in v0.1;
 * - brand (§2.4) with its locations; a location the config gives no discovery URL is one this
 *   gateway serves, published at this gateway's URL for it (hostDiscoveryUrl).
 */
import type { DiscoveryDocument, DiscoveryPolicies, Jwk } from "../../../protocol/schcp/types.js";
import { formatSchcpDuration } from "../../../protocol/time/index.js";
import type { HostBrand, HostPolicies, HostRuntime } from "../../../booking/api.js";
import { confirmationOf } from "../../../booking/discovery/confirmation.js";
import { discoveryService } from "./services.js";
import { takesMeetings } from "../../../booking/meetings/host.js";

export interface DiscoveryOptions {
  /** The configured public origin, e.g. "https://gateway.example" (https for a valid document). */
  readonly publicOrigin: string;
  readonly operatorName?: string;
}

const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

const originOf = (publicOrigin: string): string => new URL(publicOrigin).origin;
const hostEndpoint = (publicOrigin: string, hostId: string): string =>
  `${originOf(publicOrigin)}/schcp/v0/${encodeURIComponent(hostId)}`;
export const hostDiscoveryUrl = (publicOrigin: string, hostId: string): string =>
  `${originOf(publicOrigin)}/hosts/${encodeURIComponent(hostId)}/scheduling.json`;

/** §2.1 capabilities this gateway implements, plus open_end where a service is open-ended. */
const BASE_CAPABILITIES = [
  "availability",
  "holds",
  "bookings",
  "cancel",
  "change_offers",
  "webhooks",
  "proposals",
  "closed_mandates",
  "all_in_totals",
] as const;

function publishedPolicies(
  p: HostPolicies,
  confirmation: DiscoveryPolicies["confirmation"],
): DiscoveryPolicies {
  return {
    holds: {
      max_ttl: formatSchcpDuration(p.holds.maxTtlMs),
      max_active_per_agent: p.holds.maxActivePerAgent,
      requires_mandate: p.holds.requiresMandate,
      max_active_unproven: p.holds.maxActiveUnproven,
      max_active_per_attester: p.holds.maxActivePerAttester,
    },
    confirmation,
    closed_mandate: p.closedMandate,
    retention: p.retention,
    // §7.8: "discovery says only that access is by contacts".
    access: p.access,
    ...(p.data !== undefined && {
      data: {
        free_text_notes: p.data.freeTextNotes,
        ...(p.data.intakeUrl !== undefined && { intake_url: p.data.intakeUrl }),
      },
    }),
    ...(p.serviceArea !== undefined && {
      service_area: { country: p.serviceArea.country, postal_prefixes: [...p.serviceArea.postalPrefixes] },
    }),
    ...(p.walkInReserve !== undefined &&
      p.walkInReserve.length > 0 && {
        walk_in_reserve: p.walkInReserve.map((r) => ({
          resource_type: r.resourceType,
          keep: r.keep,
          ...(r.days !== undefined && { days: r.days.map((d) => WEEKDAYS[d - 1]) }),
        })),
      }),
    // §5.10: how long a required participant may be given to answer, and the reconfirmation
    // every offer states.
    ...(p.tentative !== undefined && { tentative: { max_confirm_within: p.tentative.maxConfirmWithin } }),
    ...(p.reconfirm !== undefined && {
      reconfirm: { before: p.reconfirm.before, default: p.reconfirm.default },
    }),
    // §5.9 policies.waitlist, with the waitlist capability below.
    ...(p.waitlist !== undefined && {
      waitlist: {
        offer_ttl: formatSchcpDuration(p.waitlist.offerTtlMs),
        max_entries_per_agent: p.waitlist.maxEntriesPerAgent,
      },
    }),
  };
}

export function hostDiscoveryDocument(runtime: HostRuntime, options: DiscoveryOptions): DiscoveryDocument {
  const { config, catalog, keys } = runtime;
  const rulesFor = (id: string) => config.services.find((s) => s.serviceId === id);
  const openEnded = catalog.services.some((s) => s.duration === "open");
  const phone = config.contact?.phone;
  const url = config.url ?? config.contact?.url;
  const attesters = config.trust?.attesters ?? [];
  return {
    schcp: "0.4",
    host: {
      id: config.id,
      name: config.name,
      kind: config.kind,
      timezone: config.timezone,
      ...(url !== undefined && { url }),
      ...(phone !== undefined && { phone }),
      ...(config.address !== undefined && { address: { ...config.address } }),
      // §9.2: the contact remedy repeats what discovery publishes.
      ...(config.contact !== undefined && { contact: { ...config.contact } }),
    },
    endpoint: hostEndpoint(options.publicOrigin, config.id),
    operator: {
      domain: new URL(options.publicOrigin).hostname,
      ...(options.operatorName !== undefined && { name: options.operatorName }),
    },
    keys: keys.map((k): Jwk & { kid: string } => ({ ...k.publicJwk, kid: k.kid, use: "sig" })),
    services: catalog.services.map((s) => discoveryService(s, rulesFor(s.id), catalog.resources)),
    // The host's policy, or its upstream's own approval (confirmation.ts).
    policies: publishedPolicies(config.policies, confirmationOf(runtime)),
    capabilities: [
      ...BASE_CAPABILITIES,
      ...(attesters.length > 0 ? ["attestations"] : []),
      ...(config.policies.waitlist !== undefined ? ["waitlist"] : []),
      ...(openEnded ? ["open_end"] : []),
      // §2.1, §5.10: a host with policies.tentative takes required participants.
      ...(config.policies.tentative !== undefined ? ["participants"] : []),
      // §2.1, §5.12: every person's calendar takes part in meetings; a business opts in.
      ...(takesMeetings(config) ? ["meetings"] : []),
    ],
    // §3.4: "dc+sd-jwt" only where the host accepts SD-JWT VC mandates (auth.ts).
    auth: {
      request_signing: "rfc9421-ed25519",
      mandates: ["schcp-mandate+jwt", ...(config.policies.sdJwtMandates === true ? ["dc+sd-jwt"] : [])],
    },
    ...(attesters.length > 0 && {
      trust: {
        attesters: attesters.map((a) => ({
          id: a.id,
          ...(a.name !== undefined && { name: a.name }),
          keys: a.keys.map((k): Jwk => ({ ...k })),
        })),
      },
    }),
    ...(config.brand !== undefined && { brand: publishedBrand(config.brand, options.publicOrigin) }),
    ...(catalog.taxes.length > 0 && {
      taxes: catalog.taxes.map((t) => ({ label: t.label, percent: Number(t.percent) })),
    }),
  };
}

/** §2.4: the brand as published, every location with an absolute discovery URL. */
function publishedBrand(brand: HostBrand, publicOrigin: string): NonNullable<DiscoveryDocument["brand"]> {
  return {
    id: brand.id,
    name: brand.name,
    locations: brand.locations.map((l) => ({
      host_id: l.hostId,
      ...(l.name !== undefined && { name: l.name }),
      discovery: l.discovery ?? hostDiscoveryUrl(publicOrigin, l.hostId),
    })),
  };
}
