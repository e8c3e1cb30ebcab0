/**
 * The BookingPort over Servicialo's REST API: create (create.ts), get and findByIdempotencyKey
 * from memory (no session readback; a lost or handed-back attempt settled against
 * availability, lost-create.ts), move (reschedule.ts), cancel (cancel.ts), and setStatus only
 * to `cancelled`.
 */
import { CreateJournal, replayed, type KnownBooking } from "../http/create-journal.js";
import type { BookingMove, BookingPort, UpstreamCreate } from "../ports/bookings.js";
import { cancelSession } from "./cancel.js";
import type { ServicialoContext } from "./context.js";
import { book } from "./create.js";
import { settle } from "./lost-create.js";
import { SERVICIALO_BOOKING_ABILITIES } from "./platform.js";
import { reschedule } from "./reschedule.js";
import { fail, withMeta } from "./results.js";
import { answer, byId } from "./sessions.js";

export function servicialoBookings(ctx: ServicialoContext): BookingPort {
  // Each booking with the metadata of the call that last told us about it (no readback exists);
  // answered again from memory, that metadata is marked a replay.
  const journal = new CreateJournal<UpstreamCreate, KnownBooking>();
  const bookings: BookingPort = {
    abilities: SERVICIALO_BOOKING_ABILITIES,
    create: (request) => journal.single(request.idempotencyKey, () => book(ctx, journal, request)),

    get(upstreamId) {
      // No session readback in Servicialo v1.2.0: what this process was told, or not_found.
      const known = journal.find(byId(upstreamId));
      return Promise.resolve(
        known !== undefined
          ? answer(known)
          : fail({
              code: "not_found",
              message: "Servicialo has no session readback; this session is unknown here",
            }),
      );
    },

    async findByIdempotencyKey(key, attempt) {
      const known = journal.booked(key);
      if (known !== undefined) return answer(known);
      const refused = journal.refusal(key);
      if (refused !== undefined) return withMeta(null, replayed(refused.upstream));
      // Sent by this process and unanswered, or sent elsewhere (the caller hands the attempt back).
      const request = journal.unresolvedAttempt(key)?.request ?? attempt;
      if (request !== undefined) return settle(ctx, journal, key, request);
      // Never sent here and nothing to ask the platform with: memory alone, no call made.
      return { ok: true, value: null };
    },

    move: (upstreamId, change: BookingMove) => reschedule(ctx, journal, upstreamId, change),

    cancel: (upstreamId, reason, by) => cancelSession(ctx, journal, upstreamId, reason, by),

    async setStatus(upstreamId, status) {
      if (status === "cancelled") return bookings.cancel(upstreamId);
      return fail({ code: "unsupported", message: `Servicialo's REST API cannot set a session ${status}` });
    },
  };
  return bookings;
}
