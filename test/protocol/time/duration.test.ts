import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatOsbpDuration,
  formatSchcpDuration,
  parseOsbpDuration,
  parseRetention,
  parseSchcpDuration,
} from "../../../src/protocol/time/duration.js";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("parseSchcpDuration (SchCP §2.1 grammar P[nW][nD][T[nH][nM][n[.n]S]])", () => {
  it.each([
    ["P1W", 7 * D],
    ["P7D", 7 * D],
    ["PT168H", 7 * D],
    ["P2W3D", 17 * D],
    ["PT0S", 0],
    ["P0D", 0],
    ["PT1.5S", 1500],
    ["PT0.001S", 1],
    ["PT1.5000S", 1500], // zeros past the millisecond are exact
    ["P1DT1H1M1S", 90_061 * S],
    ["PT45M", 45 * M],
    ["PT15M", 15 * M],
    ["PT2H", 2 * H],
    ["PT10M", 10 * M],
    ["PT60S", 60 * S],
    ["P60D", 60 * D],
    ["PT1H30M", 90 * M],
    ["P1DT12H", 36 * H],
    ["PT01H", H], // digits, including a leading zero
    ["P1W2DT3H4M5.678S", 9 * D + 3 * H + 4 * M + 5678],
  ])("%s is %i ms", (text, ms) => {
    expect(parseSchcpDuration(text, "/duration")).toEqual({ ok: true, value: ms });
  });

  it.each([
    "",
    "P",
    "PT",
    "P1DT",
    "P1Y",
    "P1M", // a month, not a minute
    "P1Y2M",
    "pt1h",
    "Pt1H",
    "PT1h",
    "PT1H\n",
    " PT1H",
    "P-1D",
    "-P1D",
    "+PT1H",
    "PT1,5S",
    "PT1.5H",
    "PT1.5M",
    "P1.5D",
    "P1.5W",
    "PT1H30",
    "P1W1Y",
    "P1D1W", // order matters
    "PT1M1H",
    "PT.5S",
    "PT1.S",
    "P1DT1H1M1S1",
    "PT１H",
    "PT1H ",
    "P T1H",
    "1H",
    "open", // SchCP §4.2: "open" is a duration value of its own, not a duration
  ])("%j is invalid", (text) => {
    expect(parseSchcpDuration(text, "/duration")).toMatchObject({
      ok: false,
      error: { code: "invalid_duration", field: "/duration" },
    });
  });

  it.each([45, null, undefined, { minutes: 45 }])("a non-string %j is invalid_type", (value) => {
    expect(parseSchcpDuration(value, "/duration")).toMatchObject({
      ok: false,
      error: { code: "invalid_type" },
    });
  });

  it.each(["PT0.0001S", "PT1.2345S", "PT0.0000000001S"])(
    "%s is refused: sub-millisecond precision is not supported",
    (text) => {
      expect(parseSchcpDuration(text, "/d")).toMatchObject({
        ok: false,
        error: { code: "sub_millisecond_precision", message: "sub-millisecond precision is not supported" },
      });
    },
  );

  it.each(["P104249992D", "P14892856W", "PT9007199254741S", `PT${"9".repeat(60)}H`])(
    "%s is out of range",
    (text) => {
      expect(parseSchcpDuration(text, "/d")).toMatchObject({
        ok: false,
        error: { code: "duration_out_of_range" },
      });
    },
  );

  it("reads the largest safe duration exactly", () => {
    expect(parseSchcpDuration("PT9007199254740.991S", "")).toEqual({
      ok: true,
      value: Number.MAX_SAFE_INTEGER,
    });
  });
});

describe("formatSchcpDuration (SchCP §2.1 canonical writer)", () => {
  it.each([
    [604_800 * S, "P7D"],
    [90_061 * S, "P1DT1H1M1S"],
    [0, "PT0S"],
    [1500, "PT1.5S"],
    [1, "PT0.001S"],
    [10, "PT0.01S"],
    [45 * M, "PT45M"],
    [60 * M, "PT1H"],
    [D, "P1D"],
    [D + 1, "P1DT0.001S"],
    [365 * D, "P365D"],
    [H + 30 * S, "PT1H30S"],
    [Number.MAX_SAFE_INTEGER, "P104249991DT8H59M0.991S"],
  ])("%i ms -> %s", (ms, text) => {
    expect(formatSchcpDuration(ms)).toBe(text);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1])(
    "throws TypeError for %d",
    (ms) => {
      expect(() => formatSchcpDuration(ms)).toThrow(TypeError);
    },
  );
});

// The canonical form: days, hours, minutes, seconds; no weeks, no zero parts, no leading
// zeros, fraction without trailing zeros; zero is PT0S.
const CANONICAL =
  /^P(?!$)(?:[1-9][0-9]*D)?(?:T(?=[0-9])(?:[1-9][0-9]*H)?(?:[1-9][0-9]*M)?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?S)?)?$/;

describe("duration properties", () => {
  it("parse(format(ms)) === ms for every safe non-negative ms", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (ms) => {
        const text = formatSchcpDuration(ms);
        expect(text).toMatch(CANONICAL);
        expect(parseSchcpDuration(text, "")).toEqual({ ok: true, value: ms });
      }),
    );
  });

  it("format(parse(s)) is canonical and the same length for any grammatical s", () => {
    const part = (max: number) => fc.option(fc.nat({ max }), { nil: undefined });
    const digits = (n: number, zeros: number) => `${"0".repeat(zeros)}${n}`;
    const text = fc
      .record({
        w: part(1000),
        d: part(100_000),
        h: part(100_000),
        m: part(100_000),
        s: part(100_000),
        frac: fc.option(fc.stringMatching(/^[0-9]{1,3}0{0,3}$/), { nil: undefined }),
        zeros: fc.nat({ max: 2 }),
      })
      .filter((r) => [r.w, r.d, r.h, r.m, r.s].some((x) => x !== undefined))
      .map(({ w, d, h, m, s, frac, zeros }) => {
        const date = `${w === undefined ? "" : `${digits(w, zeros)}W`}${d === undefined ? "" : `${d}D`}`;
        const sec = s === undefined ? "" : `${s}${frac === undefined ? "" : `.${frac}`}S`;
        const time = `${h === undefined ? "" : `${h}H`}${m === undefined ? "" : `${digits(m, zeros)}M`}${sec}`;
        return `P${date}${time === "" ? "" : `T${time}`}`;
      });
    fc.assert(
      fc.property(text, (s) => {
        const ms = parseSchcpDuration(s, "");
        expect(ms.ok).toBe(true);
        if (!ms.ok) return;
        const out = formatSchcpDuration(ms.value);
        expect(out).toMatch(CANONICAL);
        expect(parseSchcpDuration(out, "")).toEqual(ms);
        expect(formatSchcpDuration(ms.value)).toBe(out);
      }),
    );
  });
});

describe("parseRetention (SchCP §2.1: weeks or days only)", () => {
  it.each([
    ["P365D", 365 * D],
    ["P52W", 52 * 7 * D],
    ["P0D", 0],
    ["P2W3D", 17 * D],
  ])("%s", (text, ms) => {
    expect(parseRetention(text, "/policies/retention")).toEqual({ ok: true, value: ms });
  });

  it.each(["PT1H", "P1DT1H", "PT0S", "P1Y", "P1M", "P", "p365d", "P365D\n"])("%j is refused", (text) => {
    expect(parseRetention(text, "/policies/retention")).toMatchObject({
      ok: false,
      error: { code: "invalid_duration", field: "/policies/retention" },
    });
  });
});

describe("OSBP durations (Service.duration, Policy.cancellation_window, Policy.late_grace)", () => {
  it.each([
    ["PT45M", 45 * M],
    ["PT60M", 60 * M],
    ["PT6H", 6 * H],
    ["PT15M", 15 * M],
    ["PT1H30M", 90 * M],
    ["P1D", D],
    ["P1DT2H", 26 * H],
    ["PT30S", 30 * S],
    ["PT0S", 0],
  ])("%s", (text, ms) => {
    expect(parseOsbpDuration(text, "/duration")).toEqual({ ok: true, value: ms });
  });

  it.each(["P1W", "P1M", "P1Y", "PT", "P", "45", "PT45m", "PT45M\n", "-PT45M", "PT0,5S"])(
    "%j is refused",
    (text) => {
      expect(parseOsbpDuration(text, "/duration")).toMatchObject({
        ok: false,
        error: { code: "invalid_duration", field: "/duration" },
      });
    },
  );

  it.each([
    [45 * M, "PT45M"],
    [60 * M, "PT1H"],
    [90 * M, "PT1H30M"],
    [6 * H, "PT6H"],
    [15 * M, "PT15M"],
    [48 * H, "PT48H"],
    [0, "PT0S"],
    [1500, "PT1.5S"],
  ])("writes %i ms as %s (hours, minutes, seconds; never days)", (ms, text) => {
    expect(formatOsbpDuration(ms)).toBe(text);
  });

  it("round-trips every safe non-negative ms", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (ms) => {
        expect(parseOsbpDuration(formatOsbpDuration(ms), "")).toEqual({ ok: true, value: ms });
      }),
    );
  });

  it("throws TypeError for negative ms", () => {
    expect(() => formatOsbpDuration(-1)).toThrow(TypeError);
  });
});
