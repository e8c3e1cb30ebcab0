/**
 * What a business's time zone says about where it is: its country, and from that the currency
 * to suggest for prices and how a phone number there is written, so a Toronto business is
 * offered CAD and a +1 example rather than another country's.
 *
 * A small table, not a derivation: neither Intl nor ICU as shipped with Node maps an IANA zone
 * to its country (that is zone1970.tab in the tz database, which Node does not carry), and a
 * dependency for a form's placeholder is not worth it. The zones listed are the common ones of
 * the countries listed; any other zone gets no suggestion (the form then shows neutral examples).
 */

export interface ZoneLocale {
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
  /** ISO 4217, the country's currency. */
  readonly currency: string;
  /** A phone number as written there, with its country code (a made-up number). */
  readonly phoneExample: string;
}

/** ISO 3166-1 alpha-2 → currency and a phone example in that country's own grouping. */
const COUNTRIES: Readonly<Record<string, readonly [currency: string, phone: string]>> = {
  US: ["USD", "+1 212 555 0142"],
  CA: ["CAD", "+1 416 555 0142"],
  MX: ["MXN", "+52 55 1234 5678"],
  BR: ["BRL", "+55 11 91234 5678"],
  AR: ["ARS", "+54 9 11 1234 5678"],
  CL: ["CLP", "+56 9 1234 5678"],
  CO: ["COP", "+57 301 234 5678"],
  PE: ["PEN", "+51 912 345 678"],
  UY: ["UYU", "+598 94 123 456"],
  GB: ["GBP", "+44 7700 900123"],
  IE: ["EUR", "+353 85 123 4567"],
  ES: ["EUR", "+34 612 345 678"],
  PT: ["EUR", "+351 912 345 678"],
  FR: ["EUR", "+33 6 12 34 56 78"],
  DE: ["EUR", "+49 151 23456789"],
  IT: ["EUR", "+39 312 345 6789"],
  NL: ["EUR", "+31 6 12345678"],
  BE: ["EUR", "+32 470 12 34 56"],
  AT: ["EUR", "+43 664 1234567"],
  GR: ["EUR", "+30 691 234 5678"],
  FI: ["EUR", "+358 40 1234567"],
  CH: ["CHF", "+41 78 123 45 67"],
  SE: ["SEK", "+46 70 123 45 67"],
  NO: ["NOK", "+47 412 34 567"],
  DK: ["DKK", "+45 20 12 34 56"],
  PL: ["PLN", "+48 512 345 678"],
  CZ: ["CZK", "+420 601 123 456"],
  RO: ["RON", "+40 712 345 678"],
  HU: ["HUF", "+36 20 123 4567"],
  TR: ["TRY", "+90 501 234 56 78"],
  IL: ["ILS", "+972 50 123 4567"],
  AE: ["AED", "+971 50 123 4567"],
  ZA: ["ZAR", "+27 71 123 4567"],
  NG: ["NGN", "+234 802 123 4567"],
  KE: ["KES", "+254 712 345678"],
  EG: ["EGP", "+20 100 123 4567"],
  IN: ["INR", "+91 98765 43210"],
  SG: ["SGD", "+65 8123 4567"],
  HK: ["HKD", "+852 5123 4567"],
  JP: ["JPY", "+81 90 1234 5678"],
  KR: ["KRW", "+82 10 1234 5678"],
  CN: ["CNY", "+86 131 2345 6789"],
  TH: ["THB", "+66 81 234 5678"],
  PH: ["PHP", "+63 912 345 6789"],
  ID: ["IDR", "+62 812 3456 7890"],
  MY: ["MYR", "+60 12 345 6789"],
  AU: ["AUD", "+61 412 345 678"],
  NZ: ["NZD", "+64 21 123 4567"],
};

/** IANA zone → ISO 3166-1 alpha-2 (the tz database's zone1970.tab, for the zones above). */
const ZONES: Readonly<Record<string, string>> = {
  "America/New_York": "US",
  "America/Chicago": "US",
  "America/Denver": "US",
  "America/Phoenix": "US",
  "America/Los_Angeles": "US",
  "America/Anchorage": "US",
  "America/Detroit": "US",
  "America/Indiana/Indianapolis": "US",
  "Pacific/Honolulu": "US",
  "America/Toronto": "CA",
  "America/Vancouver": "CA",
  "America/Edmonton": "CA",
  "America/Winnipeg": "CA",
  "America/Halifax": "CA",
  "America/St_Johns": "CA",
  "America/Regina": "CA",
  "America/Mexico_City": "MX",
  "America/Monterrey": "MX",
  "America/Tijuana": "MX",
  "America/Cancun": "MX",
  "America/Sao_Paulo": "BR",
  "America/Argentina/Buenos_Aires": "AR",
  "America/Santiago": "CL",
  "America/Bogota": "CO",
  "America/Lima": "PE",
  "America/Montevideo": "UY",
  "Europe/London": "GB",
  "Europe/Dublin": "IE",
  "Europe/Madrid": "ES",
  "Atlantic/Canary": "ES",
  "Europe/Lisbon": "PT",
  "Europe/Paris": "FR",
  "Europe/Berlin": "DE",
  "Europe/Rome": "IT",
  "Europe/Amsterdam": "NL",
  "Europe/Brussels": "BE",
  "Europe/Vienna": "AT",
  "Europe/Athens": "GR",
  "Europe/Helsinki": "FI",
  "Europe/Zurich": "CH",
  "Europe/Stockholm": "SE",
  "Europe/Oslo": "NO",
  "Europe/Copenhagen": "DK",
  "Europe/Warsaw": "PL",
  "Europe/Prague": "CZ",
  "Europe/Bucharest": "RO",
  "Europe/Budapest": "HU",
  "Europe/Istanbul": "TR",
  "Asia/Jerusalem": "IL",
  "Asia/Dubai": "AE",
  "Africa/Johannesburg": "ZA",
  "Africa/Lagos": "NG",
  "Africa/Nairobi": "KE",
  "Africa/Cairo": "EG",
  "Asia/Kolkata": "IN",
  "Asia/Calcutta": "IN",
  "Asia/Singapore": "SG",
  "Asia/Hong_Kong": "HK",
  "Asia/Tokyo": "JP",
  "Asia/Seoul": "KR",
  "Asia/Shanghai": "CN",
  "Asia/Bangkok": "TH",
  "Asia/Manila": "PH",
  "Asia/Jakarta": "ID",
  "Asia/Kuala_Lumpur": "MY",
  "Australia/Sydney": "AU",
  "Australia/Melbourne": "AU",
  "Australia/Brisbane": "AU",
  "Australia/Perth": "AU",
  "Australia/Adelaide": "AU",
  "Pacific/Auckland": "NZ",
};

/** The zone's country, currency and phone example; undefined for a zone not in the table. */
export function zoneLocale(zone: string | undefined): ZoneLocale | undefined {
  const country = zone === undefined ? undefined : ZONES[zone];
  const known = country === undefined ? undefined : COUNTRIES[country];
  if (country === undefined || known === undefined) return undefined;
  return { country, currency: known[0], phoneExample: known[1] };
}
