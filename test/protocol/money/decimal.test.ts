import { describe, expect, it } from "vitest";
import {
  decimalFromJsonText,
  decimalFromNumber,
  decimalToText,
  toUnits,
  unitsToText,
} from "../../../src/protocol/money/decimal.js";

describe("decimals read as written (SchCP §2.1: 12.5 is 125/1000, never a binary float)", () => {
  it.each([
    [12.5, 125n, 1],
    [19.99, 1999n, 2],
    [1e-7, 1n, 7],
    [1.5e-7, 15n, 8],
    [1e21, 10n ** 21n, 0],
    [0, 0n, 0],
    [-0, 0n, 0],
    [0.1 + 0.2, 30000000000000004n, 17],
  ])("%d", (n, coefficient, scale) => {
    expect(decimalFromNumber(n)).toEqual({ coefficient, scale });
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1])("%d is not a non-negative decimal", (n) => {
    expect(decimalFromNumber(n)).toBeUndefined();
  });

  it.each(["01", "1.", ".1", "-1", "+1", "1e", "1e+", " 1", "1_000", "1e401"])(
    "%j is not JSON number text",
    (t) => {
      expect(decimalFromJsonText(t)).toBeUndefined();
    },
  );

  it.each([
    [{ coefficient: 125n, scale: 1 }, 2, 1250n],
    [{ coefficient: 1250n, scale: 3 }, 2, 125n],
    [{ coefficient: 1255n, scale: 3 }, 2, undefined],
    [{ coefficient: 15n, scale: 1 }, 0, undefined],
  ])("toUnits(%o, %i)", (d, exponent, units) => {
    expect(toUnits(d, exponent)).toBe(units);
  });

  it("writes decimals and units", () => {
    expect(decimalToText({ coefficient: 1250n, scale: 3 })).toBe("1.25");
    expect(decimalToText({ coefficient: 1n, scale: 7 })).toBe("0.0000001");
    expect(decimalToText({ coefficient: 100n, scale: 2 })).toBe("1");
    expect(unitsToText(5n, 3)).toBe("0.005");
    expect(unitsToText(7900n, 2)).toBe("79.00");
    expect(unitsToText(125n, 0)).toBe("125");
  });
});
