import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareWallClock,
  formatWallClock,
  parseInstant,
  parseLocalDate,
  parseLocalTime,
  parseWallClock,
  type WallClock,
} from "../../../src/protocol/time/rfc3339.js";
import { formatInstant } from "../../../src/protocol/time/zone.js";

const wall = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): WallClock => ({
  year: y,
  month: mo,
  day: d,
  hour: h,
  minute: mi,
  second: s,
  millisecond: ms,
});

describe("parseInstant (SchCP §2.1 Formats; OSBP Time Discipline: instants carry Z or an offset)", () => {
  it.each([
    ["2026-10-15T13:00:00-04:00", Date.UTC(2026, 9, 15, 17), -240],
    ["2026-05-05T20:00:00Z", Date.UTC(2026, 4, 5, 20), 0],
    ["2026-05-05T20:00:00.000Z", Date.UTC(2026, 4, 5, 20), 0],
    ["2026-05-01T23:59:59-07:00", Date.UTC(2026, 4, 2, 6, 59, 59), -420],
    ["2026-05-05T20:00:00.5Z", Date.UTC(2026, 4, 5, 20, 0, 0, 500), 0],
    ["2026-05-05T20:00:00.123456789Z", Date.UTC(2026, 4, 5, 20, 0, 0, 123), 0], // truncated to ms
    ["2026-05-05T20:00:00.9999Z", Date.UTC(2026, 4, 5, 20, 0, 0, 999), 0], // never rounded up
    ["2026-05-05T05:30:00+05:30", Date.UTC(2026, 4, 5, 0, 0), 330],
    ["2026-05-05T00:00:00+14:00", Date.UTC(2026, 4, 4, 10), 840],
    ["2026-05-05T00:00:00-00:00", Date.UTC(2026, 4, 5), 0],
    ["2024-02-29T12:00:00Z", Date.UTC(2024, 1, 29, 12), 0],
    ["2000-02-29T12:00:00Z", Date.UTC(2000, 1, 29, 12), 0],
    ["1970-01-01T00:00:00Z", 0, 0],
    ["0001-01-01T00:00:00Z", -62135596800000, 0],
    ["9999-12-31T23:59:59Z", 253402300799000, 0],
  ])("%s", (text, epochMs, offsetMinutes) => {
    const r = parseInstant(text, "/expires_at");
    expect(r).toEqual({ ok: true, value: { epochMs, offsetMinutes, text } });
    if (r.ok) expect(Object.is(r.value.offsetMinutes, -0)).toBe(false);
  });

  it.each([
    ["2026-10-15T13:00:00", "missing_offset"],
    ["2026-10-15T13:00", "missing_offset"],
    ["2026-10-15T13:00:00.000", "missing_offset"],
    ["2026-10-15T13:00:00-04:00\n", "invalid_instant"],
    ["2026-10-15T13:00:00Z\n", "invalid_instant"],
    [" 2026-10-15T13:00:00Z", "invalid_instant"],
    ["2026-02-30T10:00:00Z", "invalid_instant"],
    ["2026-02-29T10:00:00Z", "invalid_instant"],
    ["1900-02-29T10:00:00Z", "invalid_instant"],
    ["2026-04-31T10:00:00Z", "invalid_instant"],
    ["2026-13-01T10:00:00Z", "invalid_instant"],
    ["2026-00-10T10:00:00Z", "invalid_instant"],
    ["2026-10-00T10:00:00Z", "invalid_instant"],
    ["2026-10-15t13:00:00Z", "invalid_instant"],
    ["2026-10-15T13:00:00z", "invalid_instant"],
    ["2026-10-15 13:00:00Z", "invalid_instant"],
    ["2026-10-15T24:00:00Z", "invalid_instant"],
    ["2026-10-15T13:60:00Z", "invalid_instant"],
    ["2026-12-31T23:59:60Z", "invalid_instant"], // leap seconds refused
    ["2026-10-15T13:00:00+04", "invalid_instant"],
    ["2026-10-15T13:00:00+0400", "invalid_instant"],
    ["2026-10-15T13:00:00+24:00", "invalid_instant"],
    ["2026-10-15T13:00:00-04:60", "invalid_instant"],
    ["2026-10-15T13:00:00.Z", "invalid_instant"],
    ["2026-10-15T13:00:00,5Z", "invalid_instant"],
    ["2026-10-15T13:00Z", "invalid_instant"], // RFC 3339 requires seconds
    ["+002026-10-15T13:00:00Z", "invalid_instant"],
    ["2026-10-15T13:00:00Z[America/Toronto]", "invalid_instant"],
    ["２０２６-10-15T13:00:00Z", "invalid_instant"],
    ["2026-10-15", "invalid_instant"],
    ["", "invalid_instant"],
  ])("%j is refused with %s", (text, code) => {
    expect(parseInstant(text, "/expires_at")).toMatchObject({
      ok: false,
      error: { code, field: "/expires_at" },
    });
  });

  it("refuses a leap second and says so (no clock here can represent one)", () => {
    expect(parseInstant("2016-12-31T23:59:60Z", "/t")).toMatchObject({
      ok: false,
      error: { code: "invalid_instant", message: "leap seconds are not accepted" },
    });
  });

  it.each([1792083600000, null, undefined, new Date(0)])("a non-string %o is invalid_type", (value) => {
    expect(parseInstant(value, "/t")).toMatchObject({ ok: false, error: { code: "invalid_type" } });
  });

  it("reads back what formatInstant writes, in UTC and in zones", () => {
    // years 0001-9999, kept a day inside so no zone's local date leaves what RFC 3339 can write
    const range = { min: -62135596800000 + 86_400_000, max: 253402300799999 - 86_400_000 };
    fc.assert(
      fc.property(
        fc.integer(range),
        fc.constantFrom(
          undefined,
          "America/Toronto",
          "Asia/Kolkata",
          "Australia/Lord_Howe",
          "Pacific/Chatham",
        ),
        (ms, tz) => {
          const r = parseInstant(formatInstant(ms, tz), "");
          expect(r.ok && r.value.epochMs).toBe(ms);
        },
      ),
    );
  });
});

describe("parseWallClock (OSBP Time Discipline: merchant-local, no offset)", () => {
  it.each([
    ["2026-05-05T13:00:00", wall(2026, 5, 5, 13)],
    ["2026-05-05T13:00", wall(2026, 5, 5, 13)],
    ["2026-05-01T09:00:00", wall(2026, 5, 1, 9)],
    ["2026-05-14T18:00:00", wall(2026, 5, 14, 18)],
    ["2026-05-05T13:00:00.5", wall(2026, 5, 5, 13, 0, 0, 500)],
    ["2026-05-05T13:00:00.123", wall(2026, 5, 5, 13, 0, 0, 123)],
    ["2024-02-29T23:59:59", wall(2024, 2, 29, 23, 59, 59)],
  ])("%s", (text, value) => {
    expect(parseWallClock(text, "/earliest_start")).toEqual({ ok: true, value });
  });

  it.each([
    ["2026-05-05T13:00:00-07:00", "offset_not_allowed"],
    ["2026-05-05T13:00:00Z", "offset_not_allowed"],
    ["2026-05-05T13:00:00z", "offset_not_allowed"],
    ["2026-05-05T13:00:00+05:30", "offset_not_allowed"],
    ["2026-05-05T13:00:00+0530", "offset_not_allowed"],
    ["2026-05-05T13:00-07", "offset_not_allowed"],
    ["2026-05-05T13:00:00.000Z", "offset_not_allowed"],
    ["2026-05-05", "invalid_wall_clock"],
    ["2026-05-05T13", "invalid_wall_clock"],
    ["2026-05-05t13:00:00", "invalid_wall_clock"],
    ["2026-05-05 13:00:00", "invalid_wall_clock"],
    ["2026-05-05T13:00:00.1234", "invalid_wall_clock"],
    ["2026-05-05T13:00:00\n", "invalid_wall_clock"],
    ["2026-02-30T10:00:00", "invalid_wall_clock"],
    ["2026-05-05T24:00:00", "invalid_wall_clock"],
    ["2026-05-05T13:00:60", "invalid_wall_clock"],
    ["2026-05-05T13:00:00[America/Los_Angeles]", "invalid_wall_clock"],
    ["", "invalid_wall_clock"],
  ])("%j is refused with %s", (text, code) => {
    expect(parseWallClock(text, "/earliest_start")).toMatchObject({
      ok: false,
      error: { code, field: "/earliest_start" },
    });
  });

  it("refuses a non-string", () => {
    expect(parseWallClock(1, "/w")).toMatchObject({ ok: false, error: { code: "invalid_type" } });
  });
});

describe("formatWallClock", () => {
  it.each([
    [wall(2026, 5, 5, 13), "2026-05-05T13:00:00"],
    [wall(2026, 5, 5, 13, 0, 0, 500), "2026-05-05T13:00:00.500"],
    [wall(2026, 5, 5, 13, 0, 0, 7), "2026-05-05T13:00:00.007"],
    [wall(999, 1, 2, 3, 4, 5), "0999-01-02T03:04:05"],
  ])("%j -> %s", (w, text) => {
    expect(formatWallClock(w)).toBe(text);
    expect(parseWallClock(text, "")).toEqual({ ok: true, value: w });
  });

  it.each([
    wall(2026, 2, 30),
    wall(2026, 5, 5, 24),
    wall(2026, 5, 5, 1, 0, 0, 1000),
    wall(10000, 1, 1),
    wall(2026, 5, 5, 1.5),
  ])("throws TypeError for %j", (w) => {
    expect(() => formatWallClock(w)).toThrow(TypeError);
  });
});

describe("parseLocalDate and parseLocalTime (OSBP booking.create date and time)", () => {
  it.each([
    ["2026-05-05", { year: 2026, month: 5, day: 5 }],
    ["2024-02-29", { year: 2024, month: 2, day: 29 }],
  ])("date %s", (text, value) => {
    expect(parseLocalDate(text, "/date")).toEqual({ ok: true, value });
  });

  it.each([
    ["2026-05-05Z", "offset_not_allowed"],
    ["2026-05-05+02:00", "offset_not_allowed"],
    ["2026-02-29", "invalid_date"],
    ["2026-5-5", "invalid_date"],
    ["2026-05-05T00:00:00", "invalid_date"],
    ["2026-05-05\n", "invalid_date"],
    [20260505, "invalid_type"],
  ])("date %j is refused with %s", (value, code) => {
    expect(parseLocalDate(value, "/date")).toMatchObject({ ok: false, error: { code, field: "/date" } });
  });

  it.each([
    ["13:00", { hour: 13, minute: 0, second: 0 }],
    ["13:00:00", { hour: 13, minute: 0, second: 0 }],
    ["00:00", { hour: 0, minute: 0, second: 0 }],
    ["23:59:59", { hour: 23, minute: 59, second: 59 }],
  ])("time %s", (text, value) => {
    expect(parseLocalTime(text, "/time")).toEqual({ ok: true, value });
  });

  it.each([
    ["13:00Z", "offset_not_allowed"],
    ["13:00:00-07:00", "offset_not_allowed"],
    ["13:00+0530", "offset_not_allowed"],
    ["24:00", "invalid_time"],
    ["13:60", "invalid_time"],
    ["13:00:60", "invalid_time"],
    ["1:00", "invalid_time"],
    ["13", "invalid_time"],
    ["13:00:00.000", "invalid_time"],
    ["1pm", "invalid_time"],
    [1300, "invalid_type"],
  ])("time %j is refused with %s", (value, code) => {
    expect(parseLocalTime(value, "/time")).toMatchObject({ ok: false, error: { code, field: "/time" } });
  });
});

describe("compareWallClock", () => {
  it.each([
    [wall(2026, 5, 5, 13), wall(2026, 5, 5, 13), 0],
    [wall(2026, 5, 5, 13), wall(2026, 5, 5, 14), -1],
    [wall(2026, 5, 6), wall(2026, 5, 5, 23, 59, 59, 999), 1],
    [wall(2025, 12, 31), wall(2026, 1, 1), -1],
    [wall(2026, 5, 5, 13, 0, 0, 1), wall(2026, 5, 5, 13), 1],
  ])("%j vs %j is %i", (a, b, order) => {
    expect(compareWallClock(a, b)).toBe(order);
  });
});
