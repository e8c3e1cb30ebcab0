import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDecimalAmount, parseDecimalAmount } from "../../../src/protocol/money/amount.js";
import { ISO4217_CODES, currencyExponent } from "../../../src/protocol/money/iso4217.js";

describe("parseDecimalAmount (SchCP §2.1 money)", () => {
  it.each([
    ["79.00", "CAD", 7900],
    ["79", "CAD", 7900],
    ["79.5", "CAD", 7950],
    ["0", "CAD", 0],
    ["0.01", "CAD", 1],
    ["125", "JPY", 125],
    ["1.234", "KWD", 1234],
    ["1.2", "BHD", 1200],
    ["0.0001", "CLF", 1],
    ["12.3456", "UYW", 123456],
    ["90071992547409.91", "USD", Number.MAX_SAFE_INTEGER],
    ["9007199254740991", "JPY", Number.MAX_SAFE_INTEGER],
  ])("%s %s is %i minor units", (amount, currency, minor) => {
    expect(parseDecimalAmount(amount, currency, "/price/amount")).toEqual({ ok: true, value: minor });
  });

  it.each([
    ["79.001", "CAD", "too_many_decimals"],
    ["125.0", "JPY", "too_many_decimals"],
    ["1.2345", "KWD", "too_many_decimals"],
    ["79.000", "CAD", "too_many_decimals"],
    ["-5.00", "CAD", "invalid_amount"],
    ["-0", "CAD", "invalid_amount"],
    ["+5.00", "CAD", "invalid_amount"],
    ["079.00", "CAD", "invalid_amount"],
    ["00", "CAD", "invalid_amount"],
    ["79.", "CAD", "invalid_amount"],
    [".5", "CAD", "invalid_amount"],
    ["79,00", "CAD", "invalid_amount"],
    ["7e1", "CAD", "invalid_amount"],
    [" 79.00", "CAD", "invalid_amount"],
    ["79.00 ", "CAD", "invalid_amount"],
    ["79.00\n", "CAD", "invalid_amount"],
    ["", "CAD", "invalid_amount"],
    ["٧٩", "CAD", "invalid_amount"],
    ["７９", "CAD", "invalid_amount"],
    ["Infinity", "CAD", "invalid_amount"],
    ["90071992547409.92", "USD", "amount_out_of_range"],
    ["1" + "0".repeat(30), "JPY", "amount_out_of_range"],
    ["1" + "0".repeat(100_000), "JPY", "amount_out_of_range"],
    ["1." + "0".repeat(100_000), "JPY", "too_many_decimals"],
    ["79.00", "XAU", "unknown_currency"],
    ["79.00", "cad", "unknown_currency"],
    ["79.00", "HRK", "unknown_currency"],
  ])("%j %s is refused: %s", (amount, currency, code) => {
    const r = parseDecimalAmount(amount, currency, "/price/amount");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code, field: "/price/amount" });
  });

  it.each([79, 79.0, null, undefined, true, ["79.00"], { amount: "79.00" }, 7900n])(
    "a non-string %o is refused as invalid_type (never a float)",
    (amount) => {
      const r = parseDecimalAmount(amount, "CAD", "/a");
      expect(r).toMatchObject({ ok: false, error: { code: "invalid_type", field: "/a" } });
    },
  );
});

describe("formatDecimalAmount: canonical form with exactly the minor unit's decimals", () => {
  it.each([
    [7900, "CAD", "79.00"],
    [1027, "CAD", "10.27"],
    [5, "CAD", "0.05"],
    [0, "CAD", "0.00"],
    [125, "JPY", "125"],
    [0, "JPY", "0"],
    [1234, "KWD", "1.234"],
    [7, "BHD", "0.007"],
    [5, "CLF", "0.0005"],
    [Number.MAX_SAFE_INTEGER, "USD", "90071992547409.91"],
  ])("%i %s -> %s", (minor, currency, text) => {
    expect(formatDecimalAmount(minor, currency)).toBe(text);
  });

  it.each([
    [100, "XAU"],
    [100, "cad"],
    [1.5, "CAD"],
    [-1, "CAD"],
    [Number.MAX_SAFE_INTEGER + 1, "CAD"],
    [Number.NaN, "CAD"],
    [Number.POSITIVE_INFINITY, "CAD"],
  ])("throws TypeError for %d %s (programmer error)", (minor, currency) => {
    expect(() => formatDecimalAmount(minor, currency)).toThrow(TypeError);
  });
});

describe("properties", () => {
  it("parse(format(x)) === x for every known currency and safe minor amount", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ISO4217_CODES), fc.maxSafeNat(), (currency, minor) => {
        expect(parseDecimalAmount(formatDecimalAmount(minor, currency), currency, "")).toEqual({
          ok: true,
          value: minor,
        });
      }),
    );
  });

  it("format(parse(s)) is the canonical padding of any decimal with <= exponent decimals", () => {
    const amount = fc.constantFrom(...ISO4217_CODES).chain((currency) => {
      const exponent = currencyExponent(currency) ?? 0;
      return fc.record({
        currency: fc.constant(currency),
        int: fc.bigInt({ min: 0n, max: 10n ** BigInt(15 - exponent) - 1n }),
        frac: fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: exponent }),
      });
    });
    fc.assert(
      fc.property(amount, ({ currency, int, frac }) => {
        const exponent = currencyExponent(currency) ?? 0;
        const text = frac === "" ? `${int}` : `${int}.${frac}`;
        const canonical = exponent === 0 ? `${int}` : `${int}.${frac.padEnd(exponent, "0")}`;
        const parsed = parseDecimalAmount(text, currency, "");
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(formatDecimalAmount(parsed.value, currency)).toBe(canonical);
      }),
    );
  });
});
