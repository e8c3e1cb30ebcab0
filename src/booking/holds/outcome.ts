/**
 * The store's refusals in the core's terms (SchCP §9.2 words them): a taken slot or the
 * walk-in reserve is slot_unavailable with up to five alternatives; caps are hold_limit with the rule in basis, and a retry hint where waiting helps (§9 example:
 * new_guest_pool_full, retry PT60S).
 */
import type { HoldRefusal } from "../../holds/port.js";
import type { BookingRefusal } from "../api.js";
import type { HoldAlternative } from "../errors.js";
import { bookingRefusal } from "../rules/index.js";

const MAX_ALTERNATIVES = 5;
const POOL_RETRY_MS = 60_000;

export function holdRefusal(
  outcome: HoldRefusal,
  alternativeAt: (start: number) => HoldAlternative,
): BookingRefusal {
  const basis = outcome.basis;
  switch (outcome.reason) {
    case "slot_taken":
    case "walk_in_reserve": {
      const alternatives = (outcome.alternatives ?? []).slice(0, MAX_ALTERNATIVES).map(alternativeAt);
      const refusal = bookingRefusal("slot_unavailable", {
        reason: outcome.reason,
        message:
          outcome.reason === "slot_taken"
            ? "that time cannot be held; here are the nearest times that can"
            : "the rest of that time is kept for walk-ins and phone bookings",
        ...(basis !== undefined && { basis }),
      });
      return { ...refusal, alternatives };
    }
    case "agent_limit":
      return bookingRefusal("hold_limit", {
        reason: "agent_limit",
        message: "this agent holds as many slots as the host allows at once",
        ...(basis !== undefined && { basis }),
      });
    case "new_guest_pool_full":
    case "attester_pool_full":
      return bookingRefusal("hold_limit", {
        reason: outcome.reason,
        message: "too many holds from new guests right now; try again shortly",
        ...(basis !== undefined && { basis }),
        retryAfterMs: POOL_RETRY_MS,
      });
    case "mandate_limit":
      return bookingRefusal("hold_limit", {
        reason: "mandate_limit",
        message: "the mandate's bookings are all in use by holds and bookings",
        ...(basis !== undefined && { basis }),
      });
    case "not_freed":
      // Only a waitlist offer asks for it (waitlist/offer.ts), and passes the entry over.
      return bookingRefusal("slot_unavailable", {
        reason: "slot_taken",
        message: "that time cannot be held",
      });
    case "hold_id_in_use":
      // Ids are random (IdGenerator); a collision is a wiring bug, not a guest's problem.
      throw new Error("hold id collision");
  }
}
