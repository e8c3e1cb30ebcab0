/**
 * Whether a value is an offer SchCP allows, signed or not: what the host checks before it
 * signs and the agent after it verifies the signature (SchCP §5.2).
 *
 * 1. The closed OfferClaims schema, at every depth: a term SchCP does not define (a
 *    cancellation_fee inside slot) is refused even when the host's key signed it.
 * 2. §4.2: open_end is true exactly when slot has no end; a fixed slot ends after it starts.
 * 3. §5.7: a change offer names its booking_id and prev (the hash of the booking's current
 *    contract; null only for a booking made outside SchCP, which has none, §5.3).
 * 4. The retention and any reconfirm.before are lengths this gateway can read, since the
 *    consent text must state them (§5.3).
 * 5. The money rules (money-rules.ts).
 * The schema's conditionals state 2 and 3 as well; they are repeated here so these MUSTs
 * hold even if the schema changes. Field names are JSON pointers into the claims.
 */
import type { Money } from "../../money/index.js";
import { err, fieldError, ok } from "../../result.js";
import type { FieldError, Result } from "../../result.js";
import { parseInstant, parseRetention, parseSchcpDuration } from "../../time/index.js";
import type { OfferClaims } from "../types.js";
import { validateSchcp } from "../validate.js";
import { checkOfferMoney } from "./money-rules.js";

export interface CheckedOffer {
  claims: OfferClaims;
  total: Money | null;
}

const invalid = (field: string, message: string): Result<never> =>
  err(fieldError("offer_invalid", field, message));
const asOfferError = (e: FieldError): Result<never> => invalid(e.field, e.message);

export function checkOfferClaims(value: unknown): Result<CheckedOffer> {
  const schema = validateSchcp("OfferClaims", value);
  if (!schema.ok) return asOfferError(schema.error);
  const claims = schema.value;

  const hasEnd = claims.slot.end !== undefined;
  if (claims.open_end === true && hasEnd)
    return invalid("/slot/end", "an open-ended offer has no end (§4.2)");
  if (claims.open_end !== true && !hasEnd)
    return invalid("/slot/end", "a slot that is not open-ended has an end");
  if (claims.slot.end !== undefined) {
    const start = parseInstant(claims.slot.start, "/slot/start");
    if (!start.ok) return asOfferError(start.error);
    const end = parseInstant(claims.slot.end, "/slot/end");
    if (!end.ok) return asOfferError(end.error);
    if (end.value.epochMs <= start.value.epochMs)
      return invalid("/slot/end", "the slot must end after it starts");
  }

  if (claims.kind === "change") {
    if (claims.booking_id === undefined)
      return invalid("/booking_id", "a change offer names its booking (§5.7)");
    if (claims.prev === undefined) {
      return invalid("/prev", "a change offer names the hash of the booking's current contract (§5.7)");
    }
  }

  const retention = parseRetention(claims.retention, "/retention");
  if (!retention.ok) return asOfferError(retention.error);
  if (claims.reconfirm !== undefined) {
    const before = parseSchcpDuration(claims.reconfirm.before, "/reconfirm/before");
    if (!before.ok) return asOfferError(before.error);
  }

  const money = checkOfferMoney(claims);
  if (!money.ok) return money;
  return ok({ claims, total: money.value.total });
}
