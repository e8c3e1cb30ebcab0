/** Bayview Reference Studio, the OSBP conformance host's synthetic platform (bayview.ts). */
import { describe, expect, it } from "vitest";
import {
  bayviewReferenceStudio as bayview,
  SYNTHETIC_SCENARIOS,
  validateScenario,
} from "../../../src/connectors/synthetic/index.js";
import { currencyExponent } from "../../../src/protocol/money/index.js";
import { connectorFor, failure, hhmm, MIN, t, testClock, value } from "./support.js";
import { createSyntheticConnector } from "../../../src/connectors/synthetic/index.js";

const ZONE = "America/Los_Angeles";
const service = (id: string) => {
  const s = bayview.services.find((x) => x.id === id);
  if (s === undefined) throw new Error(`no service ${id}`);
  return s;
};
/** A local day in Los Angeles as an epoch range. */
const day = (date: string, offset: string) => ({
  start: t(`${date}T00:00:00${offset}`),
  end: t(`${date}T00:00:00${offset}`) + 24 * 60 * MIN,
});

describe("Bayview Reference Studio", () => {
  it("is a valid scenario, registered by its id, in Los Angeles, USD, US, on a 30-minute grid", () => {
    expect(validateScenario(bayview).ok).toBe(true);
    expect(SYNTHETIC_SCENARIOS["bayview-reference-studio"]).toBe(bayview);
    expect(bayview.organization).toEqual({
      id: "bayview-reference-studio",
      name: "Bayview Reference Studio",
      timezone: ZONE,
      currency: "USD",
      country: "US",
    });
    expect(bayview.stepMs).toBe(30 * MIN);
    expect(bayview.verificationMethod).toBe("sms");
  });

  it("has two stylists and the kit's drop-in team, all staff, working every day 09:00–18:00", () => {
    expect(bayview.resources.map((r) => [r.id, r.capacity])).toEqual([
      ["stylist-jordan", 1],
      ["stylist-riley", 1],
      // The conformance kit books its one fixture slot eight times a run.
      ["drop-in-team", 20],
    ]);
    for (const r of bayview.resources) {
      expect(r.staff).toBe(true);
      expect(r.hours).toEqual([1, 2, 3, 4, 5, 6, 7].map((d) => ({ day: d, open: "09:00", close: "18:00" })));
    }
  });

  it("states every service's payment requirement and keeps durations within 30–90 minutes", () => {
    for (const s of bayview.services) {
      expect(s.payment?.requirement, s.id).toBeDefined();
      expect(s.duration, s.id).toBeGreaterThanOrEqual(30 * MIN);
      expect(s.duration, s.id).toBeLessThanOrEqual(90 * MIN);
    }
    expect(bayview.services.filter((s) => s.payment?.requirement !== "none").map((s) => s.id)).toEqual([
      "colour-treatment",
      "keratin-treatment",
      "extensions-fitting",
    ]);
  });

  it("prices in exact minor units for exponents 2, 0 and 3 (OSBP Money)", () => {
    expect(service("haircut").price).toEqual({ minor: 9500, currency: "USD" });
    expect(service("head-spa-jpy").price).toEqual({ minor: 12000, currency: "JPY" });
    expect(currencyExponent("JPY")).toBe(0);
    expect(service("scalp-treatment-kwd").price).toEqual({ minor: 12500, currency: "KWD" });
    expect(currencyExponent("KWD")).toBe(3);
    expect(service("scalp-assessment")).toMatchObject({ priceType: "insurance_dependent" });
    expect(service("scalp-assessment").price).toBeUndefined();
    expect(service("bridal-styling").price).toBeUndefined();
    expect(service("colour-treatment").payment).toEqual({
      requirement: "deposit",
      deposit: { minor: 5000, currency: "USD" },
    });
  });

  it("the haircut reports the spec's policy example: fees and cancellation terms", () => {
    expect(service("haircut")).toMatchObject({
      cancellationFee: { minor: 2500, currency: "USD" },
      noShowFee: { minor: 5000, currency: "USD" },
      cancellation: {
        enabled: true,
        windowMs: 6 * 60 * MIN,
        note: "Cancel at least 6 hours before the appointment.",
        lateGraceMs: 15 * MIN,
      },
    });
  });

  it.each([
    ["a Sunday", "2026-10-18", "-07:00"],
    ["a Wednesday", "2026-10-21", "-07:00"],
    // The day Pacific time falls back: 25 hours, hours still 09:00–18:00 on the shop's clock.
    ["the DST change", "2026-11-01", "-07:00"],
  ])("offers 09:00 to 17:00 every half hour with every provider on %s", async (_name, date, offset) => {
    const { connector } = connectorFor(bayview, { clock: testClock(t("2026-10-01T00:00:00Z")) });
    const slots = value(await connector.slots.find({ serviceId: "haircut", range: day(date, offset) }));
    expect(slots.map((s) => hhmm(s.start, ZONE))).toEqual(
      Array.from(
        { length: 17 },
        (_, i) => `${String(9 + Math.floor(i / 2)).padStart(2, "0")}:${i % 2 ? "30" : "00"}`,
      ),
    );
    expect(slots.every((s) => s.resourceIds.join() === "stylist-jordan,stylist-riley,drop-in-team")).toBe(
      true,
    );
  });

  it("refuses to create an appointment for the consultation service; books the others", async () => {
    const connector = createSyntheticConnector({
      scenario: bayview,
      clock: testClock(t("2026-10-01T00:00:00Z")),
    });
    const start = t("2026-10-21T10:00:00-07:00");
    const create = (serviceId: string, minutes: number) => ({
      idempotencyKey: `k-${serviceId}`,
      serviceId,
      start,
      end: start + minutes * MIN,
      resourceIds: ["stylist-jordan"],
      tentative: false,
    });
    const e = failure(await connector.bookings.create(create("colour-consultation", 30)));
    expect(e).toMatchObject({
      code: "invalid_request",
      message: "this service is booked through a consultation request",
    });
    expect(e.upstream?.status).toBe(400);
    value(await connector.bookings.create(create("haircut", 60)));
    // The verified service needs a code first (OSBP requires_verification).
    expect(
      failure(
        await connector.bookings.create({ ...create("express-trim", 30), resourceIds: ["stylist-riley"] }),
      ),
    ).toMatchObject({ code: "verification_required", verificationMethod: "sms" });
  });
});

describe("test-mode verification: the conformance scenario only", () => {
  const PHONE = "+15555550100";

  it("Bayview sends 123456, the OSBP conformance kit's code, and books with it", async () => {
    expect(bayview.testVerificationCode).toBe("123456");
    const { connector } = connectorFor(bayview, { clock: testClock(t("2026-10-01T00:00:00Z")) });
    value(await connector.verification.send({ phone: PHONE }, "booking:bayview-reference-studio"));
    expect(await connector.lastCodeFor(PHONE)).toBe("123456");
    const start = t("2026-10-21T10:00:00-07:00");
    value(
      await connector.bookings.create({
        idempotencyKey: "k-verified",
        serviceId: "express-trim",
        start,
        end: start + 30 * MIN,
        resourceIds: ["stylist-riley"],
        customer: { phone: PHONE },
        verificationCode: "123456",
        tentative: false,
      }),
    );
  });

  it("every other scenario sends a derived code, never a fixed one", async () => {
    const others = Object.entries(SYNTHETIC_SCENARIOS).filter(([id]) => id !== "bayview-reference-studio");
    expect(others.length).toBeGreaterThan(0);
    for (const [id, s] of others) expect(s.testVerificationCode, id).toBeUndefined();
    // The same platform without test mode: two sends at different times, two different codes.
    const { testVerificationCode: _fixed, ...live } = bayview;
    const clock = testClock(t("2026-10-01T00:00:00Z"));
    const { connector } = connectorFor(live, { clock });
    value(await connector.verification.send({ phone: PHONE }, "booking"));
    const first = await connector.lastCodeFor(PHONE);
    clock.advance(MIN);
    value(await connector.verification.send({ phone: PHONE }, "booking"));
    const second = await connector.lastCodeFor(PHONE);
    expect(first).toMatch(/^\d{6}$/);
    expect(second).not.toBe(first);
  });

  it("a test code must be six digits", () => {
    expect(validateScenario({ ...bayview, testVerificationCode: "12345" }).ok).toBe(false);
    expect(validateScenario({ ...bayview, testVerificationCode: "abcdef" }).ok).toBe(false);
  });
});
