/**
 * The catalog from "1. list_services" (`GET /services`): price is whole currency units as a
 * numeric string, scaled by the ISO 4217 exponent (a currency that is not ISO 4217 leaves it
 * absent); a service without `duration_minutes` is left out; providers come from the host's
 * settings (Servicialo lists them only inside availability answers).
 */
import { fromMajorUnits } from "../../protocol/money/index.js";
import type { Catalog, CatalogService } from "../ports/catalog.js";
import type { ConnectorResult } from "../ports/result.js";
import type { ServicialoContext } from "./context.js";
import { fail, unreadable } from "./results.js";
import type { ServicialoSettings } from "./settings.js";
import { readServices } from "./wire.js";

function serviceOf(
  settings: ServicialoSettings,
  w: NonNullable<ReturnType<typeof readServices>>["services"][number],
): CatalogService | undefined {
  if (w.duration_minutes === null) return undefined;
  let price: CatalogService["price"];
  if (w.price !== undefined && w.currency !== undefined) {
    // "price": whole currency units as a numeric string; scaled by the ISO 4217 exponent.
    const minor = fromMajorUnits(typeof w.price === "string" ? w.price.trim() : w.price, w.currency, "");
    if (minor.ok) price = { minor: minor.value, currency: w.currency };
  }
  return {
    id: w.id,
    name: w.name,
    duration: w.duration_minutes * 60_000,
    bufferAfterMs: 0,
    ...(price !== undefined
      ? { price, pricePer: "booking" as const, priceType: "fixed" as const }
      : { priceType: "unknown" as const }),
    requires:
      settings.providers !== undefined && settings.providers.length > 0 ? [{ resourceType: "person" }] : [],
    ...(settings.paymentRequirement !== undefined
      ? { payment: { requirement: settings.paymentRequirement } }
      : {}),
  };
}

/** Reads the services and remembers each one's listed currency (ctx.currencies). */
export async function readCatalog(ctx: ServicialoContext): Promise<ConnectorResult<Catalog>> {
  const { settings } = ctx;
  const { result } = await ctx.send("GET", "/services");
  if (!result.ok) return result;
  const wire = readServices(result.value.status === 200 ? result.value.body : undefined);
  if (result.value.status === 404) {
    return fail(
      { code: "not_found", message: "Servicialo: organization not found or not public" },
      result.upstream,
    );
  }
  if (wire === undefined) return unreadable("services list", result.upstream);
  const services = wire.services
    .map((w) => serviceOf(settings, w))
    .filter((s): s is CatalogService => s !== undefined);
  ctx.currencies.clear();
  for (const s of services) if (s.price !== undefined) ctx.currencies.set(s.id, s.price.currency);
  const value: Catalog = {
    organization: {
      id: settings.orgSlug,
      name: wire.organization.name,
      timezone: settings.timezone,
      ...(wire.services[0]?.currency !== undefined ? { currency: wire.services[0].currency } : {}),
      ...(wire.organization.confirmation !== undefined
        ? { confirmation: wire.organization.confirmation }
        : {}),
    },
    services,
    resources: (settings.providers ?? []).map((p) => ({
      id: p.id,
      type: "person",
      name: p.name,
      capacity: 1,
      // Servicialo computes availability itself and publishes no weekly hours: the gateway
      // must not narrow its slots by hours of its own, so every provider is open all week.
      hours: ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({ day, open: "00:00", close: "24:00" })),
      staff: true,
    })),
    taxes: [],
    verificationMethod: "none",
  };
  return { ok: true, value, ...(result.upstream ? { upstream: result.upstream } : {}) };
}
