/**
 * What became of a create whose answer was lost (README.md "Idempotency, lost answers and
 * their residual risk"), and an attempt the caller hands back from another process.
 */
import type { UpstreamBooking, UpstreamCreate } from "../ports/bookings.js";
import type { ConnectorResult, UpstreamMeta } from "../ports/result.js";
import {
  bookingOf,
  customerFor,
  marker,
  type Attempt,
  type KnownAppointment,
  type OpeningsJournal,
} from "./appointments.js";
import { dataFrom, type OpeningsContext } from "./context.js";
import { isoDate, localDay, localTime } from "./local-time.js";
import { fail, withMeta } from "./results.js";
import type { Salon } from "./salon.js";
import { openings } from "./slots.js";
import { readAppointments, type WireAppointment } from "./wire.js";

/**
 * What became of a create whose answer was lost. The customer's history when the attempt
 * carried a verification code (history is gated behind verification): an appointment at the
 * attempted start, of that service, with that member, whose notes carry this key's marker (or
 * that shows no notes and is not cancelled) is the one, adopted whatever its state; none such
 * means nothing was booked. Without a code, or when the history refuses it, the openings:
 * the time still open with the member (every member when the attempt named none) means
 * nothing was booked. Otherwise it cannot tell: `unavailable`, and nothing is sent again.
 */
export async function resolve(
  api: OpeningsContext,
  journal: OpeningsJournal,
  ctx: Salon,
  key: string,
  attempt: Attempt,
  tz: string,
): Promise<ConnectorResult<KnownAppointment | null>> {
  const code = attempt.request.verificationCode;
  if (code !== undefined) {
    const h = dataFrom(
      await api.call("GET", `/customers/${encodeURIComponent(attempt.customerId)}/appointments`, {
        query: { businessId: ctx.business.id },
        headers: { "x-verification-code": code },
      }),
      readAppointments,
      "appointment history",
    );
    if (h.ok) {
      const ours = (a: WireAppointment, b: UpstreamBooking | undefined): b is UpstreamBooking =>
        b !== undefined &&
        b.start === attempt.request.start &&
        b.serviceId === attempt.request.serviceId &&
        (attempt.memberId === undefined || a.memberId === attempt.memberId) &&
        (a.notes !== undefined ? a.notes.includes(marker(key)) : b.status !== "cancelled");
      const match = h.value.map((a) => ({ a, b: bookingOf(ctx, a, key) })).find(({ a, b }) => ours(a, b));
      if (match?.b !== undefined) {
        const known: KnownAppointment = {
          booking: match.b,
          customerId: attempt.customerId,
          ...(h.upstream ? { upstream: h.upstream } : {}),
        };
        journal.markBooked(key, known);
        return withMeta(known, h.upstream);
      }
      journal.markRefused(key, h.upstream);
      return withMeta(null, h.upstream);
    }
    if (h.error.code !== "verification_required" && h.error.code !== "verification_failed") return h;
  }
  const date = isoDate(localDay(attempt.request.start, tz));
  const time = localTime(attempt.request.start, tz);
  const members = attempt.memberId !== undefined ? [attempt.memberId] : ctx.location.members.map((m) => m.id);
  let meta: UpstreamMeta | undefined;
  for (const memberId of members) {
    const r = await openings(api, ctx, memberId, date, attempt.request.serviceId);
    if (!r.ok) return r;
    meta = r.upstream;
    if (!r.value.includes(time)) {
      return fail(
        {
          code: "unavailable",
          message:
            "Openings: outcome unknown: a create's answer was lost and its time is now taken; without the customer's verification code the history cannot show whether it is this booking, so it is not sent again",
        },
        meta,
      );
    }
  }
  journal.markRefused(key, meta);
  return withMeta(null, meta);
}

/** An attempt the caller hands back (another process sent it): its customer found again. */
export async function attemptOf(
  api: OpeningsContext,
  ctx: Salon,
  request: UpstreamCreate,
): Promise<ConnectorResult<Attempt>> {
  const customer = await customerFor(api, ctx, request.customer);
  if (!customer.ok) return customer;
  const memberId = request.resourceIds[0];
  return withMeta(
    { request, customerId: customer.value, ...(memberId !== undefined ? { memberId } : {}) },
    customer.upstream,
  );
}
