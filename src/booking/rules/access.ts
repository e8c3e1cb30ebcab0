/**
 * §7.8 contacts-only access: availability, holds and confirm check the requesting principal
 * (the root principal of the mandate). No mandate, or a principal not on the host's private
 * list, is 403 NOT_PERMITTED not_a_contact. The list itself never appears in the refusal.
 */
import type { BookingRefusal, HostPolicies } from "../api.js";
import { bookingRefusal } from "./refusal.js";

export function checkAccess(
  policies: HostPolicies,
  principal: string | null,
  /** Listed elsewhere than the configuration: the host's stored list or its owner (hosts/contacts.ts). */
  listed = false,
): BookingRefusal | undefined {
  if (policies.access === "public") return undefined;
  if (principal !== null && (listed || (policies.contacts ?? []).includes(principal))) return undefined;
  return bookingRefusal("not_permitted", {
    reason: "not_a_contact",
    message:
      principal === null
        ? "this host takes requests from its contacts only; send a mandate that shows who is asking"
        : "this host takes requests from its contacts only",
    basis: { policy: "access", access: "contacts" },
  });
}
