/** Small synthetic platforms of the adapter tests' own, each checked by validateScenario when a rig starts. */
import type { SyntheticScenario } from "../../../../src/connectors/synthetic/index.js";
import { HOUR, MIN, withPayment } from "./support.js";

const cad = (minor: number) => ({ minor, currency: "CAD" });

/** A studio whose services report every policy fact the port can carry, and some it leaves out. */
export const STUDIO: SyntheticScenario = {
  organization: { id: "policy-studio", name: "Policy Studio", timezone: "America/Toronto", currency: "CAD" },
  services: [
    {
      id: "fee-cut",
      name: "Cut with fees",
      duration: 30 * MIN,
      bufferAfterMs: 0,
      price: cad(5000),
      requires: [{ resourceType: "stylist" }],
      payment: { requirement: "none" },
      cancellation: {
        enabled: true,
        windowMs: 6 * HOUR,
        note: "Cancel at least 6 hours before.",
        lateGraceMs: 15 * MIN,
      },
      cancellationFee: cad(2500),
      noShowFee: cad(5000),
    },
    {
      id: "deposit-colour",
      name: "Colour",
      duration: 90 * MIN,
      bufferAfterMs: 0,
      price: cad(12_000),
      requires: [{ resourceType: "stylist" }],
      payment: { requirement: "deposit", deposit: cad(3000) },
      cancellation: { enabled: false },
    },
    {
      id: "quote",
      name: "Bridal consultation",
      duration: 60 * MIN,
      bufferAfterMs: 0,
      priceType: "quote_required",
      requiresConsultation: true,
      requires: [{ resourceType: "stylist" }],
      payment: { requirement: "none" },
    },
    {
      id: "consult",
      name: "Colour consultation",
      duration: 30 * MIN,
      bufferAfterMs: 0,
      price: cad(2000),
      requiresConsultation: true,
      requires: [{ resourceType: "stylist" }],
      payment: { requirement: "none" },
    },
    {
      id: "insured",
      name: "Scalp treatment",
      duration: 45 * MIN,
      bufferAfterMs: 0,
      priceType: "insurance_dependent",
      requires: [{ resourceType: "stylist" }],
    },
  ],
  resources: [
    {
      id: "stylist-1",
      type: "stylist",
      name: "Robin",
      capacity: 1,
      staff: true,
      hours: [{ day: 1, open: "09:00", close: "17:00" }],
    },
  ],
  taxes: [],
  stepMs: 15 * MIN,
};

export const YEN: SyntheticScenario = {
  ...STUDIO,
  organization: {
    id: "ginza-barber",
    name: "Ginza Barber",
    timezone: "Asia/Tokyo",
    currency: "JPY",
    country: "JP",
  },
  services: [
    {
      id: "cut",
      name: "Cut",
      duration: 30 * MIN,
      bufferAfterMs: 0,
      price: { minor: 4500, currency: "JPY" },
      requires: [{ resourceType: "stylist" }],
    },
  ],
};

/** Open Sundays 00:00–06:00 in Toronto: the hours the clocks change in. One staff member, hourly starts. */
export const NIGHT_OWL: SyntheticScenario = withPayment({
  organization: { id: "night-owl", name: "Night Owl Clinic", timezone: "America/Toronto", currency: "CAD" },
  services: [
    {
      id: "check",
      name: "Night check",
      duration: 60 * MIN,
      bufferAfterMs: 0,
      price: { minor: 5000, currency: "CAD" },
      requires: [{ resourceType: "nurse" }],
    },
  ],
  resources: [
    {
      id: "nurse-1",
      type: "nurse",
      name: "Noor",
      capacity: 1,
      staff: true,
      hours: [{ day: 7, open: "00:00", close: "06:00" }],
    },
  ],
  taxes: [],
  stepMs: 60 * MIN,
});

/** A self-serve wash bay: nobody's time is booked, so slots carry no provider. */
export const WASH: SyntheticScenario = withPayment({
  organization: { id: "wash", name: "Self Wash", timezone: "America/Toronto", currency: "CAD" },
  services: [
    {
      id: "bay-hour",
      name: "Wash bay",
      duration: 60 * MIN,
      bufferAfterMs: 0,
      price: { minor: 1500, currency: "CAD" },
      requires: [{ resourceType: "bay" }],
    },
  ],
  resources: [
    {
      id: "wash-1",
      type: "bay",
      name: "Bay A",
      capacity: 1,
      staff: false,
      hours: [{ day: 1, open: "08:00", close: "10:00" }],
    },
  ],
  taxes: [],
  stepMs: 60 * MIN,
});
