/**
 * Times as pages and messages show them (src/protocol/time/readable.ts): the host's wall clock
 * with the zone named, whatever the machine's own zone.
 */
import { describe, expect, it } from "vitest";
import { readableSpan, readableTime } from "../../../src/protocol/time/index.js";

describe("readable times", () => {
  it("writes an instant on the zone's wall clock, the zone named", () => {
    const t = Date.parse("2026-12-05T06:52:00Z");
    expect(readableTime(t, "Europe/Madrid")).toBe("Sat, 5 Dec 2026, 07:52 (Europe/Madrid)");
    expect(readableTime(t, "America/Santiago")).toBe("Sat, 5 Dec 2026, 03:52 (America/Santiago)");
    expect(readableTime(t, "UTC")).toBe("Sat, 5 Dec 2026, 06:52 (UTC)");
  });

  it("writes a span once per day, across midnight with both days, and without an end as its start", () => {
    const start = Date.parse("2026-12-07T09:00:00Z");
    expect(readableSpan(start, start + 45 * 60_000, "Europe/Madrid")).toBe(
      "Mon, 7 Dec 2026, 10:00–10:45 (Europe/Madrid)",
    );
    const late = Date.parse("2026-12-07T22:30:00Z");
    expect(readableSpan(late, late + 3_600_000, "Europe/Madrid")).toBe(
      "Mon, 7 Dec 2026, 23:30 – Tue, 8 Dec 2026, 00:30 (Europe/Madrid)",
    );
    expect(readableSpan(start, undefined, "Europe/Madrid")).toBe(readableTime(start, "Europe/Madrid"));
  });

  it("follows the zone's daylight saving time: the same UTC hour reads an hour apart in summer", () => {
    expect(readableTime(Date.parse("2026-07-05T06:52:00Z"), "Europe/Madrid")).toBe(
      "Sun, 5 Jul 2026, 08:52 (Europe/Madrid)",
    );
  });
});
