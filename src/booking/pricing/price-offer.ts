/**
 * The all-in price of one slot (SchCP §5.2 "The all-in total", §2.1 Money, §4.1 price_per),
 * pure and exact in integer minor units:
 *
 * - service line: the price, times the party when price_per is "person";
 * - one line per mandatory fee (service.fees);
 * - one line per surcharge that applies at that start (amount, or percent of the service
 *   line, half up);
 * - unless the service is tax_exempt, one tax line per tax rule on the sum of those taxable
 *   lines (surcharges are "taxed like the service"), applyPercent half up;
 * - total = the sum of the lines. A service with no price has no money at all: no lines.
 *
 * A total the upstream states for the start (UpstreamSlot.total) is the business's own figure
 * and stands alone: it is the total, and neither this host's surcharge rules nor its tax rules
 * are added on top (they would tax or surcharge twice what the business already counts, and
 * the agent would show more than the business records; SchCP §5.2 "lines lists everything the
 * host says the person will pay"). Its lines: the service line, then one surcharge line for
 * what the upstream's total adds at that time; a stated total under the service line is the
 * one service line. A stated total in another currency, negative or not a safe integer is not
 * the business's word on this service and is ignored: the start is priced as above.
 *
 * buildHostRuntime has checked that fees and surcharges share the price's currency, so a
 * mismatch here is a programmer error and throws.
 */
import type { CatalogService, CatalogTax } from "../../connectors/port.js";
import { addMoney, applyPercent, type Money } from "../../protocol/money/index.js";
import type { ServiceRules } from "../api.js";
import type { PriceLine } from "../contract.js";
import type { ZoneView } from "../rules/zone-view.js";
import { surchargeApplies } from "./surcharges.js";

/** What pricing needs from a host: its zone (surcharges) and its tax rules. */
export interface PricingHost {
  readonly timezone: string;
  readonly taxes: readonly CatalogTax[];
  /** A view of the zone shared across one request's starts (rules/zone-view.ts); optional. */
  readonly view?: ZoneView;
}

export interface PriceQuery {
  readonly start: number;
  readonly partySize: number;
  /** When the offer is made (same_day surcharges). */
  readonly now: number;
  /** The upstream's stated all-in total at this start (UpstreamSlot.total), when it states one. */
  readonly stated?: Money;
}

export interface PricedOffer {
  /** The service's stated price (per person when price_per is "person"), or null. */
  readonly price: Money | null;
  readonly total: Money | null;
  /** In order: service, fees, surcharges, taxes. Empty when there is no price. */
  readonly lines: readonly PriceLine[];
}

const NO_PRICE: PricedOffer = { price: null, total: null, lines: [] };

function add(a: Money, b: Money): Money {
  const sum = addMoney(a, b);
  if (!sum.ok) throw new TypeError(`pricing: ${sum.error.message}`);
  return sum.value;
}

export function priceOffer(
  service: CatalogService,
  rules: ServiceRules | undefined,
  host: PricingHost,
  query: PriceQuery,
): PricedOffer {
  const price = service.price;
  if (price === undefined) return NO_PRICE;
  const currency = price.currency;
  const perPerson = service.pricePer === "person";
  const serviceMinor = perPerson ? price.minor * query.partySize : price.minor;
  if (!Number.isSafeInteger(serviceMinor)) throw new RangeError("pricing: the service line is too large");
  const serviceLine: PriceLine = {
    kind: "service",
    label: perPerson && query.partySize > 1 ? `${service.name} × ${query.partySize}` : service.name,
    amount: { minor: serviceMinor, currency },
  };
  const stated = query.stated;
  if (stated !== undefined && isStatedTotal(stated, currency)) return statedOffer(price, serviceLine, stated);

  const taxable: PriceLine[] = [serviceLine];
  for (const fee of service.fees ?? []) taxable.push({ kind: "fee", label: fee.label, amount: fee.amount });
  for (const s of rules?.surcharges ?? []) {
    if (!surchargeApplies(s, query.start, query.now, host.view ?? host.timezone)) continue;
    const amount: Money = s.amount ?? { minor: applyPercent(serviceMinor, s.percent ?? "0"), currency };
    taxable.push({ kind: "surcharge", label: s.label, amount });
  }

  const base = taxable.reduce<Money>((sum, l) => add(sum, l.amount), { minor: 0, currency });
  const taxes =
    service.taxExempt === true
      ? []
      : host.taxes.map((t) => ({
          kind: "tax" as const,
          label: `${t.label} ${t.percent}%`,
          amount: { minor: applyPercent(base.minor, t.percent), currency },
        }));
  const all = [...taxable, ...taxes];
  const total = all.reduce<Money>((sum, l) => add(sum, l.amount), { minor: 0, currency });
  return { price, total, lines: all };
}

/** The label of the line that brings the service line up to the upstream's stated total. */
export const STATED_SURCHARGE_LABEL = "Surcharges and taxes at this time";

const isStatedTotal = (m: Money, currency: string): boolean =>
  m.currency === currency && Number.isSafeInteger(m.minor) && m.minor >= 0;

function statedOffer(price: Money, serviceLine: PriceLine, stated: Money): PricedOffer {
  const extra = stated.minor - serviceLine.amount.minor;
  if (extra < 0) return { price, total: stated, lines: [{ ...serviceLine, amount: stated }] };
  const lines: PriceLine[] = [serviceLine];
  if (extra > 0)
    lines.push({
      kind: "surcharge",
      label: STATED_SURCHARGE_LABEL,
      amount: { minor: extra, currency: stated.currency },
    });
  return { price, total: { minor: stated.minor, currency: stated.currency }, lines };
}
