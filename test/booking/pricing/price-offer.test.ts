import { describe, expect, it } from "vitest";
import type { CatalogService, CatalogTax } from "../../../src/connectors/port.js";
import type { ServiceRules } from "../../../src/booking/api.js";
import { priceOffer, surchargeApplies, type PricedOffer } from "../../../src/booking/pricing/index.js";
import { checkOfferMoney } from "../../../src/protocol/schcp/offer/index.js";
import { toSchcpMoney } from "../../../src/protocol/money/index.js";
import { at, MIN, NOW, OIL, THU_1300 } from "../holds/support.js";

const TORONTO = { timezone: "America/Toronto", taxes: [{ label: "HST", percent: "13" }] as CatalogTax[] };
const q = (start = THU_1300, partySize = 1, now = NOW) => ({ start, partySize, now });

/** The lines as a SchCP offer states them (the core prices in minor units, contract.ts). */
const wire = (p: PricedOffer) =>
  p.lines.map((l) => ({ kind: l.kind, label: l.label, amount: toSchcpMoney(l.amount) }));

/** The priced lines must pass the offer's own money rules (§5.2 "sum exactly to total"). */
function expectConsistent(p: ReturnType<typeof priceOffer>) {
  if (p.total === null || p.price === null) return;
  const check = checkOfferMoney({
    v: "0.4",
    kind: "booking",
    iss: "h",
    hold_id: "h_1",
    iat: 0,
    exp: 1,
    service: { id: "s", name: "s" },
    slot: { start: "2026-10-15T13:00:00-04:00", end: "2026-10-15T14:00:00-04:00" },
    price: toSchcpMoney(p.price),
    total: toSchcpMoney(p.total),
    lines: wire(p),
    retention: "P365D",
  });
  expect(check.ok, JSON.stringify(check)).toBe(true);
}

describe("priceOffer (SchCP §5.2 all-in totals, §2.1 exact money)", () => {
  it("§2.1/§5.2 example: 13 % of 79.00 CAD is 10.27, total 89.27", () => {
    const p = priceOffer(OIL, undefined, TORONTO, q());
    expect(p.price).toEqual({ minor: 7900, currency: "CAD" });
    expect(p.total).toEqual({ minor: 8927, currency: "CAD" });
    expect(wire(p)).toEqual([
      { kind: "service", label: "Synthetic oil change", amount: { amount: "79.00", currency: "CAD" } },
      { kind: "tax", label: "HST 13%", amount: { amount: "10.27", currency: "CAD" } },
    ]);
    expectConsistent(p);
  });

  it("JPY has no minor unit: tax rounds half up to whole yen", () => {
    const ramen: CatalogService = { ...OIL, price: { minor: 999, currency: "JPY" } };
    const p = priceOffer(
      ramen,
      undefined,
      { timezone: "Asia/Tokyo", taxes: [{ label: "消費税", percent: "10" }] },
      q(),
    );
    // 10 % of 999 = 99.9 -> 100 (half up).
    expect(wire(p).map((l) => l.amount)).toEqual([
      { amount: "999", currency: "JPY" },
      { amount: "100", currency: "JPY" },
    ]);
    expect(p.total).toEqual({ minor: 1099, currency: "JPY" });
    expectConsistent(p);
  });

  it("rounds exactly half up on the half (12.5 % of 1.00 = 0.125 -> 0.13)", () => {
    const p = priceOffer(
      { ...OIL, price: { minor: 100, currency: "CAD" } },
      undefined,
      { timezone: "UTC", taxes: [{ label: "T", percent: "12.5" }] },
      q(),
    );
    expect(wire(p)[1]?.amount).toEqual({ amount: "0.13", currency: "CAD" });
  });

  it("§4.1 price_per person: the service line is price × party, and the total follows", () => {
    const spin: CatalogService = {
      ...OIL,
      name: "Spin class",
      price: { minor: 2500, currency: "CAD" },
      pricePer: "person",
    };
    const p = priceOffer(spin, undefined, TORONTO, q(THU_1300, 3));
    expect(p.price).toEqual({ minor: 2500, currency: "CAD" });
    expect(wire(p)[0]).toEqual({
      kind: "service",
      label: "Spin class × 3",
      amount: { amount: "75.00", currency: "CAD" },
    });
    // 13 % of 75.00 = 9.75.
    expect(p.total).toEqual({ minor: 8475, currency: "CAD" });
    expectConsistent(p);
  });

  it("fees are lines and taxed; a tax_exempt service has no tax lines", () => {
    const withFee: CatalogService = {
      ...OIL,
      fees: [{ label: "Shop supplies", amount: { minor: 500, currency: "CAD" } }],
    };
    const p = priceOffer(withFee, undefined, TORONTO, q());
    expect(p.lines.map((l) => l.kind)).toEqual(["service", "fee", "tax"]);
    // 13 % of 84.00 = 10.92.
    expect(wire(p)[2]?.amount.amount).toBe("10.92");
    expect(p.total?.minor).toBe(7900 + 500 + 1092);
    expectConsistent(p);

    const cleaning: CatalogService = {
      ...OIL,
      name: "Cleaning and check-up",
      price: { minor: 18000, currency: "CAD" },
      taxExempt: true,
    };
    const exempt = priceOffer(cleaning, undefined, TORONTO, q());
    expect(wire(exempt)).toEqual([
      { kind: "service", label: "Cleaning and check-up", amount: { amount: "180.00", currency: "CAD" } },
    ]);
    expect(exempt.total).toEqual({ minor: 18000, currency: "CAD" });
  });

  it("§5.2 no price, no money: no price, total or lines", () => {
    const { price: _price, ...unpriced } = OIL;
    expect(priceOffer(unpriced, undefined, TORONTO, q())).toEqual({ price: null, total: null, lines: [] });
  });

  describe("§5.2 surcharges: taxed like the service, only when the slot qualifies (host zone)", () => {
    const rules: ServiceRules = {
      serviceId: "oil-change",
      surcharges: [
        { when: "weekend", label: "Weekend", amount: { minor: 1000, currency: "CAD" } },
        { when: "after_hours", label: "Evening", percent: "10", after: "17:00" },
        { when: "same_day", label: "Same day", amount: { minor: 500, currency: "CAD" } },
      ],
    };

    it("none applies on a Thursday afternoon booked two days ahead", () => {
      expect(priceOffer(OIL, rules, TORONTO, q()).lines.map((l) => l.kind)).toEqual(["service", "tax"]);
    });

    it("a Saturday 17:30 slot booked the same day takes weekend, after-hours and same-day lines", () => {
      const sat = at("2026-10-17T17:30:00-04:00");
      const p = priceOffer(OIL, rules, TORONTO, q(sat, 1, at("2026-10-17T09:00:00-04:00")));
      expect(wire(p).map((l) => [l.kind, l.label, l.amount.amount])).toEqual([
        ["service", "Synthetic oil change", "79.00"],
        ["surcharge", "Weekend", "10.00"],
        ["surcharge", "Evening", "7.90"],
        ["surcharge", "Same day", "5.00"],
        // 13 % of 101.90 = 13.247 -> 13.25
        ["tax", "HST 13%", "13.25"],
      ]);
      expect(p.total?.minor).toBe(10190 + 1325);
      expectConsistent(p);
    });

    it("reads the slot in the host's zone, not UTC (22:00Z Friday is 18:00 in Toronto)", () => {
      const evening = { when: "after_hours" as const, label: "E", percent: "10" };
      expect(surchargeApplies(evening, at("2026-10-16T22:00:00Z"), NOW, "America/Toronto")).toBe(true);
      expect(surchargeApplies(evening, at("2026-10-16T20:59:00Z"), NOW, "America/Toronto")).toBe(false);
      // Saturday 01:00 UTC is still Friday evening in Toronto: not a weekend.
      const weekend = { when: "weekend" as const, label: "W" };
      expect(surchargeApplies(weekend, at("2026-10-17T01:00:00Z"), NOW, "America/Toronto")).toBe(false);
      expect(surchargeApplies(weekend, at("2026-10-17T01:00:00Z"), NOW, "UTC")).toBe(true);
    });

    it("after_hours defaults to 17:00 local", () => {
      const s = { when: "after_hours" as const, label: "E", amount: { minor: 100, currency: "CAD" } };
      expect(surchargeApplies(s, at("2026-10-15T17:00:00-04:00"), NOW, "America/Toronto")).toBe(true);
      expect(surchargeApplies(s, at("2026-10-15T16:59:00-04:00"), NOW, "America/Toronto")).toBe(false);
      expect(surchargeApplies(s, at("2026-10-15T16:59:00-04:00") + MIN, NOW, "America/Toronto")).toBe(true);
    });
  });
});
