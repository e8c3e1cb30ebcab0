/**
 * The store's refusals as SchCP refusals (§9.2): a taken slot or the walk-in reserve is 409
 * SLOT_UNAVAILABLE with up to five alternatives in details.alternatives; caps are 429
 * HOLD_LIMIT with the rule in basis, and a retry hint where waiting helps (§9 example:
 * new_guest_pool_full, retry PT60S).
 */
import type { HoldOutcome } from "../../holds/port.js";
import type { Slot } from "../../protocol/schcp/types.js";
import type { BookingRefusal } from "../api.js";
import { bookingRefusal } from "../rules/index.js";

type Refused = Extract<HoldOutcome, { ok: false }>;

export const MAX_ALTERNATIVES = 5;
const POOL_RETRY_MS = 60_000;

export function holdRefusal(outcome: Refused, slotAt: (start: number) => Slot): BookingRefusal {
  const basis = outcome.basis;
  switch (outcome.reason) {
    case "slot_taken":
    case "walk_in_reserve": {
      const alternatives = (outcome.alternatives ?? []).slice(0, MAX_ALTERNATIVES).map(slotAt);
      return bookingRefusal("slot_unavailable", {
        reason: outcome.reason,
        message:
          outcome.reason === "slot_taken"
            ? "that time cannot be held; here are the nearest times that can"
            : "the rest of that time is kept for walk-ins and phone bookings",
        ...(basis !== undefined && { basis }),
        details: { alternatives },
      });
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
    case "hold_id_in_use":
      // Ids are random (IdGenerator); a collision is a wiring bug, not a guest's problem.
      throw new Error("hold id collision");
  }
}
