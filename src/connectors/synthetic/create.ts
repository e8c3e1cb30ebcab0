/**
 * POST /v2/bookings on the synthetic platform: idempotent by key (the same key returns the
 * same appointment, never a second one, whichever gateway process asks, because the key is
 * checked in the same atomic step as the write), verified when the service requires it,
 * and refused with slot_taken when the time is no longer free upstream. A service the
 * platform books through a consultation request is never an appointment create (OSBP
 * requires_consultation_handoff: an OSBP adapter must not get here; the platform refuses anyway).
 */
import { createHash } from "node:crypto";
import type { UpstreamBooking, UpstreamCreate } from "../port.js";
import { toUpstreamBooking, type SyntheticAppointment } from "./appointment.js";
import { isPartySize } from "./availability.js";
import { answer, busy, MAX_WRITE_ATTEMPTS, refuse, type Answer, type SyntheticContext } from "./context.js";
import { checkTime, decidingRange, planTime } from "./booking-time.js";
import { checkCreateVerification } from "./verification.js";

/** Everything a retry must repeat to be the same create; customer and code are transient (OSBP). */
function fingerprintOf(r: UpstreamCreate): string {
  const canonical = JSON.stringify([
    r.serviceId,
    r.start,
    r.end ?? null,
    [...r.resourceIds].sort(),
    r.partySize ?? 1,
    r.tentative,
    r.meeting === true,
  ]);
  return createHash("sha256").update(canonical).digest("base64url");
}

/** The appointment id is derived from the key, so one key can only ever name one appointment. */
const appointmentId = (hostId: string, key: string): string =>
  `syn_${createHash("sha256").update(`${hostId}\n${key}`).digest("hex").slice(0, 24)}`;

function replay(stored: SyntheticAppointment, fingerprint: string): Answer<UpstreamBooking> {
  return stored.fingerprint === fingerprint
    ? answer(toUpstreamBooking(stored))
    : refuse("invalid_request", "this idempotency key was used for a different booking");
}

export async function createBooking(
  ctx: SyntheticContext,
  req: UpstreamCreate,
): Promise<Answer<UpstreamBooking>> {
  const key = req.idempotencyKey;
  if (typeof key !== "string" || key === "" || key.length > 255)
    return refuse("invalid_request", "idempotencyKey is 1 to 255 characters");
  const service = ctx.scenario.services.find((s) => s.id === req.serviceId);
  if (service === undefined) return refuse("invalid_request", `no service "${String(req.serviceId)}"`);
  if (service.requiresConsultation === true)
    return refuse("invalid_request", "this service is booked through a consultation request");
  const partySize = req.partySize ?? 1;
  if (!isPartySize(partySize)) return refuse("invalid_request", "partySize is an integer from 1 to 1000");
  if (typeof req.tentative !== "boolean") return refuse("invalid_request", "tentative is a boolean");
  const time = checkTime(ctx, service, req.start, req.end, req.resourceIds);
  if ("ok" in time) return time;
  const fingerprint = fingerprintOf(req);

  // A retry of a create that succeeded answers as it did, before anything else is checked.
  const first = await ctx.backend.read(ctx.hostId, { idempotencyKey: key });
  if (first.byKey !== undefined) return replay(first.byKey, fingerprint);
  let verifiedContact: string | undefined;
  if (service.requiresVerification === true) {
    const verified = await checkCreateVerification(ctx, req.customer, req.verificationCode);
    if (!verified.ok) return verified;
    verifiedContact = verified.value;
  }

  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const snap = await ctx.backend.read(ctx.hostId, { range: decidingRange(time), idempotencyKey: key });
    if (snap.byKey !== undefined) return replay(snap.byKey, fingerprint);
    const plan = planTime(ctx, time, partySize, snap.occupying);
    if ("ok" in plan) return plan;
    const now = ctx.clock.now();
    const appointment: SyntheticAppointment = {
      id: appointmentId(ctx.hostId, key),
      idempotencyKey: key,
      fingerprint,
      serviceId: service.id,
      start: time.start,
      ...(service.duration === "open" ? {} : { end: time.end ?? time.start + service.duration }),
      occupiedUntil: plan.occupiedUntil,
      allocations: plan.allocations,
      // A meeting member's appointment waits for the meeting's commit (SchCP §5.12), which
      // confirms it (setStatus); the platform books nothing final before.
      status: req.tentative || req.meeting === true ? "tentative" : "confirmed",
      partySize,
      ...(req.customer === undefined ? {} : { customer: req.customer }),
      ...(req.notes === undefined ? {} : { notes: req.notes }),
      createdAt: now,
      updatedAt: now,
    };
    const written = await ctx.backend.write(ctx.hostId, snap.version, appointment, true);
    if (written.outcome === "exists") return replay(written.appointment, fingerprint);
    if (written.outcome === "written") {
      // The code is used up by the booking it verified.
      if (verifiedContact !== undefined) await ctx.backend.deleteCode(ctx.hostId, verifiedContact);
      return answer(toUpstreamBooking(appointment), 201);
    }
  }
  return busy();
}
