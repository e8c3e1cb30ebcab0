/**
 * The signed offer and the wire Hold (SchCP §5.2), built from the neutral contract the core
 * priced. The offer states every term that governs the booking: who the host is, the
 * service, the slot in the host's zone, the all-in price when there is one, retention, the
 * place, the party, and for a host_approval host the latest time it will answer. It is signed
 * once, with the host's first key, and the same bytes are returned for the life of the hold.
 */
import { toSchcpMoney } from "../../protocol/money/index.js";
import { signOffer } from "../../protocol/schcp/offer/index.js";
import type { Hold, OfferClaims } from "../../protocol/schcp/types.js";
import { formatInstant } from "../../protocol/time/index.js";
import type { HeldTerms, HostConfig, HostRuntime } from "../../booking/api.js";
import type { BookingContract } from "../../booking/contract.js";

const ADDRESS_ORDER = ["street", "locality", "region", "postal_code", "country"] as const;

/** §5.2 host.address: "a one-line postal address". */
function oneLineAddress(address: HostConfig["address"]): string | undefined {
  if (address === undefined) return undefined;
  const parts = ADDRESS_ORDER.map((k) => address[k]).filter((v): v is string => v !== undefined && v !== "");
  return parts.length > 0 ? parts.join(", ") : undefined;
}

/**
 * §5.2 offer host block. A person's calendar (§7.7) says kind "person" and names its owner's
 * principal as owner, so a meeting contract can name them (§5.12); config requires the owner
 * for every person host (hosts/parse-config.ts).
 */
function offerHost(config: HostConfig): NonNullable<OfferClaims["host"]> {
  const address = oneLineAddress(config.address);
  return {
    name: config.name,
    tz: config.timezone,
    ...(config.domain !== null && { domain: config.domain }),
    ...(address !== undefined && { address }),
    ...(config.kind === "business" && { kind: "business" as const }),
    ...(config.kind === "person" &&
      config.owner !== undefined && { kind: "person" as const, owner: config.owner }),
  };
}

/**
 * The claims of the offer for `held`. A change offer names its booking and, as prev, the hash
 * of the booking's current contract; null when that booking was made through another edge and
 * stands on no SchCP offer (§5.7).
 */
export function offerClaims(runtime: HostRuntime, held: HeldTerms, prev?: string | null): OfferClaims {
  const tz = runtime.config.timezone;
  const t = held.contract;
  return {
    v: "0.4",
    kind: t.kind,
    iss: runtime.config.id,
    // A booking offer belongs to its hold; a change offer to its booking, chained by prev (§5.7).
    ...(t.kind === "booking"
      ? { hold_id: held.holdId }
      : { booking_id: held.booking?.bookingId ?? "", prev: prev ?? null }),
    iat: Math.floor(held.now / 1000),
    exp: Math.floor(held.expiresAt / 1000),
    host: offerHost(runtime.config),
    service: { id: t.service.id, name: t.service.name },
    slot: {
      start: formatInstant(t.start, tz),
      ...(t.end !== undefined && { end: formatInstant(t.end, tz) }),
    },
    ...(t.end === undefined && { open_end: true as const }),
    ...(t.price !== null && { price: toSchcpMoney(t.price) }),
    ...(t.total !== null && {
      total: toSchcpMoney(t.total),
      lines: t.lines.map((l) => ({ kind: l.kind, label: l.label, amount: toSchcpMoney(l.amount) })),
    }),
    retention: t.retention,
    // §5.10: "states it in every offer (reconfirm), so it is part of the contract".
    ...(t.reconfirm !== undefined && {
      reconfirm: { before: t.reconfirm.before, default: t.reconfirm.default },
    }),
    ...(t.resource !== undefined && { resource: t.resource.id, resource_name: t.resource.name }),
    ...(t.place !== undefined && { place: { ...t.place } }),
    party_size: t.partySize,
    ...(t.approvalBy !== undefined && { approval_by: formatInstant(t.approvalBy) }),
  };
}

/** Signs once with the first key. Our own claims failing the offer rules is a programmer error. */
export async function signOfferOnce(runtime: HostRuntime, claims: OfferClaims): Promise<string> {
  const key = runtime.keys[0];
  if (key === undefined) throw new Error(`host ${runtime.config.id} has no signing key`);
  const signed = await signOffer(claims, key);
  if (!signed.ok)
    throw new Error(`host ${runtime.config.id} built an invalid offer: ${signed.error.message}`);
  return signed.value;
}

/** The wire Hold as created (status held); GET and DELETE re-derive status and expiry. */
export function wireHold(
  runtime: HostRuntime,
  holdId: string,
  t: BookingContract,
  expiresAt: number,
  offer: string,
): Hold {
  const tz = runtime.config.timezone;
  return {
    hold_id: holdId,
    status: "held",
    service_id: t.service.id,
    start: formatInstant(t.start, tz),
    ...(t.end !== undefined ? { end: formatInstant(t.end, tz) } : { open_end: true as const }),
    expires_at: formatInstant(expiresAt),
    ...(t.price !== null &&
      t.total !== null && { price: toSchcpMoney(t.price), total: toSchcpMoney(t.total) }),
    party_size: t.partySize,
    ...(t.place !== undefined && { place: { ...t.place } }),
    ...(t.resource !== undefined && { resource: t.resource.id, resource_name: t.resource.name }),
    offer,
  };
}
