/**
 * OfferClaims (SchCP §5.2): the claims of a host-signed schcp-offer+jwt. Closed at every
 * depth: host, service, slot, reconfirm and each price line allow no member they do not
 * define, so "a cancellation_fee inside slot fails like one at the top".
 *
 * The money arithmetic (lines sum to total, one currency, minor-unit decimals) is checked in
 * code by the offer module; this schema states only what a schema can.
 */
import { closed, enumOf, numericDate, positiveInt, ref, str, trueOnly } from "./common.js";
import type { Schema } from "./common.js";

export const offerDefs: Record<string, Schema> = {
  OfferLine: closed(
    {
      kind: enumOf("service", "fee", "surcharge", "tax"),
      label: str,
      amount: ref("Money"),
    },
    ["kind", "label", "amount"],
  ),
  /**
   * §5.10 reconfirm: before and default as published, confirm_by once computed. The spec names
   * only "release" as a default; "keep" (the booking stands) is our reading of "unless given".
   */
  Reconfirm: closed(
    { before: ref("Duration"), default: enumOf("release", "keep"), confirm_by: ref("DateTime") },
    ["before", "default"],
  ),
  /** §5.2 host: name and tz required; address is one line; a person's calendar names its owner. */
  OfferHost: {
    ...closed(
      {
        name: str,
        tz: ref("TimeZone"),
        domain: { type: "string", format: "hostname" },
        address: str,
        kind: enumOf("business", "person"),
        owner: ref("PrincipalId"),
      },
      ["name", "tz"],
    ),
    // "kind is "person" for a person's calendar, which also names its owner's principal".
    if: { properties: { kind: { const: "person" } }, required: ["kind"] },
    then: { required: ["owner"] },
  },
  OfferClaims: {
    ...closed(
      {
        v: { const: "0.4" },
        kind: enumOf("booking", "change"),
        iss: ref("Id"),
        hold_id: ref("Id"),
        booking_id: ref("Id"),
        // The SHA-256 of the booking's current contract; null when the booking was made outside
        // SchCP and so has no contract (§5.3 "its offer_sha256 is null").
        prev: { anyOf: [{ type: "null" }, ref("Sha256")] },
        iat: numericDate,
        exp: numericDate,
        // §5.2: hosts SHOULD include host; key apps fall back to iss when it is absent.
        host: ref("OfferHost"),
        service: closed({ id: ref("Id"), name: str }, ["id", "name"]),
        slot: closed({ start: ref("DateTime"), end: ref("DateTime") }, ["start"]),
        open_end: trueOnly,
        price: ref("Money"),
        total: ref("Money"),
        lines: { type: "array", items: ref("OfferLine"), minItems: 1 },
        retention: ref("Retention"),
        reconfirm: ref("Reconfirm"),
        resource: ref("Id"),
        resource_name: str,
        place: ref("Place"),
        party_size: positiveInt,
        approval_by: ref("DateTime"),
      },
      ["v", "kind", "iss", "iat", "exp", "service", "slot", "retention"],
    ),
    // "They come together: an offer with price has total and lines, one with total has lines,
    // and lines alone is invalid" (§5.2). An unpriced extension has total and lines only.
    dependentRequired: { price: ["total", "lines"], total: ["lines"], lines: ["total"] },
    allOf: [
      // §4.2: slot.end is absent iff open_end is true.
      {
        if: { required: ["open_end"] },
        then: { properties: { slot: { properties: { end: false } } } },
        else: { properties: { slot: { required: ["end"] } } },
      },
      // A booking offer belongs to a hold; a change offer (§5.7) to a booking, chained by prev.
      // Strict reading: neither carries the other kind's identifiers.
      {
        if: { properties: { kind: { const: "booking" } } },
        then: { required: ["hold_id"], properties: { booking_id: false, prev: false } },
        else: { required: ["booking_id", "prev"], properties: { hold_id: false } },
      },
    ],
  },
};
