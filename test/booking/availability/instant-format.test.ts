/**
 * instantFormatter writes exactly what formatInstant writes, for one formatter used for many
 * instants (its caches): around DST changes, in zones with half-hour and 45-minute offsets,
 * with seconds and milliseconds, and where the offset is not whole minutes (historic local
 * mean time, which formatInstant writes in UTC).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { instantFormatter } from "../../../src/booking/availability/instant-format.js";
import { formatInstant } from "../../../src/protocol/time/index.js";

const ZONES = [
  "America/Toronto",
  "Europe/London",
  "Australia/Lord_Howe",
  "Asia/Kathmandu",
  "America/St_Johns",
  "Pacific/Apia",
  "Africa/Monrovia",
  "UTC",
];
const MINUTE = 60_000;
/** Transitions to walk across: Toronto's fall back and spring forward, Apia's lost day (2011). */
const NEAR = [
  Date.UTC(2026, 10, 1, 6),
  Date.UTC(2027, 2, 14, 7),
  Date.UTC(2011, 11, 30, 10),
  Date.UTC(1972, 0, 7),
];

describe("instantFormatter", () => {
  it("writes formatInstant's text for any instant (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.array(
          fc.oneof(
            fc
              .tuple(fc.constantFrom(...NEAR), fc.integer({ min: -3000, max: 3000 }))
              .map(([t, m]) => t + m * MINUTE),
            fc.integer({ min: Date.UTC(1850, 0, 1), max: Date.UTC(2200, 0, 1) }),
            fc.integer({ min: -3, max: 3 }).map((d) => Date.UTC(2026, 9, 1) + d * 86_400_000 + 1500),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        (zone, instants) => {
          const format = instantFormatter(zone);
          for (const t of instants) expect(format(t), `${t} in ${zone}`).toBe(formatInstant(t, zone));
        },
      ),
      { numRuns: 600 },
    );
  });

  it("writes the zone's offset on each side of a change", () => {
    const format = instantFormatter("America/Toronto");
    expect(format(Date.UTC(2026, 10, 1, 5, 30))).toBe("2026-11-01T01:30:00-04:00");
    expect(format(Date.UTC(2026, 10, 1, 6, 30))).toBe("2026-11-01T01:30:00-05:00");
    expect(format(Date.UTC(2026, 10, 1, 4, 59, 59))).toBe("2026-11-01T00:59:59-04:00");
  });
});
