/**
 * A slot's stated all-in total read from a Servicialo availability answer: not a v1.2.0 member
 * ("2. check_availability" Slot Result Fields have none), sent by this gateway's own A2A edge
 * and read when present ("Consumers MUST ignore fields they don't understand"). A hostile or
 * unreadable one is left out, so the gateway prices the start itself.
 */
import { describe, expect, it } from "vitest";
import { createServicialoConnector } from "../../../src/connectors/servicialo/index.js";
import { readAvailability, readBooked, readStatedTotal } from "../../../src/connectors/servicialo/wire.js";

const BASE = "https://upstream.test";
const TZ = "America/Toronto";
const DAY = "2026-12-07";
const at = (hhmm: string) => `${DAY}T${hhmm}:00.000Z`;

/** One services list (CAD) and one single-day availability answer, whatever is asked. */
function upstream(
  slots: readonly Record<string, unknown>[],
  booked: Record<string, unknown> = {},
): typeof fetch {
  return (input) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.endsWith("/book")) {
      const session = {
        id: "s1",
        status: "scheduled",
        scheduled_at: at("21:00"),
        duration_minutes: 60,
        ...booked,
      };
      return Promise.resolve(
        new Response(JSON.stringify({ success: true, session }), {
          status: 201,
          headers: { "content-type": "application/json" },
        }),
      );
    }
    const body = url.pathname.endsWith("/services")
      ? {
          organization: { name: "Garage" },
          services: [
            { id: "brakes", name: "Brakes", price: "135.60", currency: "CAD", duration_minutes: 60 },
          ],
        }
      : { date: DAY, provider: { id: "tech", name: "Alex" }, available_slots: slots, timezone: TZ };
    return Promise.resolve(
      new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } }),
    );
  };
}

function connectorOf(slots: readonly Record<string, unknown>[], booked?: Record<string, unknown>) {
  return createServicialoConnector(
    {
      baseUrl: BASE,
      orgSlug: "garage",
      timezone: TZ,
      providers: [{ id: "tech", name: "Alex" }],
      fallbackClientEmail: "desk@garage.example",
    },
    { fetch: upstream(slots, booked), clock: { now: () => Date.parse("2026-12-01T12:00:00Z") } },
  );
}

async function slotsFrom(slots: readonly Record<string, unknown>[]) {
  const connector = connectorOf(slots);
  const catalog = await connector.catalog.read();
  expect(catalog.ok).toBe(true);
  const r = await connector.slots.find({
    serviceId: "brakes",
    range: { start: Date.parse(`${DAY}T00:00:00-05:00`), end: Date.parse(`${DAY}T23:59:00-05:00`) },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

const slot = (hhmm: string, extra: Record<string, unknown> = {}) => ({
  start: at(hhmm),
  end: at(hhmm.replace(/^(\d\d)/, (h) => String(Number(h) + 1).padStart(2, "0"))),
  ...extra,
});

describe("a Servicialo slot's stated total", () => {
  it("is carried as the slot's total, exact in minor units, string or number", async () => {
    const found = await slotsFrom([
      slot("15:00", { price: "135.60", currency: "CAD" }),
      slot("21:00", { price: 158.2, currency: "CAD" }),
    ]);
    expect(found.map((s) => s.total)).toEqual([
      { minor: 13_560, currency: "CAD" },
      { minor: 15_820, currency: "CAD" },
    ]);
  });

  it.each([
    ["negative", { price: "-10.00", currency: "CAD" }],
    ["a negative number", { price: -10, currency: "CAD" }],
    ["not numeric", { price: "free", currency: "CAD" }],
    ["empty", { price: "", currency: "CAD" }],
    ["an exponent", { price: "1e3", currency: "CAD" }],
    ["too many decimals", { price: "135.601", currency: "CAD" }],
    ["not finite", { price: Number.POSITIVE_INFINITY, currency: "CAD" }],
    ["another currency than the service's", { price: "135.60", currency: "USD" }],
    ["not ISO 4217", { price: "3.5", currency: "UF" }],
    ["no currency", { price: "135.60" }],
    ["an object", { price: { amount: "135.60" }, currency: "CAD" }],
    ["too large", { price: "9".repeat(30), currency: "CAD" }],
  ])("%s: ignored, the slot kept without a total (the gateway prices it)", async (_name, members) => {
    const found = await slotsFrom([slot("15:00", members)]);
    expect(found).toHaveLength(1);
    expect(found[0]!.start).toBe(Date.parse(at("15:00")));
    expect(found[0]!.total).toBeUndefined();
  });

  it("absent (a platform that follows v1.2.0 to the letter): no total", async () => {
    const found = await slotsFrom([slot("15:00")]);
    expect(found[0]).not.toHaveProperty("total");
  });

  it("readStatedTotal without a known service currency takes any ISO 4217 one", () => {
    expect(readStatedTotal({ price: "40000", currency: "CLP" }, undefined)).toEqual({
      minor: 40_000,
      currency: "CLP",
    });
    expect(readStatedTotal({ price: "40000", currency: "CLP" }, "CAD")).toBeUndefined();
  });

  it("the wire readers keep the raw members of slots (both modes) and of a booked session", () => {
    const day = readAvailability({
      timezone: TZ,
      available_slots: [slot("15:00", { price: "1.00", currency: "CAD" })],
    });
    expect(day?.slots[0]).toMatchObject({ price: "1.00", currency: "CAD" });
    const multi = readAvailability({ timezone: TZ, slots: [slot("15:00", { price: 2, currency: "CAD" })] });
    expect(multi?.slots[0]).toMatchObject({ price: 2, currency: "CAD" });
    const booked = readBooked({
      session: { id: "s1", scheduled_at: at("15:00"), price: "158.20", currency: "CAD" },
    });
    expect(booked).toMatchObject({ price: "158.20", currency: "CAD" });
  });

  it.each([
    ["the session's price", { price: "158.20", currency: "CAD" }, { minor: 15_820, currency: "CAD" }],
    ["none", {}, undefined],
    ["a hostile one", { price: "-1", currency: "CAD" }, undefined],
  ])(
    "a book answer carrying %s: the booking's total is what the platform recorded",
    async (_n, booked, total) => {
      const connector = connectorOf([], booked);
      expect((await connector.catalog.read()).ok).toBe(true);
      const r = await connector.bookings.create({
        idempotencyKey: `k-${_n}`,
        serviceId: "brakes",
        start: Date.parse(at("21:00")),
        resourceIds: ["tech"],
        tentative: false,
      });
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      expect(r.value.total).toEqual(total);
    },
  );
});
