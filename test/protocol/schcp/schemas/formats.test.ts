import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateSchcp } from "../../../../src/protocol/schcp/validate.js";
import * as ex from "./spec-examples.js";

const valid = (name: Parameters<typeof validateSchcp>[0], value: unknown) => validateSchcp(name, value).ok;

describe("date-time is asserted as RFC 3339 with Z or ±hh:mm (§2.1 Formats)", () => {
  it.each([
    "2026-10-15T13:00:00-04:00",
    "2026-10-13T21:00:00Z",
    "2026-10-15T13:00:00.250+05:30",
    "2028-02-29T00:00:00Z",
    "2026-12-31T23:59:59+14:00",
  ])("accepts %s", (s) => expect(valid("DateTime", s)).toBe(true));

  it.each([
    ["no offset", "2026-10-15T13:00:00"],
    ["not a date", "not a date"],
    ["offset without colon", "2026-10-15T13:00:00-0400"],
    ["hour-only offset", "2026-10-15T13:00:00-04"],
    ["lower-case z", "2026-10-15T13:00:00z"],
    ["lower-case t", "2026-10-15t13:00:00Z"],
    ["space separator", "2026-10-15 13:00:00Z"],
    ["no seconds", "2026-10-15T13:00Z"],
    ["31 September", "2026-09-31T10:00:00Z"],
    ["29 February of a common year", "2026-02-29T10:00:00Z"],
    ["hour 24", "2026-10-15T24:00:00Z"],
    ["offset minutes 60", "2026-10-15T13:00:00+01:60"],
    ["trailing newline", "2026-10-15T13:00:00Z\n"],
    ["non-ASCII digits", "٢٠٢٦-10-15T13:00:00Z"],
  ])("refuses %s", (_why, s) => expect(valid("DateTime", s)).toBe(false));

  it("an unparseable date inside a mandate makes it invalid, naming the field (§3.3)", () => {
    const m = ex.mandate();
    m.constraints.window.not_before = "2026-10-15T13:00:00";
    const result = validateSchcp("MandateClaims", m);
    expect(!result.ok && result.error.field).toBe("/constraints/window/not_before");
  });

  it("property: every instant written by toISOString() is a date-time, and without its Z it is not", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("1970-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59Z"),
          noInvalidDate: true,
        }),
        (d) => {
          const iso = d.toISOString();
          return valid("DateTime", iso) && !valid("DateTime", iso.slice(0, -1));
        },
      ),
    );
  });
});

describe("Duration (§2.1): P[nW][nD][T[nH][nM][n[.n]S]]", () => {
  it.each([
    "PT1H",
    "P1W",
    "P2W3D",
    "P7D",
    "PT168H",
    "P1DT1H1M1S",
    "PT0S",
    "PT1.5S",
    "PT45M",
    "P60D",
    "P1DT12H",
  ])("accepts %s", (s) => expect(valid("Duration", s)).toBe(true));

  it.each([
    ["a trailing newline ($ matches only at the very end)", "PT1H\n"],
    ["months", "P1M"],
    ["years", "P1Y"],
    ["lower case", "p1d"],
    ["lower-case unit", "PT1h"],
    ["nothing", "P"],
    ["T with no time part", "P1DT"],
    ["T alone", "PT"],
    ["a sign", "-PT1H"],
    ["a comma", "PT1,5S"],
    ["a fraction outside seconds", "PT1.5H"],
    ["parts out of order", "PT1M1H"],
    ["weeks after days", "P3D2W"],
    ["a leading newline", "\nPT1H"],
    ["non-ASCII digits", "PT١H"],
    ["time part without T", "P1H"],
  ])("refuses %s: %j", (_why, s) => expect(valid("Duration", s)).toBe(false));

  const part = (unit: string) =>
    fc.option(
      fc.nat({ max: 9999 }).map((n) => `${n}${unit}`),
      { nil: "" },
    );
  const durations = fc
    .tuple(part("W"), part("D"), part("H"), part("M"), part("S"))
    .filter((parts) => parts.some((p) => p !== ""))
    .map(([w, d, h, m, s]) => `P${w}${d}${h + m + s === "" ? "" : `T${h}${m}${s}`}`);

  it("property: every string built from the grammar is a Duration", () => {
    fc.assert(fc.property(durations, (s) => valid("Duration", s)));
  });

  it("property: no Duration survives a trailing newline or lower case", () => {
    fc.assert(
      fc.property(durations, (s) => !valid("Duration", `${s}\n`) && !valid("Duration", s.toLowerCase())),
    );
  });
});

describe("Retention (§2.1): weeks or days only", () => {
  it.each(["P365D", "P0D", "P52W", "P1W3D"])("accepts %s", (s) => expect(valid("Retention", s)).toBe(true));
  it.each(["PT24H", "P1Y", "P1M", "P", "P1DT1H", "P365D\n", "p365d"])("refuses %j", (s) =>
    expect(valid("Retention", s)).toBe(false),
  );
});

describe("Money (§2.1): a decimal string and an ISO 4217 code", () => {
  const money = (amount: unknown, currency: unknown = "CAD") => ({ amount, currency });

  it.each(["79.00", "0", "0.5", "79", "125", "79.001", "1000000.00"])("accepts amount %s", (a) =>
    expect(valid("Money", money(a))).toBe(true),
  );

  it("79.001 passes the schema: decimals per currency are a code check (§2.1)", () => {
    expect(valid("Money", money("79.001"))).toBe(true);
  });

  it.each([
    ["a comma", "79,00"],
    ["a sign", "-1"],
    ["a plus sign", "+1"],
    ["an exponent", "1e3"],
    ["a leading zero", "079"],
    ["a trailing newline", "79.00\n"],
    ["a bare point", "79."],
    ["no integer part", ".5"],
    ["spaces", " 79.00"],
    ["non-ASCII digits", "٧٩"],
    ["a JSON number", 79],
    ["empty", ""],
  ])("refuses an amount with %s", (_why, a) => expect(valid("Money", money(a))).toBe(false));

  it.each(["cad", "CA", "CADD", "C4D", "CAD\n"])("refuses currency %j", (c) =>
    expect(valid("Money", money("1.00", c))).toBe(false),
  );

  it("property: canonical decimal strings are amounts", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.nat({ max: 4 }), (minor, decimals) => {
        const s = minor.toString().padStart(decimals + 1, "0");
        const amount = decimals === 0 ? s : `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
        return valid("Money", money(amount));
      }),
    );
  });
});

describe("other grammars", () => {
  it.each([
    ["an offer_sha256 of the wrong length", (b: Record<string, unknown>) => (b.offer_sha256 = "Xy3")],
    ["an offer_sha256 in padded base64", (b: Record<string, unknown>) => (b.offer_sha256 = `${ex.SHA}=`)],
    [
      "an offer_sha256 with non-zero padding bits",
      (b: Record<string, unknown>) => (b.offer_sha256 = `${ex.SHA.slice(0, 42)}B`),
    ],
  ])("a confirm request with %s fails", (_why, mutate) => {
    const body: Record<string, unknown> = ex.confirmRequest();
    mutate(body);
    const result = validateSchcp("ConfirmRequest", body);
    expect(!result.ok && result.error.field).toBe("/offer_sha256");
  });

  it.each([
    ["http", "http://agent.example/hooks"],
    ["not a URI", "agent.example/hooks"],
  ])("a callback_url that is %s fails (§5.8)", (_why, url) => {
    expect(valid("HoldRequest", { ...ex.holdRequest(), callback_url: url })).toBe(false);
  });

  it.each([
    [
      "a private d",
      { kty: "OKP", crv: "Ed25519", x: ex.X, d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" },
    ],
    ["an EC key", { kty: "EC", crv: "P-256", x: ex.X, y: ex.X }],
    ["X25519", { kty: "OKP", crv: "X25519", x: ex.X }],
    ["a short x", { kty: "OKP", crv: "Ed25519", x: "abc" }],
  ])("a Jwk with %s fails (§3.2, §3.4)", (_why, jwk) => expect(valid("Jwk", jwk)).toBe(false));

  it("iat may be written 1792000000.0, which JSON Schema counts as an integer (§2.1)", () => {
    const m = JSON.parse(JSON.stringify(ex.mandate()).replace("1792000000", "1792000000.0")) as unknown;
    expect(valid("MandateClaims", m)).toBe(true);
    expect(valid("MandateClaims", { ...ex.mandate(), iat: 1792000000.5 })).toBe(false);
  });

  it.each([
    ["2026-10-15T13:00:00", true],
    ["2026-10-15T13:00:00.5", true],
    ["2026-10-15T13:00:00-04:00", false],
    ["2026-10-15T13:00", false],
    ["2026-02-30T13:00:00", false],
    // RFC 8984 §1.4.4: no trailing zeros in the fraction.
    ["2026-10-15T13:00:00.500", false],
  ])("the JSCalendar event start is an RFC 8984 LocalDateTime: %s -> %s", (start, expected) => {
    const b = ex.booking();
    expect(valid("Booking", { ...b, event: { ...b.event, start } })).toBe(expected);
  });

  it.each([
    ["an updated time with an offset instead of Z", { updated: "2026-10-13T09:00:00-04:00" }],
    ["a mixed weeks-and-days duration", { duration: "P1W2D" }],
    ["an unknown status", { status: "booked" }],
    ["an unknown time zone", { timeZone: "America/Torontoo" }],
  ])("the JSCalendar event refuses %s", (_why, patch) => {
    const b = ex.booking();
    const result = validateSchcp("Booking", { ...b, event: { ...b.event, ...patch } });
    expect(!result.ok && result.error.field).toBe(`/event/${Object.keys(patch)[0]}`);
  });
});
