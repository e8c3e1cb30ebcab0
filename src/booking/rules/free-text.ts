/**
 * SchCP §5.3 "Free text": notes are the one place an agent can put anything at all, including
 * health information a clinic must not receive by that route. A host whose policies.data says
 * free_text_notes "refuse" refuses a booking carrying notes before anything is stored, and its
 * contact remedy points to the host's own intake form (data.intake_url). The rule is the
 * core's, so OSBP and A2A bookings meet it as SchCP confirms do.
 */
import type { BookingRefusal, HostPolicies } from "../api.js";
import { bookingRefusal } from "./refusal.js";

export function checkFreeTextNotes(
  policies: Pick<HostPolicies, "data">,
  notes: string | undefined,
): BookingRefusal | undefined {
  const data = policies.data;
  if (notes === undefined || data?.freeTextNotes !== "refuse") return undefined;
  return bookingRefusal("data_not_accepted", {
    reason: "free_text_notes",
    message:
      data.intakeUrl === undefined
        ? "this host does not accept free-text notes; send the booking without notes"
        : "this host does not accept free-text notes; send the booking without notes, and anything else through the host's own form",
    basis: { policy: "data.free_text_notes" },
    ...(data.intakeUrl !== undefined && { remedies: [{ type: "contact", url: data.intakeUrl }] }),
  });
}
