/**
 * §5.2 eligibility: {guest: "returning"} admits only principals who have kept an appointment
 * here (§7.2, store.isPrincipalProven), "new" only those who have not. An anonymous hold
 * (§7.1, requires_mandate false) has no standing, so it is never "returning".
 */
import type { BookingRefusal, ServiceRules } from "../api.js";
import { bookingRefusal } from "./refusal.js";

export function checkEligibility(
  eligibility: ServiceRules["eligibility"],
  proven: boolean,
): BookingRefusal | undefined {
  if (eligibility === undefined) return undefined;
  if (eligibility === "returning" && !proven) {
    return bookingRefusal("not_eligible", {
      reason: "returning_guests_only",
      message: "this service is for guests who have kept an appointment here before",
      basis: { policy: "eligibility", guest: "returning" },
    });
  }
  if (eligibility === "new" && proven) {
    return bookingRefusal("not_eligible", {
      reason: "new_guests_only",
      message: "this service is for new guests only",
      basis: { policy: "eligibility", guest: "new" },
    });
  }
  return undefined;
}
