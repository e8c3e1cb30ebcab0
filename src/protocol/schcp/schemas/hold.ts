/**
 * Availability (SchCP §5.1) and holds (§5.2). Requests are closed (§5.2, §8: a hold carrying
 * "payment" is 400). The Hold is closed and requires the offer (§5.2). The availability
 * response is not called closed by the spec; we close it anyway (strict reading: it is the
 * gateway's own output, and closing it keeps anything unintended from leaking into it).
 */
import { closed, endIffNotOpen, enumOf, positiveInt, ref, str, trueOnly } from "./common.js";
import type { Schema } from "./common.js";

/** price and total come together on a slot or hold: both or neither (§5.1). */
const priceWithTotal: Schema = { dependentRequired: { price: ["total"], total: ["price"] } };

export const holdDefs: Record<string, Schema> = {
  Slot: {
    ...closed(
      {
        start: ref("DateTime"),
        end: ref("DateTime"),
        open_end: trueOnly,
        price: ref("Money"),
        total: ref("Money"),
      },
      ["start"],
    ),
    ...priceWithTotal,
    ...endIffNotOpen,
  },
  AvailabilityRequest: closed(
    {
      service_id: ref("Id"),
      window: ref("TimeWindow"),
      constraints: closed({
        resource: { anyOf: [{ type: "null" }, ref("Id")] },
        granularity: ref("Duration"),
      }),
      limit: positiveInt,
      party_size: positiveInt,
    },
    ["service_id", "window"],
  ),
  AvailabilityResponse: closed(
    {
      service_id: ref("Id"),
      timezone: ref("TimeZone"),
      slots: { type: "array", items: ref("Slot") },
      as_of: ref("DateTime"),
    },
    ["service_id", "timezone", "slots", "as_of"],
  ),
  /** ttl is optional: without it the host grants its policy maximum (§5.2 "min(requested, …)"). */
  HoldRequest: closed(
    {
      service_id: ref("Id"),
      start: ref("DateTime"),
      idempotency_key: ref("Id"),
      ttl: ref("Duration"),
      callback_url: ref("HttpsUri"),
      party_size: positiveInt,
      resource: ref("Id"),
      place: ref("Place"),
    },
    ["service_id", "start", "idempotency_key"],
  ),
  /**
   * §5.2 Hold, returned by POST, GET and DELETE /holds/{id} and carried by hold.expired and
   * waitlist.offered. Statuses per §6: held, released, expired, and "confirmed" for a hold a
   * booking consumed, so a GET after confirm still has a status to report (our decision).
   */
  Hold: {
    ...closed(
      {
        hold_id: ref("Id"),
        status: enumOf("held", "released", "expired", "confirmed"),
        service_id: ref("Id"),
        start: ref("DateTime"),
        end: ref("DateTime"),
        open_end: trueOnly,
        expires_at: ref("DateTime"),
        price: ref("Money"),
        total: ref("Money"),
        party_size: positiveInt,
        place: ref("Place"),
        resource: ref("Id"),
        resource_name: str,
        offer: ref("CompactJws"),
      },
      ["hold_id", "status", "service_id", "start", "expires_at", "offer"],
    ),
    ...priceWithTotal,
    ...endIffNotOpen,
  },
};
