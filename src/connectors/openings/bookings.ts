/**
 * The BookingPort over Openings' public API: create (create.ts), findByIdempotencyKey from
 * memory or by looking the attempt up (lost-create.ts), get from memory only (no public by-id
 * readback), and move / cancel / setStatus unsupported (the public API takes none).
 */
import { CreateJournal, replayed } from "../http/create-journal.js";
import type { BookingPort, UpstreamCreate } from "../ports/bookings.js";
import type { ConnectorResult } from "../ports/result.js";
import type { Attempt, KnownAppointment } from "./appointments.js";
import type { OpeningsContext } from "./context.js";
import { book } from "./create.js";
import { attemptOf, resolve } from "./lost-create.js";
import { OPENINGS_BOOKING_ABILITIES } from "./platform.js";
import { fail, noZone, withMeta } from "./results.js";
import type { SalonSource } from "./salon.js";

const unsupported = (what: string): ConnectorResult<never> =>
  fail({
    code: "unsupported",
    message: `Openings' public API cannot ${what}: the salon does it in Openings`,
  });

export function openingsBookings(api: OpeningsContext, salons: SalonSource): BookingPort {
  const journal = new CreateJournal<Attempt, KnownAppointment>();
  return {
    abilities: OPENINGS_BOOKING_ABILITIES,
    create: (request) => journal.single(request.idempotencyKey, () => book(api, salons, journal, request)),
    get(upstreamId) {
      const known = journal.find((k) => k.booking.upstreamId === upstreamId);
      // Not "not_found": the appointment may well exist (made before a restart). Its only
      // readback is the customer's history, gated behind a code a read cannot have (OSBP
      // "booking.status": fail closed with booking_status_requires_verification).
      return Promise.resolve(
        known
          ? withMeta(known.booking, replayed(known.upstream))
          : fail({
              code: "verification_required",
              message:
                "Openings has no public appointment readback; its customer history needs the customer verified",
              verificationMethod: salons.current()?.business.verification.method ?? "unknown",
            }),
      );
    },
    async findByIdempotencyKey(key, request) {
      const known = journal.booked(key);
      if (known !== undefined) return withMeta(known.booking, replayed(known.upstream));
      const refused = journal.refusal(key);
      if (refused !== undefined) return withMeta(null, replayed(refused.upstream));
      const pending = journal.unresolvedAttempt(key)?.request;
      // Never sent here and nothing to ask the platform with: memory alone, no call made.
      if (pending === undefined && request === undefined) return { ok: true, value: null };
      const c = await salons.ensure();
      if (!c.ok) return c;
      if (c.value.timezone === undefined) return noZone();
      // Sent by this process, or handed back by the caller (sent elsewhere).
      const attempt =
        pending !== undefined ? withMeta(pending) : await attemptOf(api, c.value, request as UpstreamCreate);
      if (!attempt.ok) return attempt;
      const r = await resolve(api, journal, c.value, key, attempt.value, c.value.timezone);
      return r.ok ? withMeta(r.value?.booking ?? null, r.upstream) : r;
    },
    move: () => Promise.resolve(unsupported("move an appointment")),
    cancel: () => Promise.resolve(unsupported("cancel an appointment")),
    setStatus: () => Promise.resolve(unsupported("change an appointment's status")),
  };
}
