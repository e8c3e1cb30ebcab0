/** A hold's state as every edge's confirm sees it (SchCP §5.3, §6). */
import type { BookingRefusal } from "../api.js";
import type { HoldRecord } from "../../holds/port.js";
import { invalidState } from "../bookings/refuse.js";

/** Only "held" may be confirmed. */
export function holdStateRefusal(hold: HoldRecord): BookingRefusal | undefined {
  switch (hold.state) {
    case "held":
      return undefined;
    case "booked":
      return invalidState("the hold is already confirmed");
    case "confirming":
      return invalidState("the hold is being confirmed", { retryAfterMs: 1_000 });
    case "expired":
      return invalidState("the hold expired");
    case "released":
      return invalidState("the hold was released");
  }
}
