/**
 * The business, its one location (members, services, schedules) and its zone, read once and
 * kept until the catalog is read again: `GET /businesses/{slug}`, `GET /businesses/{id}/locations`
 * (one location, or `locationId` in settings), `GET /locations/{id}`.
 */
import type { ConnectorResult } from "../ports/result.js";
import { dataFrom, type OpeningsContext } from "./context.js";
import { fail, withMeta } from "./results.js";
import {
  readBusiness,
  readLocationDetail,
  readLocations,
  type WireBusiness,
  type WireLocationDetail,
} from "./wire.js";

export interface Salon {
  readonly business: WireBusiness;
  readonly location: WireLocationDetail;
  readonly timezone: string | undefined;
}

export interface SalonSource {
  /** The salon as last read, or read now. */
  ensure(): Promise<ConnectorResult<Salon>>;
  /** Forgets the salon and reads it again. */
  reload(): Promise<ConnectorResult<Salon>>;
  /** The salon as last read, without a call. */
  current(): Salon | undefined;
}

export function createSalonSource(api: OpeningsContext): SalonSource {
  const { settings, call } = api;
  let salon: Salon | undefined;

  async function load(): Promise<ConnectorResult<Salon>> {
    const b = dataFrom(
      await call("GET", `/businesses/${encodeURIComponent(settings.businessSlug)}`),
      readBusiness,
      "business",
    );
    if (!b.ok) return b;
    let locationId = settings.locationId;
    if (locationId === undefined) {
      const ls = dataFrom(
        await call("GET", `/businesses/${encodeURIComponent(b.value.id)}/locations`),
        readLocations,
        "location list",
      );
      if (!ls.ok) return ls;
      if (ls.value.length !== 1) {
        return fail(
          {
            code: "invalid_request",
            message: `Openings business has ${ls.value.length} locations: set locationId in the host's settings`,
          },
          ls.upstream,
        );
      }
      locationId = ls.value[0]!.id;
    }
    const l = dataFrom(
      await call("GET", `/locations/${encodeURIComponent(locationId)}`),
      readLocationDetail,
      "location",
    );
    if (!l.ok) return l;
    salon = { business: b.value, location: l.value, timezone: b.value.timezone ?? settings.timezone };
    return withMeta(salon, l.upstream);
  }

  return {
    ensure: async () => (salon ? { ok: true, value: salon } : load()),
    reload: () => {
      salon = undefined;
      return load();
    },
    current: () => salon,
  };
}
