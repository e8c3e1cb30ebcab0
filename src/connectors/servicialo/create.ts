/**
 * "3. book_session" (`POST /book`, not idempotent): a key's earlier unresolved attempt is
 * settled first (lost-create.ts); `clientEmail` is the customer's, else `fallbackClientEmail`;
 * a create naming no provider takes the first configured provider free at that start;
 * `scheduledAt` is the slot's start text as it came; the key rides in the notes.
 */
import type { UpstreamBooking, UpstreamCreate } from "../ports/bookings.js";
import type { ConnectorResult, UpstreamMeta } from "../ports/result.js";
import { availability } from "./availability.js";
import type { ServicialoContext } from "./context.js";
import { bookError } from "./errors.js";
import { isoDate, localDay, startText } from "./local-time.js";
import { ambiguous, settle } from "./lost-create.js";
import { fail, unreadable, withMeta } from "./results.js";
import { answer, bookingFrom, type ServicialoJournal } from "./sessions.js";
import { readBooked, readError } from "./wire.js";

async function pickProvider(
  ctx: ServicialoContext,
  request: UpstreamCreate,
): Promise<ConnectorResult<string | undefined>> {
  const date = isoDate(localDay(ctx, request.start));
  let meta: UpstreamMeta | undefined;
  for (const p of ctx.settings.providers ?? []) {
    const r = await availability(ctx, request.serviceId, { date }, p.id);
    if (!r.ok) return r;
    meta = r.upstream;
    if (r.value.slots.some((s) => s.start === request.start)) return withMeta(p.id, meta);
  }
  return withMeta(undefined, meta);
}

export async function book(
  ctx: ServicialoContext,
  journal: ServicialoJournal,
  request: UpstreamCreate,
): Promise<ConnectorResult<UpstreamBooking>> {
  const { settings } = ctx;
  const key = request.idempotencyKey;
  const known = journal.booked(key);
  if (known !== undefined) return answer(known);
  const pending = journal.unresolvedAttempt(key);
  if (pending !== undefined) {
    const settled = await settle(ctx, journal, key, pending.request);
    if (!settled.ok) return settled;
  }
  const email = request.customer?.email ?? settings.fallbackClientEmail;
  if (email === undefined) {
    return fail({
      code: "invalid_request",
      message: "Servicialo needs the customer's email (clientEmail) to book",
    });
  }
  const [first, ...rest] = (request.customer?.name ?? "").trim().split(/\s+/);
  let providerId = request.resourceIds[0];
  if (providerId === undefined && settings.providers !== undefined && settings.providers.length > 0) {
    // No provider named: the first configured provider free at that start, so the booking
    // knows whose time it holds (the platform's own default would be "first assigned").
    const picked = await pickProvider(ctx, request);
    if (!picked.ok) return picked;
    if (picked.value === undefined) {
      return fail(
        { code: "slot_taken", message: "Servicialo: no provider is free at that time" },
        picked.upstream,
      );
    }
    providerId = picked.value;
  }
  const body = {
    clientEmail: email,
    ...(first ? { clientName: first } : {}),
    ...(rest.length > 0 ? { clientLastName: rest.join(" ") } : {}),
    ...(request.customer?.phone !== undefined ? { clientPhone: request.customer.phone } : {}),
    serviceId: request.serviceId,
    ...(providerId !== undefined ? { providerId } : {}),
    // "Use the exact slot time from check_availability in scheduledAt", with its offset.
    scheduledAt: startText(ctx, request.start),
    ...(request.end !== undefined ? { duration: Math.round((request.end - request.start) / 60_000) } : {}),
    // The key rides in the notes the provider sees, so the business can match a lost answer.
    notes: `${request.notes ? `${request.notes.slice(0, 1900)}\n` : ""}[booking-gateway ${key}]`,
    initialStatus: request.tentative ? "pending_confirmation" : "scheduled",
  };
  journal.markSent(
    key,
    { ...request, resourceIds: providerId !== undefined ? [providerId] : [] },
    ctx.clock.now(),
  );
  const { result, retried } = await ctx.send("POST", "/book", { body });
  if (!result.ok) {
    // No answer, or a 5xx: the platform may have booked. Otherwise it refused.
    if (result.error.code !== "timeout" && result.error.code !== "unavailable")
      journal.markRefused(key, result.upstream);
    return result;
  }
  const { status, body: reply } = result.value;
  const meta = result.upstream;
  if (status === 201 || status === 200) {
    const session = readBooked(reply);
    const booking =
      session &&
      bookingFrom(
        ctx,
        session,
        { serviceId: request.serviceId, resourceIds: providerId ? [providerId] : [], idempotencyKey: key },
        request.tentative ? "tentative" : "confirmed",
      );
    if (booking === undefined) return unreadable("booking answer", meta);
    journal.markBooked(key, { booking, ...(meta ? { upstream: meta } : {}) });
    return { ok: true, value: booking, ...(meta ? { upstream: meta } : {}) };
  }
  const e = readError(reply);
  if (status === 409 && retried) return ambiguous(meta);
  journal.markRefused(key, meta);
  return fail(bookError(status, e, settings.paymentUrl), meta);
}
