import { describe, expect, it } from "vitest";
import { parseLinkConstraints } from "../../../../src/protocol/schcp/mandate/constraints.js";
import type { MandateClaims, MandateConstraints } from "../../../../src/protocol/schcp/types.js";
import { expectRefusal, fullRootClaims } from "./helpers.js";

// parseLinkConstraints runs after the schema; these rows call it directly, as if the schema
// had let a value through, to show that a bad value never reads as "no limit" (§3.3).
const claims = (constraints: unknown): MandateClaims =>
  fullRootClaims({ constraints: constraints as MandateConstraints });

describe("parseLinkConstraints: the semantic reading of constraints (§3.3 'Claims are validated')", () => {
  it("reads window instants, max_price in minor units and the other limits", () => {
    const result = parseLinkConstraints(
      claims({
        services: ["oil-change"],
        window: { not_before: "2026-10-15T12:00:00-04:00", not_after: "2026-10-15T17:00:00-04:00" },
        max_price: { amount: "100.00", currency: "CAD" },
        max_bookings: 2,
        offer_sha256: "h",
        shared_limit: true,
      }),
      "SchCP-Mandate",
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      services: ["oil-change"],
      notBefore: { epochMs: Date.parse("2026-10-15T16:00:00Z"), offsetMinutes: -240 },
      notAfter: { epochMs: Date.parse("2026-10-15T21:00:00Z") },
      maxPrice: { minor: 10_000, currency: "CAD" },
      maxBookings: 2,
      offerSha256: "h",
      sharedLimit: true,
    });
  });

  it("no constraints: nothing bound, shared_limit false", () => {
    expect(parseLinkConstraints(fullRootClaims(), "SchCP-Mandate")).toEqual({
      ok: true,
      value: { sharedLimit: false },
    });
  });

  it.each<[string, unknown, string]>([
    [
      "a window date without offset",
      { window: { not_before: "2026-10-15T12:00:00" } },
      "/constraints/window/not_before",
    ],
    ["a leap second", { window: { not_after: "2026-12-31T23:59:60Z" } }, "/constraints/window/not_after"],
    [
      "max_price with too many decimals",
      { max_price: { amount: "1.001", currency: "USD" } },
      "/constraints/max_price/amount",
    ],
    ["max_bookings 0", { max_bookings: 0 }, "/constraints/max_bookings"],
    ["max_bookings 1.5", { max_bookings: 1.5 }, "/constraints/max_bookings"],
    ['max_bookings "1"', { max_bookings: "1" }, "/constraints/max_bookings"],
  ])("%s is mandate_invalid", (_name, constraints, pointer) => {
    const refusal = expectRefusal(
      parseLinkConstraints(claims(constraints), "SchCP-Mandate"),
      "MANDATE_INVALID",
      "mandate_invalid",
    );
    expect(refusal.field).toBe(`SchCP-Mandate/payload${pointer}`);
  });
});
