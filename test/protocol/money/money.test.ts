import { describe, expect, it } from "vitest";
import {
  addMoney,
  compareMoney,
  parseSchcpMoney,
  sameCurrency,
  toSchcpMoney,
} from "../../../src/protocol/money/money.js";

describe("parseSchcpMoney (SchCP §2.1: a decimal string plus an ISO 4217 code)", () => {
  it.each([
    [
      { amount: "79.00", currency: "CAD" },
      { minor: 7900, currency: "CAD" },
    ],
    [
      { amount: "79", currency: "CAD" },
      { minor: 7900, currency: "CAD" },
    ],
    [
      { currency: "JPY", amount: "125" },
      { minor: 125, currency: "JPY" },
    ],
    [
      { amount: "1.234", currency: "KWD" },
      { minor: 1234, currency: "KWD" },
    ],
  ])("%j", (value, money) => {
    expect(parseSchcpMoney(value, "/price")).toEqual({ ok: true, value: money });
  });

  it.each([
    [null, "invalid_type", "/price"],
    ["79.00 CAD", "invalid_type", "/price"],
    [[{ amount: "79.00", currency: "CAD" }], "invalid_type", "/price"],
    [new Date(0), "invalid_type", "/price"],
    [{ amount: 79, currency: "CAD" }, "invalid_type", "/price/amount"],
    [{ amount: "79.001", currency: "CAD" }, "too_many_decimals", "/price/amount"],
    [{ amount: "125.0", currency: "JPY" }, "too_many_decimals", "/price/amount"],
    [{ amount: "-1.00", currency: "CAD" }, "invalid_amount", "/price/amount"],
    [{ currency: "CAD" }, "missing_member", "/price/amount"],
    [{ amount: "79.00" }, "missing_member", "/price/currency"],
    [{ amount: "79.00", currency: "cad" }, "unknown_currency", "/price/currency"],
    [{ amount: "79.00", currency: "XAU" }, "unknown_currency", "/price/currency"],
    [{ amount: "79.00", currency: 124 }, "unknown_currency", "/price/currency"],
    // SchCP §8: request schemas are closed, so payment data is refused.
    [{ amount: "79.00", currency: "CAD", payment: { card: "…" } }, "unknown_member", "/price/payment"],
    [{ amount: "79.00", currency: "CAD", "a/b": 1 }, "unknown_member", "/price/a~1b"],
  ])("%j is refused with %s at %s", (value, code, field) => {
    expect(parseSchcpMoney(value, "/price")).toMatchObject({ ok: false, error: { code, field } });
  });
});

describe("toSchcpMoney writes the canonical form", () => {
  it.each([
    [
      { minor: 7900, currency: "CAD" },
      { amount: "79.00", currency: "CAD" },
    ],
    [
      { minor: 125, currency: "JPY" },
      { amount: "125", currency: "JPY" },
    ],
    [
      { minor: 1234, currency: "KWD" },
      { amount: "1.234", currency: "KWD" },
    ],
  ])("%j", (money, wire) => {
    expect(toSchcpMoney(money)).toEqual(wire);
  });

  it("throws TypeError for a currency it cannot write", () => {
    expect(() => toSchcpMoney({ minor: 1, currency: "XAU" })).toThrow(TypeError);
  });
});

describe("arithmetic never mixes currencies (SchCP §2.1)", () => {
  const cad = (minor: number) => ({ minor, currency: "CAD" });
  const usd = (minor: number) => ({ minor, currency: "USD" });

  it("adds in integer minor units", () => {
    expect(addMoney(cad(7900), cad(1027))).toEqual({ ok: true, value: cad(8927) });
  });

  it("refuses to add different currencies", () => {
    expect(addMoney(cad(1), usd(1), "/total")).toMatchObject({
      ok: false,
      error: { code: "currency_mismatch", field: "/total" },
    });
  });

  it("refuses a sum past the safe-integer range", () => {
    expect(addMoney(cad(Number.MAX_SAFE_INTEGER), cad(1))).toMatchObject({
      ok: false,
      error: { code: "amount_out_of_range" },
    });
  });

  it.each([
    [1, 2, -1],
    [2, 2, 0],
    [3, 2, 1],
  ])("compares %i and %i as %i", (a, b, order) => {
    expect(compareMoney(cad(a), cad(b))).toEqual({ ok: true, value: order });
  });

  it("refuses to compare different currencies", () => {
    expect(compareMoney(cad(1), usd(1))).toMatchObject({ ok: false, error: { code: "currency_mismatch" } });
    expect(sameCurrency(cad(1), usd(1))).toBe(false);
    expect(sameCurrency(cad(1), cad(2))).toBe(true);
  });
});
