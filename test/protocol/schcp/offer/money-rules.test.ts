import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDecimalAmount } from "../../../../src/protocol/money/index.js";
import { checkOfferMoney } from "../../../../src/protocol/schcp/offer/money-rules.js";
import type { OfferClaims, OfferLine } from "../../../../src/protocol/schcp/types.js";
import { MAPLE_CHANGE, MAPLE_OFFER, PLAYDATE_OFFER, copy } from "./support.js";

const cad = (amount: string) => ({ amount, currency: "CAD" });

describe("checkOfferMoney (SchCP §5.2 the all-in total, §2.1 money)", () => {
  it("accepts the spec's example and returns the total in minor units", () => {
    const r = checkOfferMoney(MAPLE_OFFER);
    expect(r).toEqual({ ok: true, value: { total: { minor: 8927, currency: "CAD" } } });
  });

  it("accepts an offer with no money at all (total null)", () => {
    expect(checkOfferMoney(PLAYDATE_OFFER)).toEqual({ ok: true, value: { total: null } });
  });

  it("accepts an extension of an unpriced booking: total and lines, no price (§5.8)", () => {
    const o: OfferClaims = {
      ...copy(MAPLE_CHANGE),
      total: cad("30.00"),
      lines: [{ kind: "fee", label: "Extra 30 min", amount: cad("30") }],
    };
    delete o.price;
    expect(checkOfferMoney(o)).toEqual({ ok: true, value: { total: { minor: 3000, currency: "CAD" } } });
  });

  const refusals: [string, (o: OfferClaims) => void, string][] = [
    ["price without total", (o) => void delete o.total, "/total"],
    ["price and total without lines", (o) => void delete o.lines, "/lines"],
    [
      "lines alone",
      (o) => {
        delete o.price;
        delete o.total;
      },
      "/lines",
    ],
    ["total without price on a booking offer", (o) => void delete o.price, "/price"],
    [
      "no lines at all",
      (o) => {
        o.lines = [];
      },
      "/lines",
    ],
    [
      "lines one minor unit short of the total",
      (o) => {
        o.total = cad("89.28");
      },
      "/total",
    ],
    [
      "lines one minor unit over the total",
      (o) => {
        o.total = cad("89.26");
      },
      "/total",
    ],
    [
      "a line in another currency",
      (o) => {
        o.lines![1]!.amount = { amount: "10.27", currency: "USD" };
      },
      "/lines/1/amount/currency",
    ],
    [
      "a price in another currency",
      (o) => {
        o.price = { amount: "79.00", currency: "USD" };
      },
      "/price/currency",
    ],
    [
      "79.001 CAD (more decimals than the minor unit)",
      (o) => {
        o.price = cad("79.001");
      },
      "/price/amount",
    ],
    [
      "125.0 JPY (JPY has no decimals)",
      (o) => {
        o.total = { amount: "125.0", currency: "JPY" };
      },
      "/total/amount",
    ],
    [
      "a negative line",
      (o) => {
        o.lines![1]!.amount = cad("-10.27");
      },
      "/lines/1/amount/amount",
    ],
    [
      "an unknown currency",
      (o) => {
        o.total = { amount: "1.00", currency: "ZZZ" };
      },
      "/total/currency",
    ],
    [
      "a cancellation-fee line kind (§5.2 no fee terms)",
      (o) => {
        (o.lines![1] as { kind: string }).kind = "cancellation_fee";
      },
      "/lines/1/kind",
    ],
    [
      "a no-show line kind",
      (o) => {
        (o.lines![0] as { kind: string }).kind = "no_show_fee";
      },
      "/lines/0/kind",
    ],
  ];
  it.each(refusals)("refuses %s", (_name, edit, field) => {
    const o = copy(MAPLE_OFFER);
    edit(o);
    const r = checkOfferMoney(o);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("offer_invalid");
      expect(r.error.field).toBe(field);
    }
  });

  it("accepts fewer decimals than the minor unit (79 is 79.00 CAD)", () => {
    const o = copy(MAPLE_OFFER);
    o.price = cad("79");
    o.lines![0]!.amount = cad("79");
    expect(checkOfferMoney(o).ok).toBe(true);
  });

  // Property: lines that sum exactly pass; moving the total by any non-zero amount fails.
  const lineAmounts = fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 8 });
  const currency = fc.constantFrom("CAD", "JPY", "KWD", "EUR");
  it("property: exact sums are accepted, any other total is refused", () => {
    fc.assert(
      fc.property(lineAmounts, currency, fc.integer({ min: -1000, max: 1000 }), (minors, cur, delta) => {
        const sum = minors.reduce((a, b) => a + b, 0);
        fc.pre(sum + delta >= 0);
        const money = (m: number) => ({ amount: formatDecimalAmount(m, cur), currency: cur });
        const lines: OfferLine[] = minors.map((m, i) => ({
          kind: i === 0 ? "service" : "fee",
          label: `l${i}`,
          amount: money(m),
        }));
        const o: OfferClaims = {
          ...copy(MAPLE_OFFER),
          price: money(minors[0] ?? 0),
          lines,
          total: money(sum + delta),
        };
        const r = checkOfferMoney(o);
        expect(r.ok).toBe(delta === 0);
        if (r.ok) expect(r.value.total).toEqual({ minor: sum, currency: cur });
      }),
    );
  });
});
