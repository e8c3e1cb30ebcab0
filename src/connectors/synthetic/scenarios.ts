/**
 * The synthetic platforms behind the embedded default operator: three
 * businesses whose ids, zones, hours, prices and taxes match the host configuration in
 * src/booking/hosts/embedded-default.ts. Resource ids are stable, so tests, the demo and
 * a selectable resource ("Haircut with Marcus", SchCP §5.2) can name them.
 */
import type { CatalogResource, CatalogTax, WeeklyPeriod } from "../port.js";
import { bayviewReferenceStudio } from "./bayview.js";
import type { SyntheticScenario } from "./scenario.js";

const MIN = 60_000;
const HST: CatalogTax = { label: "HST", percent: "13" };
const cad = (minor: number) => ({ minor, currency: "CAD" });

const days = (from: WeeklyPeriod["day"], to: WeeklyPeriod["day"], open: string, close: string) => {
  const out: WeeklyPeriod[] = [];
  for (let d = from; d <= to; d++) out.push({ day: d, open, close });
  return out;
};

/** People whose time a booking binds (OSBP providers). */
const staff = (
  type: string,
  hours: readonly WeeklyPeriod[],
  ...people: ReadonlyArray<readonly [id: string, name: string]>
): CatalogResource[] => people.map(([id, name]) => ({ id, type, name, capacity: 1, hours, staff: true }));

/** Rooms, bays and equipment: assigned with a booking, never its provider. */
const places = (
  type: string,
  hours: readonly WeeklyPeriod[],
  ...items: ReadonlyArray<readonly [id: string, name: string]>
): CatalogResource[] => items.map(([id, name]) => ({ id, type, name, capacity: 1, hours, staff: false }));

/** Mon–Fri 08:00–18:00, Sat 09:00–14:00, America/Toronto; instant confirmation at the gateway. */
const MAPLE_HOURS = [...days(1, 5, "08:00", "18:00"), { day: 6, open: "09:00", close: "14:00" } as const];

export const mapleStreetAuto: SyntheticScenario = {
  organization: {
    id: "maple-street-auto",
    name: "Maple Street Auto",
    timezone: "America/Toronto",
    currency: "CAD",
    country: "CA",
  },
  services: [
    {
      id: "oil-change",
      name: "Oil change",
      duration: 45 * MIN,
      bufferAfterMs: 15 * MIN,
      price: cad(7900),
      pricePer: "booking",
      requires: [{ resourceType: "bay" }, { resourceType: "technician" }],
      // Paid at the counter: the platform asks for nothing upfront (OSBP policy.explain).
      payment: { requirement: "none" },
    },
    {
      id: "brake-inspection",
      name: "Brake inspection",
      duration: 60 * MIN,
      bufferAfterMs: 0,
      price: cad(12000),
      pricePer: "booking",
      requires: [{ resourceType: "bay" }, { resourceType: "technician" }],
      // Paid at the counter: the platform asks for nothing upfront (OSBP policy.explain).
      payment: { requirement: "none" },
    },
  ],
  resources: [
    ...places("bay", MAPLE_HOURS, ["bay-1", "Bay 1"], ["bay-2", "Bay 2"]),
    ...staff("technician", MAPLE_HOURS, ["tech-alex", "Alex"], ["tech-sam", "Sam"], ["tech-priya", "Priya"]),
  ],
  taxes: [HST],
  verificationMethod: "sms",
  stepMs: 15 * MIN,
};

/** Mon–Fri 08:00–17:00, America/Vancouver; host approval at the gateway. */
export const harbourviewDental: SyntheticScenario = {
  organization: {
    id: "harbourview-dental",
    name: "Harbourview Dental",
    timezone: "America/Vancouver",
    currency: "CAD",
    country: "CA",
  },
  services: [
    {
      id: "cleaning",
      name: "Cleaning and check-up",
      duration: 60 * MIN,
      bufferAfterMs: 0,
      price: cad(18000),
      pricePer: "booking",
      // Dental services are tax exempt; the platform still knows the province's tax.
      taxExempt: true,
      requires: [{ resourceType: "hygienist" }],
      // Paid at the counter: the platform asks for nothing upfront (OSBP policy.explain).
      payment: { requirement: "none" },
    },
  ],
  resources: staff("hygienist", days(1, 5, "08:00", "17:00"), ["hyg-1", "Dana"], ["hyg-2", "Kiran"]),
  // British Columbia charges GST, not HST; no service here is taxed.
  taxes: [{ label: "GST", percent: "5" }],
  verificationMethod: "sms",
  stepMs: 15 * MIN,
};

/** Tue–Sat 10:00–19:00, America/Toronto; barbers are selectable at the gateway. */
export const fadesOnQueen: SyntheticScenario = {
  organization: {
    id: "fades-on-queen",
    name: "Fades on Queen",
    timezone: "America/Toronto",
    currency: "CAD",
    country: "CA",
  },
  services: [
    // §5.2: a service with no price has no price or total.
    {
      id: "consultation",
      name: "Consultation",
      duration: 30 * MIN,
      bufferAfterMs: 0,
      requires: [{ resourceType: "barber" }],
      // Paid at the counter: the platform asks for nothing upfront (OSBP policy.explain).
      payment: { requirement: "none" },
    },
    {
      id: "haircut",
      name: "Haircut",
      duration: 30 * MIN,
      bufferAfterMs: 0,
      price: cad(3500),
      pricePer: "booking",
      requires: [{ resourceType: "barber" }],
      // Paid at the counter: the platform asks for nothing upfront (OSBP policy.explain).
      payment: { requirement: "none" },
    },
  ],
  resources: staff(
    "barber",
    days(2, 6, "10:00", "19:00"),
    ["barber-marcus", "Marcus"],
    ["barber-jordan", "Jordan"],
  ),
  taxes: [HST],
  verificationMethod: "sms",
  stepMs: 15 * MIN,
};

/** Maple Street Auto's second location (SchCP §2.4 brand): the same shop, its own bays and bookings. */
const mapleStreetAutoEast: SyntheticScenario = {
  ...mapleStreetAuto,
  organization: {
    ...mapleStreetAuto.organization,
    id: "maple-street-auto-east",
    name: "Maple St. Auto Danforth",
  },
};

/**
 * The synthetic platforms by host id (HostConfig.connector.settings.scenario): the three of
 * the embedded default, and the OSBP conformance host (bayview.ts), which is not in the
 * embedded default but is configured by src/gateway/osbp-conformance.
 */
export const SYNTHETIC_SCENARIOS: Readonly<Record<string, SyntheticScenario>> = {
  [mapleStreetAuto.organization.id]: mapleStreetAuto,
  [mapleStreetAutoEast.organization.id]: mapleStreetAutoEast,
  [harbourviewDental.organization.id]: harbourviewDental,
  [fadesOnQueen.organization.id]: fadesOnQueen,
  [bayviewReferenceStudio.organization.id]: bayviewReferenceStudio,
};
