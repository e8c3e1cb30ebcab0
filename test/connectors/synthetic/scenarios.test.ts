/** The embedded default's synthetic platforms and scenario validation. */
import { describe, expect, it } from "vitest";
import type { CatalogService } from "../../../src/connectors/port.js";
import { applyPercent } from "../../../src/protocol/money/index.js";
import {
  SYNTHETIC_SCENARIOS,
  createSyntheticConnector,
  fadesOnQueen,
  harbourviewDental,
  mapleStreetAuto,
  validateScenario,
  type SyntheticScenario,
} from "../../../src/connectors/synthetic/index.js";
import { MIN, testClock, value } from "./support.js";

describe("the three hosts of the embedded default", () => {
  it("are registered by host id, beside maple-street-auto's second location (§2.4) and the OSBP conformance host", () => {
    expect(Object.keys(SYNTHETIC_SCENARIOS).sort()).toEqual([
      "bayview-reference-studio",
      "fades-on-queen",
      "harbourview-dental",
      "maple-street-auto",
      "maple-street-auto-east",
    ]);
    for (const [id, s] of Object.entries(SYNTHETIC_SCENARIOS)) {
      expect(s.organization.id).toBe(id);
      expect(validateScenario(s).ok).toBe(true);
    }
  });

  it("Maple Street Auto: Toronto, 2 bays + 3 technicians, oil change CAD 79.00 + HST 13 %", () => {
    const s = mapleStreetAuto;
    expect(s.organization).toMatchObject({
      name: "Maple Street Auto",
      timezone: "America/Toronto",
      currency: "CAD",
    });
    expect(s.resources.map((r) => [r.id, r.type])).toEqual([
      ["bay-1", "bay"],
      ["bay-2", "bay"],
      ["tech-alex", "technician"],
      ["tech-sam", "technician"],
      ["tech-priya", "technician"],
    ]);
    const oil = s.services.find((x) => x.id === "oil-change");
    expect(oil).toMatchObject({
      duration: 45 * MIN,
      bufferAfterMs: 15 * MIN,
      price: { minor: 7900, currency: "CAD" },
    });
    expect(oil?.requires).toEqual([{ resourceType: "bay" }, { resourceType: "technician" }]);
    expect(s.services.find((x) => x.id === "brake-inspection")).toMatchObject({
      duration: 60 * MIN,
      price: { minor: 12000, currency: "CAD" },
    });
    expect(s.taxes).toEqual([{ label: "HST", percent: "13" }]);
    // The spec's example (§5.1): 79.00 + 13 % = 89.27.
    expect(applyPercent(oil!.price!.minor, s.taxes[0]!.percent)).toBe(1027);
    expect(s.resources[0]?.hours).toEqual([
      { day: 1, open: "08:00", close: "18:00" },
      { day: 2, open: "08:00", close: "18:00" },
      { day: 3, open: "08:00", close: "18:00" },
      { day: 4, open: "08:00", close: "18:00" },
      { day: 5, open: "08:00", close: "18:00" },
      { day: 6, open: "09:00", close: "14:00" },
    ]);
  });

  it("Harbourview Dental: Vancouver, 2 hygienists, a tax-exempt cleaning at CAD 180.00", () => {
    const s = harbourviewDental;
    expect(s.organization).toMatchObject({ name: "Harbourview Dental", timezone: "America/Vancouver" });
    expect(s.resources.map((r) => r.id)).toEqual(["hyg-1", "hyg-2"]);
    expect(s.resources.every((r) => r.type === "hygienist" && r.hours.length === 5)).toBe(true);
    expect(s.services).toEqual([
      expect.objectContaining({
        id: "cleaning",
        name: "Cleaning and check-up",
        duration: 60 * MIN,
        price: { minor: 18000, currency: "CAD" },
        taxExempt: true,
      }),
    ]);
  });

  it("Fades on Queen: Toronto, 2 barbers Tue–Sat 10:00–19:00, an unpriced consultation and a CAD 35.00 haircut", () => {
    const s = fadesOnQueen;
    expect(s.resources.map((r) => [r.id, r.name])).toEqual([
      ["barber-marcus", "Marcus"],
      ["barber-jordan", "Jordan"],
    ]);
    expect(s.resources[0]?.hours.map((h) => h.day)).toEqual([2, 3, 4, 5, 6]);
    const consultation = s.services.find((x) => x.id === "consultation");
    expect(consultation?.duration).toBe(30 * MIN);
    expect(consultation?.price).toBeUndefined();
    expect(s.services.find((x) => x.id === "haircut")).toMatchObject({
      price: { minor: 3500, currency: "CAD" },
    });
    expect(s.services.find((x) => x.id === "haircut")?.taxExempt).toBeUndefined();
    expect(s.taxes).toEqual([{ label: "HST", percent: "13" }]);
  });

  it("catalog.read() serves the scenario's catalog without the platform's own settings", async () => {
    const connector = createSyntheticConnector({ scenario: mapleStreetAuto, clock: testClock(0) });
    const catalog = value(await connector.catalog.read());
    expect(catalog).toEqual({
      organization: mapleStreetAuto.organization,
      services: mapleStreetAuto.services,
      resources: mapleStreetAuto.resources,
      taxes: mapleStreetAuto.taxes,
      verificationMethod: "sms",
    });
    expect("stepMs" in catalog).toBe(false);
  });
});

describe("validateScenario names the bad field", () => {
  const svc = mapleStreetAuto.services[0]!;
  it.each<[string, SyntheticScenario, string]>([
    [
      "a bad zone",
      { ...mapleStreetAuto, organization: { ...mapleStreetAuto.organization, timezone: "Toronto" } },
      "/organization/timezone",
    ],
    ["a step that does not divide a day", { ...mapleStreetAuto, stepMs: 7 * MIN }, "/stepMs"],
    [
      "a duplicate resource",
      { ...mapleStreetAuto, resources: [...mapleStreetAuto.resources, mapleStreetAuto.resources[0]!] },
      "/resources/5/id",
    ],
    [
      "bad hours",
      {
        ...mapleStreetAuto,
        resources: [{ ...mapleStreetAuto.resources[0]!, hours: [{ day: 1, open: "8am", close: "18:00" }] }],
      },
      "/resources/0/hours/0/open",
    ],
    [
      "a missing resource type",
      { ...mapleStreetAuto, services: [{ ...svc, requires: [{ resourceType: "lift" }] }] },
      "/services/0/requires/0/resourceType",
    ],
    [
      "set_aside on a fixed duration (§4.2)",
      { ...mapleStreetAuto, services: [{ ...svc, setAside: MIN }] },
      "/services/0/setAside",
    ],
    ["a bad tax", { ...mapleStreetAuto, taxes: [{ label: "HST", percent: "13%" }] }, "/taxes/0/percent"],
    [
      "verification with no method",
      { ...mapleStreetAuto, verificationMethod: "none", services: [{ ...svc, requiresVerification: true }] },
      "/verificationMethod",
    ],
  ])("%s", (_name, scenario, field) => {
    const r = validateScenario(scenario);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe(field);
    expect(() => createSyntheticConnector({ scenario, clock: testClock(0) })).toThrow(TypeError);
  });
});

describe("validateScenario: the OSBP terms a platform reports (port.ts)", () => {
  const svc = fadesOnQueen.services.find((s) => s.id === "haircut")!;
  const withService = (over: Partial<CatalogService>): SyntheticScenario => ({
    ...fadesOnQueen,
    services: [{ ...svc, ...over }],
  });
  const usd = (minor: number) => ({ minor, currency: "USD" });

  it("accepts every term stated consistently", () => {
    const s = withService({
      priceType: "fixed",
      payment: { requirement: "deposit", deposit: usd(5000) },
      requiresConsultation: false,
      cancellationFee: usd(2500),
      noShowFee: usd(0),
      cancellation: {
        enabled: true,
        windowMs: 6 * 60 * MIN,
        note: "Cancel 6 h ahead.",
        lateGraceMs: 15 * MIN,
      },
    });
    expect(validateScenario(s).ok).toBe(true);
    // full_prepay may state the amount taken upfront; a deposit requirement may leave it unknown.
    expect(
      validateScenario(withService({ payment: { requirement: "full_prepay", deposit: usd(3500) } })).ok,
    ).toBe(true);
    expect(validateScenario(withService({ payment: { requirement: "deposit" } })).ok).toBe(true);
    const { price: _price, ...unpriced } = svc;
    expect(
      validateScenario({ ...fadesOnQueen, services: [{ ...unpriced, priceType: "quote_required" }] }).ok,
    ).toBe(true);
  });

  const { price: _price, ...unpriced } = svc;
  it.each<[string, SyntheticScenario, string]>([
    [
      "a price type outside the OSBP set",
      withService({ priceType: "free" as never }),
      "/services/0/priceType",
    ],
    // OSBP "Money": non-fixed types mark a price with no fixed amount known at read time.
    [
      "an amount on an insurance_dependent price",
      withService({ priceType: "insurance_dependent" }),
      "/services/0/price",
    ],
    [
      "a fixed price type without a price",
      { ...fadesOnQueen, services: [{ ...unpriced, priceType: "fixed" }] },
      "/services/0/price",
    ],
    [
      "a payment requirement outside the OSBP set",
      withService({ payment: { requirement: "card" as never } }),
      "/services/0/payment/requirement",
    ],
    [
      "a deposit in an unknown currency",
      withService({ payment: { requirement: "deposit", deposit: { minor: 5000, currency: "XXX" } } }),
      "/services/0/payment/deposit",
    ],
    [
      "a deposit that is not whole minor units",
      withService({ payment: { requirement: "deposit", deposit: usd(50.5) } }),
      "/services/0/payment/deposit",
    ],
    [
      "a deposit with no upfront payment required",
      withService({ payment: { requirement: "none", deposit: usd(5000) } }),
      "/services/0/payment/deposit",
    ],
    [
      "a non-boolean consultation flag",
      withService({ requiresConsultation: "yes" as never }),
      "/services/0/requiresConsultation",
    ],
    ["a negative cancellation fee", withService({ cancellationFee: usd(-1) }), "/services/0/cancellationFee"],
    [
      "a no-show fee in a code with no minor unit (XAU)",
      withService({ noShowFee: { minor: 1, currency: "XAU" } }),
      "/services/0/noShowFee",
    ],
    [
      "cancellation terms without enabled",
      withService({ cancellation: { windowMs: 1000 } as never }),
      "/services/0/cancellation/enabled",
    ],
    [
      "a fractional cancellation window",
      withService({ cancellation: { enabled: true, windowMs: 1.5 } }),
      "/services/0/cancellation/windowMs",
    ],
    [
      "an empty cancellation note",
      withService({ cancellation: { enabled: true, note: "  " } }),
      "/services/0/cancellation/note",
    ],
    [
      "a send limit of zero",
      { ...fadesOnQueen, verificationSendLimit: { maxSends: 0, windowMs: 60_000 } },
      "/verificationSendLimit",
    ],
  ])("%s", (_name, scenario, field) => {
    const r = validateScenario(scenario);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe(field);
    expect(() => createSyntheticConnector({ scenario, clock: testClock(0) })).toThrow(TypeError);
  });
});
