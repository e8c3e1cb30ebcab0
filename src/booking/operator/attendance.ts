/**
 * Attendance, declared by the host (SchCP §6, §7.6): only once the start has passed, only for
 * a confirmed booking. completed ends it (an open-ended booking needs its end, which becomes
 * part of the booking, sequence + 1 and booking.ended); no_show bumps sequence, signs a new
 * receipt and sends booking.no_show. Nothing is charged or recorded beyond the status.
 */
import type { BookingDeps, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { parseInstant } from "../../protocol/time/index.js";
import { bookingView, type BookingView } from "../view.js";
import { invalidState, refuse } from "../bookings/refuse.js";
import { saveBooking } from "../bookings/store.js";
import { notifyGuest } from "../bookings/edges.js";
import { hostBooking } from "../bookings/store.js";

export async function markAttendance(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  input: { status: "completed" | "no_show"; end?: string },
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const now = deps.clock.now();
  if (state.status === input.status) return ok(bookingView(state, deps.clock.now()));
  if (state.status !== "confirmed") return err(invalidState(`a ${state.status} booking cannot be marked`));
  if (now < state.start) return err(invalidState("attendance can be marked once the start has passed (§6)"));

  const ending = state.openEnd === true && input.status === "completed";
  let end: number | undefined;
  if (ending) {
    const parsed = input.end === undefined ? undefined : parseInstant(input.end, "/end");
    if (parsed?.ok !== true || parsed.value.epochMs <= state.start) {
      return err(
        refuse(
          "invalid_request",
          "invalid_request",
          "an open-ended booking is completed with its end (§4.2)",
        ),
      );
    }
    // §4.2: the host ends it "when it has ended, with an end time that is after the start and
    // not in the future".
    if (parsed.value.epochMs > now) {
      return err(
        refuse(
          "invalid_request",
          "invalid_request",
          "the end of an open-ended booking cannot be in the future (§4.2)",
        ),
      );
    }
    end = parsed.value.epochMs;
  }

  const marked = await deps.store.markAttendance(hostId, bookingId, input.status, end);
  if (!marked.ok && marked.error.reason !== "not_found")
    return err(invalidState(`the booking cannot be marked (${marked.error.reason})`));
  // The host's own system of record learns it too; a failure there does not undo the host's word.
  await host.connector.bookings.setStatus(state.upstreamId, input.status);

  const bump = input.status === "no_show" || ending;
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      if (s.status !== "confirmed")
        return s.status === input.status ? ok(s) : err(invalidState(`the booking is ${s.status}`));
      return ok({
        ...s,
        status: input.status,
        sequence: bump ? s.sequence + 1 : s.sequence,
        ...(end !== undefined && { end }),
      });
    },
    now,
  );
  if (!saved.ok) return saved;
  if (input.status === "no_show") await notifyGuest(deps, host, saved.value, "no_show", now);
  if (ending) await notifyGuest(deps, host, saved.value, "ended", now);
  return ok(bookingView(saved.value, deps.clock.now()));
}
