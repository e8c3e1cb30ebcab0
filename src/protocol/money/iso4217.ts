/**
 * ISO 4217 minor-unit exponents for every currency of List One that has a minor unit.
 *
 * OSBP "Money" requires the exponent to come from current ISO 4217 data or "a dated, reviewed
 * snapshot of that data, rather than an unexplained local shortlist"; SchCP §2.1 needs it to
 * decide how many decimals an amount may carry. This is that snapshot: List One
 * ("current currency & funds"), published by SIX Financial Information AG, the ISO 4217
 * maintenance agency, with Pblshd="2026-01-01" (list-one.xml). It reflects:
 *   - ZWG (Zimbabwe Gold, 2) in, ZWL out; SLE in, SLL out; HRK out (Croatia uses EUR);
 *   - XCG (Caribbean Guilder, 2) in, ANG out (Curaçao and Sint Maarten, 2025-03-31);
 *   - BGN out (Bulgaria uses EUR from 2026-01-01);
 *   - XAD (Arab Accounting Dinar, fund of the Arab Monetary Fund, 2) in.
 *
 * Entries whose minor unit List One gives as "N.A." are deliberately absent, so they are
 * unknown here and can never carry an amount: the precious metals XAU XAG XPD XPT, the
 * testing and no-currency codes XTS XXX, the bond-market units XBA XBB XBC XBD, and the units
 * of account XDR XSU XUA.
 *
 * The table is grouped by exponent so a review against the published list is a diff of
 * short lines. Update it from a newer List One, and move ISO4217_SNAPSHOT.published with it.
 */

export const ISO4217_SNAPSHOT: { readonly published: string; readonly source: string } = {
  published: "2026-01-01",
  source:
    "ISO 4217 List One (current currency & funds), SIX Financial Information AG as maintenance agency: " +
    "https://www.six-group.com/dam/download/financial-information/data-center/iso-currrency/lists/list-one.xml",
};

const BY_EXPONENT: Readonly<Record<0 | 2 | 3 | 4, string>> = {
  0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
  2:
    "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BMD BND BOB BOV BRL BSD BTN BWP BYN BZD " +
    "CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP " +
    "GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK " +
    "LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO " +
    "NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS " +
    "SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST " +
    "XAD XCD XCG YER ZAR ZMW ZWG",
  3: "BHD IQD JOD KWD LYD OMR TND",
  4: "CLF UYW",
};

const EXPONENTS: ReadonlyMap<string, number> = new Map(
  Object.entries(BY_EXPONENT).flatMap(([exponent, codes]) =>
    codes.split(" ").map((code): [string, number] => [code, Number(exponent)]),
  ),
);

/** Every code this snapshot knows, sorted: for tests and for onboarding pickers. */
export const ISO4217_CODES: readonly string[] = [...EXPONENTS.keys()].sort();

/**
 * The number of decimals of a currency's minor unit, or undefined when the code is not an
 * active List One currency with a minor unit. Codes are upper case only: "cad" is unknown.
 */
export function currencyExponent(code: string): number | undefined {
  return EXPONENTS.get(code);
}

export function isKnownCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}
