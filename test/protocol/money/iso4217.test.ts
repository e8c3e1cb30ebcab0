import { describe, expect, it } from "vitest";
import {
  ISO4217_CODES,
  ISO4217_SNAPSHOT,
  currencyExponent,
  isKnownCurrency,
} from "../../../src/protocol/money/iso4217.js";

// Every alphabetic code of ISO 4217 List One published 2026-01-01, typed here in alphabetical
// order independently of the source table (which is grouped by exponent), so a slip in either
// shows up as a difference.
const LIST_ONE_WITH_MINOR_UNIT =
  "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD " +
  "CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP " +
  "GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR " +
  "KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN " +
  "MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD " +
  "SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX " +
  "USD USN UYI UYU UYW UZS VED VES VND VUV WST XAD XAF XCD XCG XOF XPF YER ZAR ZMW ZWG";
// List One entries whose minor unit is "N.A.": not usable for money, so unknown.
const LIST_ONE_WITHOUT_MINOR_UNIT = "XAG XAU XBA XBB XBC XBD XDR XPD XPT XSU XTS XUA XXX";

describe("ISO 4217 snapshot (OSBP Money: a dated, reviewed snapshot)", () => {
  it("names its publication date and source", () => {
    expect(ISO4217_SNAPSHOT.published).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(ISO4217_SNAPSHOT.source).toContain("SIX");
  });

  it("has an exponent for every active List One currency, and nothing else", () => {
    const expected = LIST_ONE_WITH_MINOR_UNIT.split(" ");
    expect(expected).toHaveLength(165);
    for (const code of expected) expect(currencyExponent(code), code).toBeTypeOf("number");
    expect(ISO4217_CODES).toEqual(expected);
    for (const code of ISO4217_CODES) expect([0, 2, 3, 4]).toContain(currencyExponent(code));
  });

  it.each([
    ["CAD", 2],
    ["USD", 2],
    ["EUR", 2],
    ["JPY", 0],
    ["KWD", 3],
    ["BHD", 3],
    ["JOD", 3],
    ["TND", 3],
    ["IQD", 3],
    ["LYD", 3],
    ["OMR", 3],
    ["CLF", 4],
    ["UYW", 4],
    ["ISK", 0],
    ["VND", 0],
    ["CLP", 0],
    ["KRW", 0],
    ["UYI", 0],
    ["XAF", 0],
    ["XOF", 0],
    ["XPF", 0],
    ["ZWG", 2],
    ["SLE", 2],
    ["XCG", 2],
    ["BOV", 2],
    ["CHE", 2],
    ["CHW", 2],
    ["COU", 2],
    ["MXV", 2],
    ["USN", 2],
  ])("%s has exponent %i", (code, exponent) => {
    expect(currencyExponent(code)).toBe(exponent);
    expect(isKnownCurrency(code)).toBe(true);
  });

  it.each(LIST_ONE_WITHOUT_MINOR_UNIT.split(" "))("%s has no minor unit, so it is unknown", (code) => {
    expect(currencyExponent(code)).toBeUndefined();
    expect(isKnownCurrency(code)).toBe(false);
  });

  it.each(["HRK", "SLL", "ZWL", "ANG", "BGN", "CUC", "VEF", "MRO", "STD"])(
    "withdrawn %s is unknown",
    (code) => {
      expect(isKnownCurrency(code)).toBe(false);
    },
  );

  it.each(["cad", "Cad", "CA", "CADD", " CAD", "", "constructor", "__proto__", "toString"])(
    "%j is not a currency code",
    (code) => {
      expect(currencyExponent(code)).toBeUndefined();
      expect(isKnownCurrency(code)).toBe(false);
    },
  );
});
