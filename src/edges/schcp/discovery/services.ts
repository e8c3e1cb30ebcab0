/**
 * A catalog service with its gateway rules, as the discovery document publishes it (SchCP
 * §2.1 "Services and policies may also carry the fields below. Each is published so an agent
 * can check it before asking"). Money in the canonical form; durations as computed lengths.
 */
import type { CatalogResource, CatalogService } from "../../../booking/catalog.js";
import { toSchcpMoney } from "../../../protocol/money/index.js";
import type { DiscoveryService, ServiceRequirement, SurchargeRule } from "../../../protocol/schcp/types.js";
import { formatSchcpDuration } from "../../../protocol/time/index.js";
import type { ServiceRules, Surcharge } from "../../../booking/api.js";

function surchargeRule(s: Surcharge): SurchargeRule {
  return {
    when: s.when,
    label: s.label,
    ...(s.amount !== undefined && { amount: toSchcpMoney(s.amount) }),
    // SchCP states a percent as a JSON number written as the exact decimal (§2.1).
    ...(s.percent !== undefined && { percent: Number(s.percent) }),
    ...(s.after !== undefined && { after: s.after }),
  };
}

/** Selectable services list the resources a guest may choose, by id and name (§4.1, §5.2). */
function requirement(
  r: CatalogService["requires"][number],
  selectable: boolean,
  resources: readonly CatalogResource[],
): ServiceRequirement {
  const choices = resources.filter((res) => res.type === r.resourceType);
  return {
    resource_type: r.resourceType,
    ...(r.combine === true && { combine: true }),
    ...(selectable && { selectable: true, resources: choices.map((c) => ({ id: c.id, name: c.name })) }),
  };
}

export function discoveryService(
  service: CatalogService,
  rules: ServiceRules | undefined,
  resources: readonly CatalogResource[],
): DiscoveryService {
  const selectable = rules?.selectable === true;
  const window = {
    ...(rules?.minNoticeMs !== undefined && { min_notice: formatSchcpDuration(rules.minNoticeMs) }),
    ...(rules?.maxAdvanceMs !== undefined && { max_advance: formatSchcpDuration(rules.maxAdvanceMs) }),
    ...(rules?.opens !== undefined && { opens: { days_ahead: rules.opens.daysAhead, at: rules.opens.at } }),
  };
  const setAside = service.setAside;
  return {
    id: service.id,
    name: service.name,
    duration: service.duration === "open" ? "open" : formatSchcpDuration(service.duration),
    ...(service.duration !== "open" &&
      service.bufferAfterMs > 0 && { buffer_after: formatSchcpDuration(service.bufferAfterMs) }),
    ...(service.duration === "open" && {
      set_aside:
        setAside === undefined || setAside === "until_close" ? "until_close" : formatSchcpDuration(setAside),
    }),
    ...(service.price !== undefined && { price: toSchcpMoney(service.price) }),
    ...(service.price !== undefined && service.pricePer === "person" && { price_per: "person" as const }),
    ...(service.price !== undefined &&
      service.fees !== undefined &&
      service.fees.length > 0 && {
        fees: service.fees.map((f) => ({ label: f.label, amount: toSchcpMoney(f.amount) })),
      }),
    ...(service.taxExempt === true && { tax_exempt: true }),
    ...(rules?.surcharges !== undefined &&
      rules.surcharges.length > 0 && { surcharges: rules.surcharges.map(surchargeRule) }),
    requires: service.requires.map((r) => requirement(r, selectable, resources)),
    ...(selectable && { selectable: true }),
    ...(Object.keys(window).length > 0 && { booking_window: window }),
    ...(rules?.partySize !== undefined && {
      party_size: { min: rules.partySize.min, max: rules.partySize.max },
    }),
    ...(rules?.location !== undefined && { location: rules.location }),
    ...(rules?.eligibility !== undefined && { eligibility: { guest: rules.eligibility } }),
  };
}
