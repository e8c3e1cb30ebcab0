/**
 * Appointment create (`POST /appointments`, not idempotent): a key's earlier unresolved
 * attempt is resolved first; a create naming no member takes the first free one; the customer
 * is created or found; the local date and time, the raw verification code (passed through,
 * kept nowhere) and the key in the notes are sent.
 */
import { replayed } from "../http/create-journal.js";
import type { UpstreamBooking, UpstreamCreate } from "../ports/bookings.js";
import type { ConnectorResult } from "../ports/result.js";
import { bookingOf, customerFor, type Attempt, type OpeningsJournal } from "./appointments.js";
import type { OpeningsContext } from "./context.js";
import { isoDate, localDay, localTime } from "./local-time.js";
import { resolve } from "./lost-create.js";
import { fail, noZone, statusError, unreadable, withMeta } from "./results.js";
import type { SalonSource } from "./salon.js";
import { splitService } from "./services.js";
import { pickMember } from "./slots.js";
import { dataOf, errorOf, readAppointment } from "./wire.js";

export async function book(
  api: OpeningsContext,
  salons: SalonSource,
  journal: OpeningsJournal,
  request: UpstreamCreate,
): Promise<ConnectorResult<UpstreamBooking>> {
  const key = request.idempotencyKey;
  const known = journal.booked(key);
  if (known !== undefined) return withMeta(known.booking, replayed(known.upstream));
  const c = await salons.ensure();
  if (!c.ok) return c;
  const ctx = c.value;
  const tz = ctx.timezone;
  if (tz === undefined) return noZone();
  const pending = journal.unresolvedAttempt(key);
  if (pending !== undefined) {
    const r = await resolve(api, journal, ctx, key, pending.request, tz);
    if (!r.ok) return r;
    if (r.value !== null) return withMeta(r.value.booking, r.upstream);
  }
  let memberId = request.resourceIds[0];
  if (memberId === undefined) {
    const picked = await pickMember(api, ctx, request, tz);
    if (!picked.ok) return picked;
    if (picked.value === null)
      return fail(
        { code: "slot_taken", message: "Openings: no member is free at that time" },
        picked.upstream,
      );
    memberId = picked.value;
  }
  const customer = await customerFor(api, ctx, request.customer);
  if (!customer.ok) return customer;
  const { serviceId, optionId } = splitService(request.serviceId);
  const attempt: Attempt = { request, memberId, customerId: customer.value };
  journal.markSent(key, attempt, api.clock.now());
  const r = await api.call("POST", "/appointments", {
    body: {
      businessId: ctx.business.id,
      locationId: ctx.location.id,
      memberId,
      serviceId,
      ...(optionId !== undefined ? { optionId } : {}),
      customerId: customer.value,
      date: isoDate(localDay(request.start, tz)),
      time: localTime(request.start, tz),
      // The key rides in the notes, so the salon can match an answer that was lost.
      notes: `${request.notes ? `${request.notes.slice(0, 900)}\n` : ""}[booking-gateway ${key}]`,
      // The raw code passes through to the platform and is kept nowhere (OSBP "Verification is sacred").
      ...(request.verificationCode !== undefined ? { verificationCode: request.verificationCode } : {}),
    },
  });
  if (!r.ok) {
    if (r.error.code !== "timeout" && r.error.code !== "unavailable") journal.markRefused(key, r.upstream);
    return r;
  }
  const { status, body } = r.value;
  if (status === 200 || status === 201) {
    const a = readAppointment(dataOf(body));
    const booking = a && bookingOf(ctx, a, key, request.end);
    if (booking === undefined) return unreadable("appointment", r.upstream);
    journal.markBooked(key, {
      booking,
      customerId: customer.value,
      ...(r.upstream ? { upstream: r.upstream } : {}),
    });
    return withMeta(booking, r.upstream);
  }
  journal.markRefused(key, r.upstream);
  return fail(statusError(status, errorOf(body), "appointment"), r.upstream);
}
