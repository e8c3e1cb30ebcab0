/**
 * The semantic reading of one mandate's constraints (§3.3). The MandateClaims schema
 * has already checked their shape; this parses the values the checks compare with
 * (window instants, the max_price amount in its currency's minor units), so a mandate
 * whose dates or price do not parse is invalid at verification, never "no limit" later.
 */
import { parseSchcpMoney } from "../../money/index.js";
import type { Money } from "../../money/index.js";
import { childPointer, err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { parseInstant } from "../../time/rfc3339.js";
import type { Instant } from "../../time/rfc3339.js";
import type { MandateClaims } from "../types.js";
import { claimField } from "./fields.js";
import { mandateInvalid } from "./refusal.js";
import type { MandateRefusal } from "./types.js";

export interface LinkConstraints {
  readonly services?: readonly string[];
  readonly bookings?: readonly string[];
  readonly notBefore?: Instant;
  readonly notAfter?: Instant;
  readonly maxPrice?: Money;
  readonly maxBookings?: number;
  readonly offerSha256?: string;
  readonly sharedLimit: boolean;
}

/** `field` is the pointer of the whole mandate ("SchCP-Mandate" or ".../parent"). */
export function parseLinkConstraints(
  claims: MandateClaims,
  field: string,
): Result<LinkConstraints, MandateRefusal> {
  const c = claims.constraints;
  const at = claimField(field, "constraints");
  if (c === undefined) return ok({ sharedLimit: false });

  let notBefore: Instant | undefined;
  let notAfter: Instant | undefined;
  if (c.window !== undefined) {
    const win = childPointer(at, "window");
    for (const bound of ["not_before", "not_after"] as const) {
      const text = c.window[bound];
      if (text === undefined) continue;
      const parsed = parseInstant(text, childPointer(win, bound));
      if (!parsed.ok)
        return err(
          mandateInvalid(`mandate ${bound} is not a date: ${parsed.error.message}`, parsed.error.field),
        );
      if (bound === "not_before") notBefore = parsed.value;
      else notAfter = parsed.value;
    }
  }

  let maxPrice: Money | undefined;
  if (c.max_price !== undefined) {
    // parseSchcpMoney refuses more decimals than the currency has (ISO 4217 exponent).
    const parsed = parseSchcpMoney(c.max_price, childPointer(at, "max_price"));
    if (!parsed.ok)
      return err(mandateInvalid(`mandate max_price: ${parsed.error.message}`, parsed.error.field));
    maxPrice = parsed.value;
  }

  // The schema says the same; repeated here because a limit that is not a positive
  // integer must never read as "no limit" (§3.3 "wrongly typed limits").
  if (c.max_bookings !== undefined && !(Number.isSafeInteger(c.max_bookings) && c.max_bookings >= 1)) {
    return err(
      mandateInvalid("mandate max_bookings must be a positive integer", childPointer(at, "max_bookings")),
    );
  }

  return ok({
    ...(c.services !== undefined && { services: c.services }),
    ...(c.bookings !== undefined && { bookings: c.bookings }),
    ...(notBefore !== undefined && { notBefore }),
    ...(notAfter !== undefined && { notAfter }),
    ...(maxPrice !== undefined && { maxPrice }),
    ...(c.max_bookings !== undefined && { maxBookings: c.max_bookings }),
    ...(c.offer_sha256 !== undefined && { offerSha256: c.offer_sha256 }),
    sharedLimit: c.shared_limit === true,
  });
}
