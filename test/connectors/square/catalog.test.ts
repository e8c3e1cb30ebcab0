/**
 * The catalog read from the recorded-response shapes: location, business booking profile,
 * bookable team members, appointment services with prices in minor units with their currency.
 */
import { describe, expect, it } from "vitest";
import { parseWorkingHours } from "../../../src/calendar/index.js";
import { toSchcpMoney } from "../../../src/protocol/money/index.js";
import { AVERY, HAIRCUT, JORDAN } from "./fake-square.js";
import { makeRig, useNock } from "./setup.js";

useNock();

describe("catalog", () => {
  it("reads the location, team and services of the recorded answers", async () => {
    const { fake, connector } = makeRig();
    const r = await connector.catalog.read();
    if (!r.ok) throw new Error(r.error.message);
    const c = r.value;
    expect(c.organization).toEqual({
      id: "L7M2SEJXJ3TQE",
      name: "Maple Street Studio",
      timezone: "America/Toronto",
      currency: "CAD",
      country: "CA",
      // Location.address on one line and Location.coordinates (fixtures/square/location.json).
      location: {
        address: "120 Maple Street, Toronto, ON, M5V 2T6, CA",
        latitude: 43.6446,
        longitude: -79.3957,
      },
    });
    expect(c.resources.map((x) => [x.id, x.name, x.type, x.staff, x.capacity])).toEqual([
      [AVERY, "Avery Chen", "person", true, 1],
      [JORDAN, "Jordan Patel", "person", true, 1],
    ]);
    const hours = c.resources[0]?.hours;
    expect(parseWorkingHours(hours, "/hours").ok).toBe(true);
    expect(hours).toContainEqual({ day: 4, open: "09:00", close: "20:00" });
    expect(hours).toHaveLength(5);
    // The retired variation (available_for_booking false) is not offered.
    expect(c.services.map((s) => [s.id, s.name, s.duration])).toEqual([
      [HAIRCUT, "Haircut", 3_600_000],
      ["7D2KXQH4ZB5YVLRM3N6QWERT", "Colour – Full colour", 7_200_000],
      ["P3W8ZUJNQY2MCRV4TKD6LSAE", "Colour – Consultation", 1_800_000],
    ]);
    const [haircut, , consultation] = c.services;
    expect(haircut).toMatchObject({
      price: { minor: 4500, currency: "CAD" },
      priceType: "fixed",
      requires: [{ resourceType: "person" }],
      cancellation: {
        enabled: true,
        windowMs: 86_400_000,
        note: "Cancel up to 24 hours ahead at no charge.",
      },
      cancellationFee: { minor: 1500, currency: "CAD" },
    });
    expect(consultation?.price).toBeUndefined();
    expect(consultation?.priceType).toBe("unknown");
    expect(c.taxes).toEqual([]);
    expect(fake.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      "GET /v2/locations/L7M2SEJXJ3TQE",
      "GET /v2/bookings/business-booking-profile",
      "GET /v2/bookings/team-member-booking-profiles",
      "POST /v2/catalog/search-catalog-items",
    ]);
    expect(fake.requests[2]?.query.get("bookable_only")).toBe("true");
    expect(fake.requests[3]?.body).toMatchObject({
      product_types: ["APPOINTMENTS_SERVICE"],
      enabled_location_ids: ["L7M2SEJXJ3TQE"],
    });
  });

  it("money stays in minor units with its currency: JPY 0 decimals, KWD 3, USD 2", async () => {
    const { connector } = makeRig({ itemsFixture: "square/catalog-search-items-currencies.json" });
    const r = await connector.catalog.read();
    if (!r.ok) throw new Error(r.error.message);
    const prices = r.value.services.map((s) => s.price);
    expect(prices).toEqual([
      { minor: 5000, currency: "JPY" },
      { minor: 12500, currency: "KWD" },
      { minor: 2550, currency: "USD" },
    ]);
    expect(prices.map((p) => (p === undefined ? undefined : toSchcpMoney(p)))).toEqual([
      { amount: "5000", currency: "JPY" },
      { amount: "12.500", currency: "KWD" },
      { amount: "25.50", currency: "USD" },
    ]);
  });

  it("an unreadable answer (no time zone) is unavailable, with the metadata of the call", async () => {
    const { fake, connector } = makeRig();
    fake.inject("catalog", {
      kind: "status",
      status: 200,
      body: { location: { id: "L7M2SEJXJ3TQE", name: "x" } },
    });
    const r = await connector.catalog.read();
    expect(r.ok ? undefined : r.error).toMatchObject({ code: "unavailable" });
    expect(r.upstream?.call).toBe("GET /v2/locations/L7M2SEJXJ3TQE");
  });
});
