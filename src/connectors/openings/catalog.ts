/**
 * The catalog from the salon: its location's members (with their schedules, else the
 * location's) and services, each option offered as its own service (`svc:option`). Prices are
 * major units without a currency: the host's configured currency is applied and the amount
 * scaled by its ISO 4217 exponent (fromMajorUnits), never by a fixed 100.
 */
import type { WorkingPeriod } from "../../calendar/index.js";
import { fromMajorUnits } from "../../protocol/money/index.js";
import type { Catalog, CatalogService } from "../ports/catalog.js";
import type { ConnectorResult } from "../ports/result.js";
import { noZone, withMeta } from "./results.js";
import type { SalonSource } from "./salon.js";
import { SEP } from "./services.js";
import type { OpeningsSettings } from "./settings.js";

function price(settings: OpeningsSettings, amount: number | undefined): CatalogService["price"] {
  if (amount === undefined) return undefined;
  // Openings' price: major units, no currency; the host's currency, scaled by its exponent.
  const minor = fromMajorUnits(amount, settings.currency, "");
  return minor.ok ? { minor: minor.value, currency: settings.currency } : undefined;
}

/** Reads the salon again and maps it. */
export async function readCatalog(
  settings: OpeningsSettings,
  salons: SalonSource,
): Promise<ConnectorResult<Catalog>> {
  const r = await salons.reload();
  if (!r.ok) return r;
  const ctx = r.value;
  if (ctx.timezone === undefined) return noZone(r.upstream);
  const requiresVerification = ctx.business.verification.required;
  const services: CatalogService[] = [];
  for (const s of ctx.location.services) {
    const variants = [
      { id: s.id, name: s.name, minutes: s.durationMinutes, amount: s.price },
      ...s.options.map((o) => ({
        id: `${s.id}${SEP}${o.id}`,
        name: `${s.name} (${o.name})`,
        minutes: o.durationMinutes,
        amount: o.price ?? s.price,
      })),
    ];
    for (const v of variants) {
      const p = price(settings, v.amount);
      services.push({
        id: v.id,
        name: v.name,
        duration: v.minutes * 60_000,
        bufferAfterMs: 0,
        ...(p !== undefined ? { price: p, pricePer: "booking" as const } : {}),
        priceType: s.consultation ? "quote_required" : p !== undefined ? "fixed" : "unknown",
        requires: [{ resourceType: "person" }],
        requiresVerification,
        requiresConsultation: s.consultation,
        // Openings takes no payment through its public API.
        payment: { requirement: "none" },
      });
    }
  }
  const hours = (own: readonly WorkingPeriod[]): readonly WorkingPeriod[] =>
    own.length > 0 ? own : ctx.location.schedules;
  const value: Catalog = {
    organization: {
      id: ctx.business.id,
      name: ctx.business.name,
      timezone: ctx.timezone,
      currency: settings.currency,
    },
    services,
    resources: ctx.location.members.map((m) => ({
      id: m.id,
      type: "person",
      name: m.name,
      capacity: 1,
      hours: hours(m.schedules),
      staff: true,
    })),
    taxes: [],
    verificationMethod: requiresVerification ? (ctx.business.verification.method ?? "unknown") : "none",
  };
  return withMeta(value, r.upstream);
}
