import { describe, expect, it } from "vitest";
import {
  fromMajorUnits,
  toMajorUnitsString,
  validateOsbpMoney,
} from "../../../src/protocol/money/osbp-money.js";

describe("validateOsbpMoney (OSBP Money)", () => {
  it.each([
    [
      { amount_minor: 9500, currency: "USD", type: "fixed", display: "$95.00" },
      { amount_minor: 9500, currency: "USD", type: "fixed", display: "$95.00" },
    ],
    // "type defaults to fixed when an amount is present"
    [
      { amount_minor: 0, currency: "USD" },
      { amount_minor: 0, currency: "USD", type: "fixed" },
    ],
    [
      { amount_minor: 10000, currency: "USD" },
      { amount_minor: 10000, currency: "USD", type: "fixed" },
    ],
    [
      { amount_minor: 1234, currency: "KWD" },
      { amount_minor: 1234, currency: "KWD", type: "fixed" },
    ],
    [
      { amount_minor: 125, currency: "JPY" },
      { amount_minor: 125, currency: "JPY", type: "fixed" },
    ],
    [
      { amount_minor: 9500.0, currency: "USD" },
      { amount_minor: 9500, currency: "USD", type: "fixed" },
    ],
    [
      { amount_minor: -0, currency: "USD" },
      { amount_minor: 0, currency: "USD", type: "fixed" },
    ],
    // non-fixed types carry no amount
    [
      { currency: "USD", type: "quote_required" },
      { currency: "USD", type: "quote_required" },
    ],
    [
      { currency: "USD", type: "insurance_dependent" },
      { currency: "USD", type: "insurance_dependent" },
    ],
    [
      { currency: "USD", type: "unknown", display: "varies" },
      { currency: "USD", type: "unknown", display: "varies" },
    ],
    // neither amount nor type: unknown, so a reader fails closed
    [{ currency: "USD" }, { currency: "USD", type: "unknown" }],
  ])("%j", (value, money) => {
    const r = validateOsbpMoney(value, "/price");
    expect(r).toEqual({ ok: true, value: money });
    if (r.ok) expect(Object.is(r.value.amount_minor, -0)).toBe(false);
  });

  it.each([
    [null, "invalid_type", "/price"],
    [9500, "invalid_type", "/price"],
    [[], "invalid_type", "/price"],
    [{ amount_minor: 9500 }, "missing_member", "/price/currency"],
    [{ amount_minor: 9500, currency: "usd" }, "unknown_currency", "/price/currency"],
    [{ amount_minor: 9500, currency: "XAU" }, "unknown_currency", "/price/currency"],
    [{ amount_minor: 9500, currency: null }, "unknown_currency", "/price/currency"],
    [{ amount_minor: -1, currency: "USD" }, "invalid_amount", "/price/amount_minor"],
    [{ amount_minor: 95.5, currency: "USD" }, "invalid_amount", "/price/amount_minor"],
    [{ amount_minor: "9500", currency: "USD" }, "invalid_amount", "/price/amount_minor"],
    [{ amount_minor: 2 ** 53, currency: "USD" }, "invalid_amount", "/price/amount_minor"],
    [{ amount_minor: Number.NaN, currency: "USD" }, "invalid_amount", "/price/amount_minor"],
    [{ amount_minor: null, currency: "USD" }, "invalid_amount", "/price/amount_minor"],
    [{ currency: "USD", type: "fixed" }, "missing_amount", "/price/amount_minor"],
    [
      { amount_minor: 100, currency: "USD", type: "quote_required" },
      "unexpected_amount",
      "/price/amount_minor",
    ],
    [{ amount_minor: 100, currency: "USD", type: "unknown" }, "unexpected_amount", "/price/amount_minor"],
    [{ amount_minor: 100, currency: "USD", type: "variable" }, "invalid_money_type", "/price/type"],
    [{ amount_minor: 100, currency: "USD", type: "Fixed" }, "invalid_money_type", "/price/type"],
    [{ amount_minor: 100, currency: "USD", display: 100 }, "invalid_type", "/price/display"],
    [{ amount_minor: 100, currency: "USD", amount: "1.00" }, "unknown_member", "/price/amount"],
  ])("%j is refused with %s at %s", (value, code, field) => {
    expect(validateOsbpMoney(value, "/price")).toMatchObject({ ok: false, error: { code, field } });
  });
});

describe("fromMajorUnits (OSBP Money: scale by the currency's exponent, not by 100)", () => {
  it.each([
    [80, "USD", 8000],
    ["80", "USD", 8000],
    ["19.99", "USD", 1999],
    [19.99, "USD", 1999],
    [0.07, "USD", 7],
    ["80.000", "USD", 8000], // trailing zeros are exact
    [80, "JPY", 80],
    [1.234, "KWD", 1234],
    ["1.2", "KWD", 1200],
    [0.0001, "CLF", 1],
    [1e-2, "USD", 1],
    [0, "EUR", 0],
  ])("%j %s -> %i", (major, currency, minor) => {
    expect(fromMajorUnits(major, currency, "/price")).toEqual({ ok: true, value: minor });
  });

  it.each([
    [1.5, "JPY", "too_many_decimals"],
    ["1.5", "JPY", "too_many_decimals"],
    [19.999, "USD", "too_many_decimals"],
    [0.1 + 0.2, "USD", "too_many_decimals"], // 0.30000000000000004 is not rounded
    [1.2345, "KWD", "too_many_decimals"],
    [-1, "USD", "invalid_amount"],
    ["-1", "USD", "invalid_amount"],
    [Number.NaN, "USD", "invalid_amount"],
    [Number.POSITIVE_INFINITY, "USD", "invalid_amount"],
    ["1e2", "USD", "invalid_amount"],
    ["$80", "USD", "invalid_amount"],
    ["80,00", "USD", "invalid_amount"],
    ["", "USD", "invalid_amount"],
    [1e21, "USD", "amount_out_of_range"],
    ["90071992547409.92", "USD", "amount_out_of_range"],
    [80, "XAU", "unknown_currency"],
    [80, "usd", "unknown_currency"],
  ])("%j %s is refused with %s", (major, currency, code) => {
    expect(fromMajorUnits(major, currency, "/price")).toMatchObject({
      ok: false,
      error: { code, field: "/price" },
    });
  });

  it("writes major units with exactly the exponent's decimals", () => {
    expect(toMajorUnitsString(1999, "USD")).toBe("19.99");
    expect(toMajorUnitsString(8000, "USD")).toBe("80.00");
    expect(toMajorUnitsString(80, "JPY")).toBe("80");
    expect(toMajorUnitsString(1234, "KWD")).toBe("1.234");
    expect(() => toMajorUnitsString(1, "XAU")).toThrow(TypeError);
  });
});
