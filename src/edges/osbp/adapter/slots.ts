/**
 * OSBP Slots (OSBP "availability.find", "Core Objects"): one per (platform start, provider).
 * The slot id has the spec example's form, `${schedule_id}:${provider_id ?? "any"}:
 * ${service_id}:${starts_at_local}`, so the same opening always has the same id.
 */
import type { Catalog, CatalogResource, CatalogService, PlaceLocation } from "../../../booking/catalog.js";
import type { UpstreamSlot } from "../../../booking/upstream.js";
import type { Slot } from "../../../protocol/osbp/index.js";
import type { WallClock } from "../../../protocol/time/index.js";
import { fixedMoney, priceOf, scheduleHoursOf, scheduleIdOf, type StaffShape } from "./catalog-facts.js";
import type { Money } from "../../../protocol/money/index.js";
import { addressable, instantText, knownZone, localWall, naiveWallPlus, wallText } from "./local-time.js";

const slotId = (scheduleId: string, providerId: string | undefined, serviceId: string, startLocal: string) =>
  `${scheduleId}:${providerId ?? "any"}:${serviceId}:${startLocal}`;

/**
 * What a Slot carries about the business for presentation without round-trips (OSBP schema
 * "Slot": organization_name, schedule_address, schedule_latitude, schedule_longitude): the
 * host's name as the gateway registers it, and where it is, when that is known.
 */
export interface SchedulePlace {
  readonly organizationName: string;
  readonly location?: PlaceLocation;
  /**
   * The all-in amount the business records for one booking of a service at a start (the core's
   * pricing: fees, surcharges at that start, taxes), so the price an agent shows before booking,
   * and the mandate's cap is checked against, is the total recorded. Absent: the listed price.
   * `stated` is the upstream's own total at that start (UpstreamSlot.total), which it then is.
   */
  readonly allIn?: (service: CatalogService, start: number | undefined, stated?: Money) => Money | undefined;
}

/**
 * The host's own location (its configuration) member by member over the upstream's; the
 * coordinates come as a pair from one source.
 */
export function schedulePlace(
  organizationName: string,
  configured: PlaceLocation | undefined,
  upstream: PlaceLocation | undefined,
): SchedulePlace {
  const address = configured?.address ?? upstream?.address;
  const pair = (l: PlaceLocation | undefined) =>
    l?.latitude !== undefined && l.longitude !== undefined
      ? { latitude: l.latitude, longitude: l.longitude }
      : undefined;
  const coordinates = pair(configured) ?? pair(upstream);
  const location = { ...(address !== undefined && { address }), ...coordinates };
  return { organizationName, ...(Object.keys(location).length > 0 && { location }) };
}

interface SlotParts {
  readonly catalog: Catalog;
  readonly place: SchedulePlace;
  readonly service: CatalogService;
  readonly provider: CatalogResource | undefined;
  readonly startLocal: string;
  readonly endLocal: string;
  /** Absent when the zone is unknown (OSBP: left absent rather than guessed). */
  readonly start?: number;
  readonly end?: number;
  /** The upstream's stated all-in total at the start, when it states one. */
  readonly stated?: Money;
}

function slotOf(p: SlotParts): Slot {
  const { catalog, service, provider } = p;
  const scheduleId = scheduleIdOf(catalog);
  const slot: Slot = {
    id: slotId(scheduleId, provider?.id, service.id, p.startLocal),
    organization_id: catalog.organization.id,
    schedule_id: scheduleId,
    schedule_name: catalog.organization.name,
    organization_name: p.place.organizationName,
    service_id: service.id,
    starts_at_local: p.startLocal,
    ends_at_local: p.endLocal,
  };
  const where = p.place.location;
  if (where?.address !== undefined) slot.schedule_address = where.address;
  if (where?.latitude !== undefined && where.longitude !== undefined) {
    slot.schedule_latitude = where.latitude;
    slot.schedule_longitude = where.longitude;
  }
  if (knownZone(catalog.organization.timezone)) slot.schedule_timezone = catalog.organization.timezone;
  if (provider !== undefined) {
    slot.provider_id = provider.id;
    slot.provider_name = provider.name;
    slot.schedule_hours = scheduleHoursOf(provider);
  }
  if (p.start !== undefined) slot.starts_at = instantText(p.start);
  if (p.end !== undefined) slot.ends_at = instantText(p.end);
  const listed = priceOf(catalog, service);
  const allIn = listed?.amount_minor !== undefined ? p.place.allIn?.(service, p.start, p.stated) : undefined;
  const price = allIn !== undefined ? fixedMoney(allIn) : listed;
  if (price !== undefined) slot.price = price;
  return slot;
}

/**
 * The platform's free starts as OSBP slots, in start order then provider (catalog) order. A
 * start whose merchant-local time booking.create cannot address (the second occurrence of a
 * repeated fall-back hour) is left out. The zone must be valid; the service has a fixed
 * duration (staffShape refuses open-ended ones).
 */
export function slotsFromUpstream(
  catalog: Catalog,
  place: SchedulePlace,
  service: CatalogService,
  shape: StaffShape,
  upstream: readonly UpstreamSlot[],
  providerFilter: string | undefined,
): Slot[] {
  const zone = catalog.organization.timezone;
  const duration = service.duration === "open" ? 0 : service.duration;
  const out: Slot[] = [];
  for (const u of [...upstream].sort((a, b) => a.start - b.start)) {
    if (u.serviceId !== service.id || !addressable(u.start, zone)) continue;
    const end = u.end ?? u.start + duration;
    const times = {
      start: u.start,
      end,
      ...(u.total !== undefined && { stated: u.total }),
      startLocal: wallText(localWall(u.start, zone)),
      endLocal: wallText(localWall(end, zone)),
    };
    if (shape.kind === "none") {
      if (providerFilter === undefined)
        out.push(slotOf({ catalog, place, service, provider: undefined, ...times }));
      continue;
    }
    const free = new Set(u.resourceIds);
    for (const provider of shape.providers) {
      if (!free.has(provider.id) || (providerFilter !== undefined && provider.id !== providerFilter))
        continue;
      out.push(slotOf({ catalog, place, service, provider, ...times }));
    }
  }
  return out;
}

/**
 * The slot a booking.create asks for, built from its merchant-local date and time: what
 * validateMandate judges. With an unknown zone starts_at/ends_at stay absent (OSBP "Time
 * Discipline") and the end is wall-clock arithmetic; the booking then fails closed before any
 * upstream call, because the platform is addressed by instant.
 */
export function requestedSlot(args: {
  catalog: Catalog;
  place: SchedulePlace;
  service: CatalogService & { readonly duration: number };
  provider: CatalogResource | undefined;
  wall: WallClock;
  /** The instant the wall-clock addresses; undefined when the zone is unknown. */
  start: number | undefined;
  /** The upstream's stated all-in total at that start (the core's opening), when known. */
  stated?: Money;
}): Slot {
  const { catalog, place, service, provider, wall, start, stated } = args;
  const zone = catalog.organization.timezone;
  if (start === undefined) {
    return slotOf({
      catalog,
      place,
      service,
      provider,
      startLocal: wallText(wall),
      endLocal: wallText(naiveWallPlus(wall, service.duration)),
    });
  }
  const end = start + service.duration;
  return slotOf({
    catalog,
    place,
    service,
    provider,
    start,
    end,
    startLocal: wallText(wall),
    endLocal: wallText(localWall(end, zone)),
    ...(stated !== undefined && { stated }),
  });
}
