import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPercent, parsePercent } from "../../../src/protocol/money/percent.js";

describe("applyPercent (SchCP §2.1: exact decimal percent, rounded half up)", () => {
  it("13 % of 79.00 CAD is 1027 minor units (the spec's example)", () => {
    expect(applyPercent(7900, 13)).toBe(1027);
  });

  it.each([
    [100, 12.5, 13], // 12.5 exactly -> half up
    [7900, 12.5, 988], // 987.5 -> 988
    [100, 0.5, 1], // 0.5 -> 1
    [99, 0.5, 0], // 0.495 -> 0
    [1_000_000_000, 1e-7, 1], // 1e-7 read as 0.0000001, not as a float
    [7900, 1e-7, 0],
    [5_000_000_000, 1e-7, 5],
    [7900, 7.25, 573], // 572.75
    [100, 7.25, 7], // 7.25
    [1000, 1.15, 12], // 11.5 -> 12; the float product 1000 * 1.15 / 100 is 11.499999999999998
    [1000, 0.145, 1], // 1.45 -> 1
    [5000, 0.1 + 0.2, 15], // the shortest string "0.30000000000000004" is the decimal used
    [7900, 0, 0],
    [7900, 100, 7900],
    [7900, 250, 19750],
    [0, 13, 0],
    [7900, -0, 0],
    [Number.MAX_SAFE_INTEGER, 100, Number.MAX_SAFE_INTEGER],
  ])("%i minor units at %d %% -> %i", (minor, percent, expected) => {
    expect(applyPercent(minor, percent)).toBe(expected);
  });

  it.each([
    ["13", 1027],
    ["13.0", 1027],
    ["1.3e1", 1027],
    ["1300E-2", 1027],
    ["12.5", 988],
  ])("accepts JSON number text %s", (text, expected) => {
    expect(applyPercent(7900, text)).toBe(expected);
  });

  it.each([
    -1,
    -0.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    "-13",
    "13%",
    "",
    " 13",
    "0x10",
    "1e99999",
    "abc",
  ])("throws TypeError for percentage %j (programmer error)", (percent) => {
    expect(() => applyPercent(7900, percent)).toThrow(TypeError);
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])(
    "throws TypeError for minor units %d",
    (minor) => {
      expect(() => applyPercent(minor, 13)).toThrow(TypeError);
    },
  );

  it("throws RangeError when the result is not a safe integer", () => {
    expect(() => applyPercent(Number.MAX_SAFE_INTEGER, 200)).toThrow(RangeError);
  });

  it("matches integer half-up arithmetic for whole percentages", () => {
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000_000 }), fc.nat({ max: 1000 }), (minor, percent) => {
        // minor * percent / 100 rounded half up, exactly, in small integers
        expect(applyPercent(minor, percent)).toBe(Math.floor((2 * minor * percent + 100) / 200));
      }),
    );
  });

  it("matches integer half-up arithmetic for percentages with two decimals", () => {
    fc.assert(
      fc.property(fc.nat({ max: 100_000_000 }), fc.nat({ max: 10_000 }), (minor, hundredths) => {
        const text = `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}`;
        expect(applyPercent(minor, text)).toBe(Math.floor((2 * minor * hundredths + 10_000) / 20_000));
      }),
    );
  });
});

describe("parsePercent", () => {
  it.each([
    [13, "13"],
    [12.5, "12.5"],
    [1e-7, "0.0000001"],
    [0, "0"],
    [1e21, "1000000000000000000000"],
  ])("%d -> %s", (value, text) => {
    expect(parsePercent(value, "/rate")).toEqual({ ok: true, value: text });
  });

  it.each([
    ["13", "invalid_type"],
    [null, "invalid_type"],
    [-1, "invalid_amount"],
    [Number.NaN, "invalid_amount"],
  ])("%j is refused with %s", (value, code) => {
    expect(parsePercent(value, "/rate")).toMatchObject({ ok: false, error: { code, field: "/rate" } });
  });
});
