/**
 * The catalog of a Square location (Bookings API "Create and Manage Bookings": Locations,
 * Catalog, Bookings profiles): the location (name, zone, currency, business hours), the
 * business booking profile (cancellation terms), the bookable team members' booking profiles,
 * and the appointment services (catalog items of product type APPOINTMENTS_SERVICE enabled at
 * the location) with their variations.
 *
 * - A service is a service VARIATION (its id is what SearchAvailability and CreateBooking take);
 *   its version is read again at booking time, since a catalog edit bumps it (bookings.ts).
 * - Team members are the resources (type "person", staff, capacity 1). Square's API does not
 *   expose a team member's own bookable hours, so each carries the location's business hours;
 *   the free starts themselves always come from SearchAvailability, which knows the real ones.
 * - Prices are Square Money in minor units with their currency (read.ts moneyOf); a variable
 *   price is no price (priceType "unknown").
 * - Taxes are not read (Square applies them at checkout, not in booking): `taxes` is empty.
 */
import type { Square, SquareClient } from "square";
import type { Catalog, CatalogResource, CatalogService, PlaceLocation, WeeklyPeriod } from "../port.js";
import { isValidTimeZone } from "../../protocol/time/index.js";
import { UnreadableAnswer } from "./errors.js";
import { moneyOf, optionalInt, text } from "./read.js";

const DAYS: Readonly<Record<string, WeeklyPeriod["day"]>> = {
  MON: 1,
  TUE: 2,
  WED: 3,
  THU: 4,
  FRI: 5,
  SAT: 6,
  SUN: 7,
};

/** "09:00:00" → "09:00". */
function hhmm(value: unknown, what: string): string {
  const s = text(value, what);
  const m = /^(\d{2}):(\d{2})(?::\d{2})?$/.exec(s);
  if (m === null) throw new UnreadableAnswer(`${what} is not a local time`);
  return `${m[1]}:${m[2]}`;
}

function hoursOf(hours: Square.BusinessHours | undefined): WeeklyPeriod[] {
  return (hours?.periods ?? []).map((p, i) => {
    const day = DAYS[p.dayOfWeek ?? ""];
    if (day === undefined) throw new UnreadableAnswer(`business_hours.periods[${i}].day_of_week`);
    return {
      day,
      open: hhmm(p.startLocalTime, `business_hours.periods[${i}].start_local_time`),
      close: hhmm(p.endLocalTime, `business_hours.periods[${i}].end_local_time`),
    };
  });
}

function servicesOf(
  items: readonly Square.CatalogObject[],
  profile: Square.BusinessBookingProfile | undefined,
  payment?: "none" | "deposit" | "full_prepay",
): CatalogService[] {
  const settings = profile?.businessAppointmentSettings;
  const cancellationFee = moneyOf(settings?.cancellationFeeMoney, "cancellation_fee_money");
  const windowSeconds = optionalInt(settings?.cancellationWindowSeconds, "cancellation_window_seconds");
  const cancellation =
    profile?.allowUserCancel === undefined || profile.allowUserCancel === null
      ? undefined
      : {
          enabled: profile.allowUserCancel,
          ...(windowSeconds === undefined ? {} : { windowMs: windowSeconds * 1000 }),
          ...(settings?.cancellationPolicyText ? { note: settings.cancellationPolicyText } : {}),
        };
  const services: CatalogService[] = [];
  for (const item of items) {
    if (item.type !== "ITEM" || item.isDeleted === true) continue;
    const data = item.itemData;
    const variations = (data?.variations ?? []).filter(
      (v) => v.type === "ITEM_VARIATION" && v.isDeleted !== true,
    );
    for (const v of variations) {
      if (v.type !== "ITEM_VARIATION") continue;
      const vd = v.itemVariationData;
      if (vd?.availableForBooking === false) continue;
      const duration = optionalInt(vd?.serviceDuration, `variation ${v.id} service_duration`);
      if (duration === undefined || duration <= 0) continue;
      const itemName = text(data?.name, `item ${item.id} name`);
      const name = variations.length > 1 && vd?.name ? `${itemName} – ${vd.name}` : itemName;
      const price =
        vd?.pricingType === "VARIABLE_PRICING"
          ? undefined
          : moneyOf(vd?.priceMoney, `variation ${v.id} price_money`);
      services.push({
        id: text(v.id, "variation id"),
        name,
        duration,
        bufferAfterMs: 0,
        ...(price === undefined
          ? { priceType: "unknown" as const }
          : { price, priceType: "fixed" as const, pricePer: "booking" as const }),
        requires: [{ resourceType: "person" }],
        ...(cancellation === undefined ? {} : { cancellation }),
        ...(cancellationFee === undefined ? {} : { cancellationFee }),
        ...(payment === undefined ? {} : { payment: { requirement: payment } }),
      });
    }
  }
  return services;
}

/** Every page of a cursor-paged search (one request per page). */
async function allServiceItems(client: SquareClient, locationId: string): Promise<Square.CatalogObject[]> {
  const items: Square.CatalogObject[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const answer = await client.catalog.searchItems({
      productTypes: ["APPOINTMENTS_SERVICE"],
      enabledLocationIds: [locationId],
      limit: 100,
      ...(cursor === undefined ? {} : { cursor }),
    });
    items.push(...(answer.items ?? []));
    cursor = answer.cursor ?? undefined;
    if (cursor === undefined || cursor === "") return items;
  }
  throw new UnreadableAnswer("the service catalog has more than 50 pages");
}

/**
 * The location's address on one line (Square "Address": address lines, locality, district,
 * postal code, country) and its coordinates (Square "Coordinates"), each only when present
 * and well-formed: a missing or odd one is left out, never guessed.
 */
function placeOf(location: Square.Location): { location?: PlaceLocation } {
  const a = location.address;
  const parts = [
    a?.addressLine1,
    a?.addressLine2,
    a?.addressLine3,
    a?.locality,
    a?.administrativeDistrictLevel1,
    a?.postalCode,
    a?.country,
  ].filter((p): p is string => typeof p === "string" && p.trim() !== "");
  const lat = location.coordinates?.latitude;
  const lng = location.coordinates?.longitude;
  const coordinates =
    typeof lat === "number" && typeof lng === "number" && Math.abs(lat) <= 90 && Math.abs(lng) <= 180
      ? { latitude: lat, longitude: lng }
      : undefined;
  const place: PlaceLocation = {
    ...(parts.length > 0 && { address: parts.join(", ") }),
    ...coordinates,
  };
  return Object.keys(place).length > 0 ? { location: place } : {};
}

export async function readCatalog(
  client: SquareClient,
  locationId: string,
  paymentRequirement?: "none" | "deposit" | "full_prepay",
): Promise<Catalog> {
  const location = (await client.locations.get({ locationId })).location;
  if (location === undefined) throw new UnreadableAnswer("the location is missing");
  const timezone = text(location.timezone, "location.timezone");
  if (!isValidTimeZone(timezone)) throw new UnreadableAnswer("location.timezone is not an IANA zone");
  const profile = (await client.bookings.getBusinessProfile()).businessBookingProfile;
  const hours = hoursOf(location.businessHours);
  const resources: CatalogResource[] = [];
  const team = await client.bookings.teamMemberProfiles.list({ bookableOnly: true, locationId, limit: 100 });
  for await (const member of team) {
    if (member.isBookable === false) continue;
    const id = text(member.teamMemberId, "team_member_id");
    resources.push({ id, type: "person", name: member.displayName || id, capacity: 1, hours, staff: true });
  }
  const services = servicesOf(await allServiceItems(client, locationId), profile, paymentRequirement);
  return {
    organization: {
      id: text(location.id, "location.id"),
      name: location.businessName || text(location.name, "location.name"),
      timezone,
      ...(location.currency ? { currency: location.currency } : {}),
      ...(location.country ? { country: location.country } : {}),
      ...placeOf(location),
    },
    services,
    resources,
    taxes: [],
    verificationMethod: "none",
  };
}
