/**
 * The whole SchCP 0.4 schema as one JSON Schema 2020-12 document, published by the gateway
 * under the $id the spec names (spec/schemas/schcp.schema.json, §2.1 "Versions"). Every
 * definition is in $defs and refers to the others by "#/$defs/<Name>".
 */
import { bookingDefs } from "./booking.js";
import { commonDefs } from "./common.js";
import type { Schema } from "./common.js";
import { discoveryDefs } from "./discovery.js";
import { eventDefs } from "./events.js";
import { holdDefs } from "./hold.js";
import { mandateDefs } from "./mandate.js";
import { meetingDefs } from "./meeting.js";
import { offerDefs } from "./offer.js";
import { receiptDefs } from "./receipt.js";
import { refusalDefs } from "./refusal.js";
import { requestDefs } from "./requests.js";

export const SCHCP_SCHEMA_ID = "https://schcp.org/schemas/0.4/schcp.schema.json";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/**
 * Non-standard formats used here, which a validator MUST assert (§2.1): "iana-time-zone" (a
 * zone in the tz database) and "local-date-time" (RFC 8984 LocalDateTime). "date-time" is
 * RFC 3339 with a Z or ±hh:mm offset.
 */
export const SCHCP_SCHEMA_DOCUMENT: Readonly<Schema> = deepFreeze({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: SCHCP_SCHEMA_ID,
  title: "SchCP 0.4",
  $defs: {
    ...commonDefs,
    ...offerDefs,
    ...holdDefs,
    ...bookingDefs,
    ...receiptDefs,
    ...requestDefs,
    ...eventDefs,
    ...mandateDefs,
    ...meetingDefs,
    ...refusalDefs,
    ...discoveryDefs,
  },
});
