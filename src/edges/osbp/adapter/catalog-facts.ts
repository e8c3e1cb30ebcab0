/**
 * What the platform catalog says, in OSBP terms: which service a call means, who its provider
 * is, and the Service (service.describe) and Policy (policy.explain) objects.
 *
 * Schedule rule: the Connector port's catalog describes ONE location (one organization, one
 * zone), so the create-ready schedule_id is the organization id and its display name the
 * organization name. A connector for a multi-location platform would need a location list in
 * the port first; until then any other schedule_id is `schedule_not_found`.
 *
 * Provider rule: the OSBP Provider is the staff resource (CatalogResource.staff) whose time a
 * booking binds. A service needs at most one staff requirement for the v0.1.0 topology;
 * rooms, bays and equipment are assigned at create and never appear on a slot.
 */
import type { Catalog, CatalogResource, CatalogService } from "../../../booking/catalog.js";
import type { Money, OsbpMoney } from "../../../protocol/money/index.js";
import type {
  Policy,
  PolicyOrganization,
  Problem,
  ScheduleHours,
  Service,
  VerificationMethod,
} from "../../../protocol/osbp/index.js";
import { err, ok, type Result } from "../../../protocol/result.js";
import { formatOsbpDuration } from "../../../protocol/time/index.js";
import { adapterProblem } from "./problems.js";

export interface ServiceDefaults {
  readonly serviceId?: string;
  readonly scheduleId?: string;
}

/** How many service ids a service_required message lists before "and N more". */
const LISTED_IDS = 20;

/**
 * The service a call means: the given id, else the configured default, else the catalog's only
 * service. Without one, service_required says how to choose: OSBP v0.1.0 has no list tool, so
 * the message lists the service ids (ids only: names are merchant text) and points to the MCP
 * server instructions, which name each service with its duration and price.
 */
export function resolveService(
  catalog: Catalog,
  serviceId: string | undefined,
  defaults: ServiceDefaults,
): Result<CatalogService, Problem> {
  const id =
    serviceId ?? defaults.serviceId ?? (catalog.services.length === 1 ? catalog.services[0]?.id : undefined);
  if (id === undefined) {
    const ids = catalog.services.map((s) => JSON.stringify(s.id));
    const more = ids.length > LISTED_IDS ? ` and ${ids.length - LISTED_IDS} more` : "";
    return err(
      adapterProblem(
        "service_required",
        "A service_id is required: this business offers several services and no default service is configured. " +
          `Choose one of: ${ids.slice(0, LISTED_IDS).join(", ")}${more}; then call service.describe ` +
          "(osbp_service_describe) with that service_id. The MCP server instructions name each service " +
          "with its duration and price.",
      ),
    );
  }
  const service = catalog.services.find((s) => s.id === id);
  return service === undefined
    ? err(adapterProblem("service_not_found", `No service "${id}" (service_id) is offered by this business.`))
    : ok(service);
}

/** The create-ready schedule id of the single-location catalog (see the file comment). */
export const scheduleIdOf = (catalog: Catalog): string => catalog.organization.id;

export function checkSchedule(
  catalog: Catalog,
  scheduleId: string | undefined,
  defaults: ServiceDefaults,
): Problem | undefined {
  const id = scheduleId ?? defaults.scheduleId ?? scheduleIdOf(catalog);
  return id === scheduleIdOf(catalog)
    ? undefined
    : adapterProblem("schedule_not_found", `No schedule "${id}" (schedule_id) exists at this business.`);
}

export type StaffShape =
  /** Providers: the staff resources of the service's one staff requirement, catalog order. */
  | { readonly kind: "provider"; readonly type: string; readonly providers: readonly CatalogResource[] }
  /** No person's time is bound (a self-serve bay, a room): slots carry no provider_id. */
  | { readonly kind: "none" };

/** Who provides a service, or unsupported_service when v0.1.0 slots cannot represent it. */
export function staffShape(catalog: Catalog, service: CatalogService): Result<StaffShape, Problem> {
  if (service.duration === "open") {
    return err(
      adapterProblem(
        "unsupported_service",
        "This service is open-ended (no fixed duration); OSBP v0.1.0 slots need one. Use handoff.request.",
      ),
    );
  }
  const staffTypes = new Set(catalog.resources.filter((r) => r.staff === true).map((r) => r.type));
  const staffed = service.requires.filter((q) => staffTypes.has(q.resourceType));
  if (staffed.length > 1) {
    // OSBP "Known Limitations": fail closed rather than hide a second person's time.
    return err(
      adapterProblem(
        "unsupported_service",
        "This service binds more than one staff member; OSBP v0.1.0 slots carry one provider. Use handoff.request.",
      ),
    );
  }
  const first = staffed[0];
  if (first === undefined) return ok({ kind: "none" });
  const providers = catalog.resources.filter((r) => r.staff === true && r.type === first.resourceType);
  return ok({ kind: "provider", type: first.resourceType, providers });
}

/**
 * The provider named by a call, when the service has one and this is one of its staff. An
 * empty id names no provider (the published schema allows it): the slot then has none.
 */
export function resolveProvider(
  shape: StaffShape,
  providerId: string | undefined,
): Result<CatalogResource | undefined, Problem> {
  if (providerId === undefined || providerId === "") return ok(undefined);
  const found = shape.kind === "provider" ? shape.providers.find((p) => p.id === providerId) : undefined;
  return found === undefined
    ? err(
        adapterProblem(
          "provider_not_found",
          `No provider "${providerId}" (provider_id) provides this service.`,
        ),
      )
    : ok(found);
}

/** Operating hours in the OSBP form; the port already uses ISO weekdays and "HH:MM" (24:00 kept: ISO 8601 end of day). */
export const scheduleHoursOf = (r: CatalogResource): ScheduleHours[] =>
  r.hours.map((p) => ({ day: p.day, open: p.open, close: p.close }));

/** Connector Money is already integer minor units (src/protocol/money): passed through, never scaled. */
export const fixedMoney = (m: Money): OsbpMoney => ({
  amount_minor: m.minor,
  currency: m.currency,
  type: "fixed",
});

/**
 * The service's price: the platform's listed price (taxes and add-on fee lines are not folded
 * in, as a platform lists a service). A non-fixed priceType carries no amount_minor (OSBP
 * "Money"); its currency is the price's or the organization's. No price at all: absent.
 */
export function priceOf(catalog: Catalog, service: CatalogService): OsbpMoney | undefined {
  const type = service.priceType ?? "fixed";
  if (type === "fixed") return service.price === undefined ? undefined : fixedMoney(service.price);
  const currency = service.price?.currency ?? catalog.organization.currency;
  return currency === undefined ? undefined : { currency, type };
}

/**
 * service.describe. With `allIn`, a fixed price is the all-in amount the business records for
 * one booking (fees and taxes; time-dependent surcharges only on a slot's own price), so the
 * amount an agent reads first, and sets a mandate's max_price from, is the one booked.
 */
export function toService(
  catalog: Catalog,
  service: CatalogService,
  allIn?: (service: CatalogService) => Money | undefined,
): Service {
  const out: Service = {
    id: service.id,
    name: service.name,
    requires_consultation: service.requiresConsultation === true,
  };
  if (service.duration !== "open") out.duration = formatOsbpDuration(service.duration);
  const listed = priceOf(catalog, service);
  const total = listed?.amount_minor !== undefined ? allIn?.(service) : undefined;
  const price = total !== undefined ? fixedMoney(total) : listed;
  if (price !== undefined) out.price = price;
  return out;
}

/**
 * The organization block. Its currency is required on the wire: the catalog's, else the
 * service price's; without either the block is left out rather than guessed.
 */
function organizationOf(catalog: Catalog, service: CatalogService): PolicyOrganization | undefined {
  const o = catalog.organization;
  const currency = o.currency ?? service.price?.currency;
  if (currency === undefined) return undefined;
  const out: PolicyOrganization = { id: o.id, name: o.name, timezone: o.timezone, currency };
  if (o.country !== undefined) out.country = o.country;
  return out;
}

/**
 * policy.explain.
 *
 * payment_requirement: a missing CatalogService.payment means the connector did not say, not
 * that the platform requires nothing, so it is "unknown" and booking.create fails closed (OSBP
 * "Security and Privacy": "Unknown payment requirements ... refuse or hand off"). A connector
 * for a platform without prepayment states { requirement: "none" } explicitly.
 *
 * Fees and the deposit appear only when the platform reports an amount (OSBP "policy.explain":
 * "They appear only when the platform reports a fee amount, and are omitted otherwise").
 *
 * verification_method: the catalog's method, "unknown" when it names none.
 */
export function toPolicy(catalog: Catalog, service: CatalogService): Policy {
  const out: Policy = {
    service_id: service.id,
    payment_requirement: service.payment?.requirement ?? "unknown",
  };
  const c = service.cancellation;
  if (c !== undefined) {
    out.cancellation_enabled = c.enabled;
    if (c.windowMs !== undefined) out.cancellation_window = formatOsbpDuration(c.windowMs);
    if (c.note !== undefined) out.cancellation_note = c.note;
    if (c.lateGraceMs !== undefined) out.late_grace = formatOsbpDuration(c.lateGraceMs);
  }
  if (service.cancellationFee !== undefined) out.cancellation_fee = fixedMoney(service.cancellationFee);
  if (service.noShowFee !== undefined) out.no_show_fee = fixedMoney(service.noShowFee);
  if (service.payment?.deposit !== undefined) out.deposit = fixedMoney(service.payment.deposit);
  out.verification_method = verificationMethodOf(catalog);
  const organization = organizationOf(catalog, service);
  if (organization !== undefined) out.organization = organization;
  return out;
}

const verificationMethodOf = (catalog: Catalog): VerificationMethod =>
  catalog.verificationMethod ?? "unknown";
