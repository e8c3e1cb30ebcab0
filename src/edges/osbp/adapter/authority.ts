/**
 * The OSBP BookingMandate as the core's Authority (booking/authority.ts): the core asks it
 * whether the terms it priced and placed are inside the mandate, and it answers with OSBP
 * "Mandate Enforcement" itself (validateMandate over the Slot those terms make). The adapter
 * has already run the same check on the slot the agent asked for, before any mutation; this one
 * binds the core's own hold to the mandate too (the provider it pins, the price it computed).
 */
import type { ActionTerms, Authority } from "../../../booking/authority.js";
import type { BookingRefusal } from "../../../booking/api.js";
import { err, ok } from "../../../protocol/result.js";
import {
  validateMandate,
  type BookingMandate,
  type Policy,
  type Service,
  type Slot,
} from "../../../protocol/osbp/index.js";
import { OSBP_PROBLEM_DETAIL } from "./refusals.js";
import type { Clock } from "../../../protocol/clock.js";

/** A stable, non-personal principal for the bookings one mandate makes. */
const osbpPrincipal = (mandate: BookingMandate): string => `osbp-mandate:${mandate.id}`;

export function osbpAuthority(args: {
  readonly mandate: BookingMandate;
  readonly clock: Clock;
  readonly service: Service;
  readonly policy: Policy;
  /** The OSBP Slot the core's terms make (start, provider). */
  readonly slotFor: (terms: ActionTerms) => Slot;
}): Authority {
  return {
    principal: osbpPrincipal(args.mandate),
    kind: "osbp",
    permits(terms) {
      // OSBP v0.1.0 has no change offer: a BookingMandate grants booking.create only.
      if (terms.action !== "hold") {
        return err<BookingRefusal>({
          code: "authority_scope",
          reason: "not_in_scope",
          message: "an OSBP booking mandate allows booking.create only",
        });
      }
      const valid = validateMandate(args.mandate, {
        now: args.clock.now(),
        action: "booking.create",
        slot: args.slotFor(terms),
        service: args.service,
        policy: args.policy,
      });
      if (valid.ok) return ok(undefined);
      const refusal: BookingRefusal = {
        code: "authority_scope",
        reason: "not_in_scope",
        message: valid.error.message,
        details: { [OSBP_PROBLEM_DETAIL]: valid.error },
      };
      return err(refusal);
    },
  };
}

/** Whether the core's booking was made through this edge (its principal is a mandate's). */
export const isOsbpBooking = (state: { readonly principal: string }): boolean =>
  state.principal.startsWith("osbp-mandate:");
