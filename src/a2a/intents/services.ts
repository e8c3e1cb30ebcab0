/**
 * list_services (A2A §1): the host's catalog as the spec's service objects. Prices are the
 * core's minor units written exactly in whole currency units (ISO 4217 exponents:
 * src/protocol/money), as numeric strings: "40000" CLP, "89.27" CAD. A service without a
 * price answers null (the spec has no "free" form and 0 would be a lie).
 */
import type { HostRuntime } from "../../booking/api.js";
import type { CatalogService } from "../../connectors/port.js";
import { formatDecimalAmount } from "../../protocol/money/index.js";
import { answer, SERVICIALO_VERSION } from "./wire.js";
import type { IntentOutcome } from "../port.js";

/** A2A §1 modality from the gateway's place rule: the guest's place is a home visit. */
export function modalityOf(host: HostRuntime, serviceId: string): "presencial" | "a_domicilio" {
  const rules = host.config.services.find((r) => r.serviceId === serviceId);
  return rules?.location === "guest" ? "a_domicilio" : "presencial";
}

/** Whole minutes, or null for an open-ended service. */
export const durationMinutes = (s: CatalogService): number | null =>
  s.duration === "open" ? null : Math.round(s.duration / 60_000);

export function serviceObject(host: HostRuntime, s: CatalogService): Record<string, unknown> {
  return {
    id: s.id,
    name: s.name,
    description: null,
    price: s.price === undefined ? null : formatDecimalAmount(s.price.minor, s.price.currency),
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

export function listServices(host: HostRuntime): IntentOutcome {
  return answer(200, {
    servicialo_version: SERVICIALO_VERSION,
    organization: { name: host.config.name, slug: host.config.id },
    services: publicServices(host).map((s) => serviceObject(host, s)),
  });
}
