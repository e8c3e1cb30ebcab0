/**
 * §5.2 "Place": where a service happens and what the hold must say about it, pure.
 * - location "host" (the default): a place sent is ignored;
 * - "guest" (at the guest's address): place with at least postal_code and country;
 * - "elsewhere" (a park, a café): place with at least a name;
 * - with policies.service_area, a guest or elsewhere place must have a postal code and
 *   country inside it.
 * Refusals are 422 OUT_OF_SERVICE_AREA, place_required or outside_service_area.
 */
import { err, ok, type Result } from "../../protocol/result.js";
import type { Place } from "../contract.js";
import type { BookingRefusal, HostPolicies, ServiceRules } from "../api.js";
import { bookingRefusal } from "./refusal.js";

type ServiceArea = NonNullable<HostPolicies["serviceArea"]>;

/** Postal codes compare without case, spaces or hyphens ("m5v 2t6" is "M5V2T6"). */
const normalize = (code: string): string => code.toUpperCase().replace(/[\s-]/g, "");

const placeRequired = (message: string, needs: readonly string[]): BookingRefusal =>
  bookingRefusal("out_of_service_area", {
    reason: "place_required",
    message,
    basis: { policy: "service.location", requires: [...needs] },
  });

function insideServiceArea(area: ServiceArea, place: Place): boolean {
  if (place.country === undefined || place.postal_code === undefined) return false;
  if (place.country.toUpperCase() !== area.country.toUpperCase()) return false;
  const code = normalize(place.postal_code);
  return area.postalPrefixes.length === 0 || area.postalPrefixes.some((p) => code.startsWith(normalize(p)));
}

/** The place the hold carries (undefined at the host's), or the refusal. */
export function checkPlace(
  location: ServiceRules["location"],
  place: Place | undefined,
  serviceArea: HostPolicies["serviceArea"],
): Result<Place | undefined, BookingRefusal> {
  const where = location ?? "host";
  if (where === "host") return ok(undefined);
  if (where === "guest" && (place?.postal_code === undefined || place.country === undefined)) {
    return err(
      placeRequired("this service comes to the guest: give the place's postal code and country", [
        "postal_code",
        "country",
      ]),
    );
  }
  if (where === "elsewhere" && place?.name === undefined) {
    return err(placeRequired("this service happens where the guest says: give the place a name", ["name"]));
  }
  if (place === undefined) return err(placeRequired("this service needs a place", ["name"]));
  if (serviceArea !== undefined) {
    if (place.postal_code === undefined || place.country === undefined) {
      return err(
        placeRequired("this host serves an area: give the place's postal code and country", [
          "postal_code",
          "country",
        ]),
      );
    }
    if (!insideServiceArea(serviceArea, place)) {
      return err(
        bookingRefusal("out_of_service_area", {
          reason: "outside_service_area",
          message: "that place is outside the area this host serves",
          basis: {
            policy: "service_area",
            country: serviceArea.country,
            postal_prefixes: [...serviceArea.postalPrefixes],
          },
        }),
      );
    }
  }
  return ok(place);
}
