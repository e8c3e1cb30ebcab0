/**
 * The host's yes to a meeting booking (SchCP §5.12 "Confirming with a contract"): a business
 * that approves each booking answers as the host (answer.by "host", with no acceptance) and
 * the booking becomes tentative, final only at commit. A person's calendar MUST NOT treat a
 * meeting as accepted without the member's own acceptance (answer.ts acceptMeeting), so the
 * host's approve is refused there.
 */
import type { BookingDeps, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { invalidState } from "../bookings/refuse.js";
import type { BookingState } from "../bookings/state.js";
import { saveBooking } from "../bookings/store.js";
import { bookingView, type BookingView } from "../view.js";

export async function approveMeetingAsHost(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  now: number,
): UseCase<BookingView> {
  if (state.meeting?.role !== "business")
    return err(
      invalidState("a meeting member answers with their own acceptance, not the host's approval (§5.12)"),
    );
  const saved = await saveBooking(
    deps,
    host,
    state.bookingId,
    (s) => {
      if (s.status === "tentative") return ok(s);
      if (s.status !== "pending_host")
        return err(invalidState(`a ${s.status} booking has nothing to approve`));
      const { approvalBy: _a, ...rest } = s;
      return ok({ ...rest, status: "tentative", answer: { by: "host", at: now } });
    },
    now,
  );
  if (!saved.ok) return saved;
  return ok(bookingView(saved.value, deps.clock.now()));
}
