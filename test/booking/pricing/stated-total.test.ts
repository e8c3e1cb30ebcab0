/**
 * priceOffer with the upstream's stated all-in total at a start (UpstreamSlot.total): that total
 * is the offer's, with no surcharge or tax of this host added to it, in lines that sum to it
 * (SchCP §5.2 "The lines' amounts sum exactly to total"); an unusable one is ignored.
 */
import { describe, expect, it } from "vitest";
import type { CatalogTax } from "../../../src/connectors/port.js";
import type { ServiceRules } from "../../../src/booking/api.js";
import { allInPrice, priceOffer } from "../../../src/booking/pricing/index.js";
import { STATED_SURCHARGE_LABEL } from "../../../src/booking/pricing/price-offer.js";
import { NOW, OIL, THU_1300 } from "../holds/support.js";

const TORONTO = { timezone: "America/Toronto", taxes: [{ label: "HST", percent: "13" }] as CatalogTax[] };
const cad = (minor: number) => ({ minor, currency: "CAD" });
// A surcharge of this host's own that applies at every start (Thursday 13:00 is after 12:00).
const RULES: ServiceRules = {
  serviceId: OIL.id,
  surcharges: [{ when: "after_hours", after: "12:00", label: "Afternoon", amount: cad(1000) }],
};
const q = (stated?: { minor: number; currency: string }) => ({
  start: THU_1300,
  partySize: 1,
  now: NOW,
  ...(stated !== undefined && { stated }),
});
const sum = (lines: readonly { amount: { minor: number } }[]) =>
  lines.reduce((s, l) => s + l.amount.minor, 0);

describe("priceOffer with a stated total", () => {
  it("is the stated total: the service line and one line for what it adds, nothing of this host's", () => {
    const p = priceOffer(OIL, RULES, TORONTO, q(cad(11_300)));
    expect(p.price).toEqual(cad(7900));
    expect(p.total).toEqual(cad(11_300));
    expect(p.lines).toEqual([
      { kind: "service", label: OIL.name, amount: cad(7900) },
      { kind: "surcharge", label: STATED_SURCHARGE_LABEL, amount: cad(3400) },
    ]);
  });

  it("equal to the service line: that line alone", () => {
    const p = priceOffer(OIL, RULES, TORONTO, q(cad(7900)));
    expect(p.lines).toHaveLength(1);
    expect(p.total).toEqual(cad(7900));
  });

  it("under the service line (the business's own lower price then): one service line of it", () => {
    const p = priceOffer(OIL, undefined, TORONTO, q(cad(5000)));
    expect(p.total).toEqual(cad(5000));
    expect(p.lines).toEqual([{ kind: "service", label: OIL.name, amount: cad(5000) }]);
    expect(sum(p.lines)).toBe(5000);
  });

  it.each([
    ["another currency", { minor: 11_300, currency: "USD" }],
    ["negative", cad(-100)],
    ["not a safe integer", cad(2 ** 60)],
    ["fractional", cad(10.5)],
  ])("%s: ignored, the start priced as without one", (_name, stated) => {
    const own = priceOffer(OIL, RULES, TORONTO, q());
    expect(priceOffer(OIL, RULES, TORONTO, q(stated))).toEqual(own);
    // 79.00 + 10.00 afternoon, + 13% HST.
    expect(own.total).toEqual(cad(10_057));
  });

  it("a service without a price stays unpriced", () => {
    const { price: _price, ...unpriced } = OIL;
    expect(priceOffer({ ...unpriced, priceType: "unknown" }, undefined, TORONTO, q(cad(100)))).toEqual({
      price: null,
      total: null,
      lines: [],
    });
  });

  it("allInPrice takes it at a start, and not without one", () => {
    const host = { config: { timezone: "America/Toronto", services: [] }, catalog: { taxes: TORONTO.taxes } };
    const h = host as unknown as Parameters<typeof allInPrice>[0];
    expect(allInPrice(h, OIL, NOW, THU_1300, cad(9999))).toEqual(cad(9999));
    expect(allInPrice(h, OIL, NOW, undefined, cad(9999))).toEqual(cad(8927));
  });
});
