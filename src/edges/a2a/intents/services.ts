/**
 * list_services (A2A §1): the host's catalog as the spec's service objects. Prices are the
 * core's minor units written exactly in whole currency units (ISO 4217 exponents:
 * src/protocol/money), as numeric strings: "40000" CLP, "89.27" CAD. A service without a
 * price answers null (the spec has no "free" form and 0 would be a lie).
 *
 * Which amount `price` is. A2A §1 Service Object Fields: `price` is "Base price in the
 * smallest useful unit", with `currency` and `price_unit`; the spec has no member for taxes or
 * fees, and a booked session (§3 Response Fields) carries no amount at all. So `price` is the
 * one amount a Servicialo agent can show its human before booking ("Autonomous Agent Flow",
 * Turn 3: "Servicio: ... ($40.000 CLP) ... Confirmo?"), and it must be what the business will
 * record: the all-in amount of one booking (SchCP §5.2 "The all-in total": the service line,
 * its mandatory fees and the host's taxes; "89.27" CAD for a 79.00 oil change with 13% HST),
 * "base" only in that no time-dependent surcharge is in it. Surcharges depend on the start, so
 * each availability slot carries its own all-in `price` beside the spec's members (readers
 * ignore unknown members), and book_session's session carries the total the booking recorded.
 */
import type { HostRuntime } from "../../../booking/api.js";
import { confirmationOf } from "../../../booking/discovery/index.js";
import type { CatalogService } from "../../../booking/catalog.js";
import { allInPrice } from "../../../booking/pricing/index.js";
import { formatDecimalAmount, type Money } from "../../../protocol/money/index.js";
import { answer, SERVICIALO_VERSION } from "./wire.js";
import type { IntentOutcome } from "../port.js";

/** A2A §1 modality from the gateway's place rule: the guest's place is a home visit. */
function modalityOf(host: HostRuntime, serviceId: string): "presencial" | "a_domicilio" {
  const rules = host.config.services.find((r) => r.serviceId === serviceId);
  return rules?.location === "guest" ? "a_domicilio" : "presencial";
}

/** Whole minutes, or null for an open-ended service. */
export const durationMinutes = (s: CatalogService): number | null =>
  s.duration === "open" ? null : Math.round(s.duration / 60_000);

/** The core's all-in amount (booking/pricing/all-in.ts), the one every edge shows. */
export { allInPrice };

/** A2A §1's numeric string for an amount ("89.27"), or null for no price. */
export const priceText = (m: Money | undefined): string | null =>
  m === undefined ? null : formatDecimalAmount(m.minor, m.currency);

export function serviceObject(host: HostRuntime, s: CatalogService, now: number): Record<string, unknown> {
  return {
    id: s.id,
    name: s.name,
    description: null,
    price: priceText(allInPrice(host, s, now)),
    currency: s.price?.currency ?? host.catalog.organization.currency ?? null,
    price_unit: "servicio",
    modality: modalityOf(host, s.id),
    duration_minutes: durationMinutes(s),
    category: null,
    requirements: [],
    expected_outcome: null,
    tags: [],
    suggested_frequency: null,
    treatment_length: null,
  };
}

/** Services the gateway offers agents: not routed to a consultation workflow upstream. */
export const publicServices = (host: HostRuntime): readonly CatalogService[] =>
  host.catalog.services.filter((s) => s.requiresConsultation !== true);

export function listServices(host: HostRuntime, now: number): IntentOutcome {
  return answer(200, {
    servicialo_version: SERVICIALO_VERSION,
    // `confirmation` (not in A2A §1; readers ignore unknown members) says whether the business
    // accepts each booking itself, so a Servicialo client (another gateway) can say so too.
    organization: { name: host.config.name, slug: host.config.id, confirmation: confirmationOf(host) },
    services: publicServices(host).map((s) => serviceObject(host, s, now)),
  });
}
