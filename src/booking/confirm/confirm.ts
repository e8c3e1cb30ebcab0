/**
 * The confirm of a hold, two-phase against the upstream (docs/ARCHITECTURE.md,
 * Two-phase confirm and reconciliation), for every edge (SchCP
 * POST /holds/{hold_id}/confirm in ../schcp/confirm.ts, a direct booking in ../direct/):
 *
 * 1. the edge's own checks on the hold (SchCP: the offer hash, the mandate and the policies);
 * 2. beginConfirm fences the hold under a lease: it can no longer lapse or be confirmed twice;
 * 3. the confirm intent (consent) is written, then the upstream create runs with the
 *    idempotency key `${hostId}:${holdId}`;
 * 4. completeConfirm records the booking (201 confirmed / 202 pending_host), or abortConfirm
 *    gives the hold back: released when the slot was taken upstream, held on a transient error.
 * A crash between 3 and 4 leaves the hold confirming; reconciliation settles it (reconcile/).
 */
import type { BookingDeps, BookingRefusal, HoldPayload, HostRuntime, UseCase } from "../api.js";
import type {
  ConnectorError,
  UpstreamBooking,
  UpstreamCreate,
  UpstreamCustomer,
} from "../../connectors/port.js";
import type { BookingState } from "../bookings/state.js";
import type { HoldRecord } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import { noMetrics } from "../../protocol/metrics.js";
import { inSpan } from "../../protocol/tracing.js";
import { loadBooking } from "../bookings/store.js";
import { invalidState, notFound, refuse, upstreamRefusal } from "../bookings/refuse.js";
import { holdStateRefusal } from "./checks.js";
import { writeConfirmIntent } from "./intent.js";
import type { ConfirmIntent } from "./intent.js";
import { recordBooking, upstreamKey } from "./record-booking.js";
import { guestOf, type Guest } from "../bookings/guest.js";

/** How long a confirm may spend upstream before a reconciler may take the hold over. */
export const CONFIRM_LEASE_MS = 30_000;

/**
 * Step 2, for every edge's confirm: beginConfirm fences the hold under the lease. A refusal
 * means the hold changed since it was read (a race): its state now says why.
 */
export async function fenceHold(
  deps: BookingDeps,
  hostId: string,
  holdId: string,
  now: number,
): UseCase<{ readonly hold: HoldRecord; readonly fence: number }> {
  const begun = await deps.store.beginConfirm(hostId, holdId, now, CONFIRM_LEASE_MS);
  if (begun.ok) return ok(begun.value);
  if (begun.error.reason === "not_found") return err(notFound("hold"));
  return err(
    (begun.error.hold && holdStateRefusal(begun.error.hold)) ??
      invalidState(`the hold cannot be confirmed (${begun.error.reason})`),
  );
}

/** What the upstream create carries beyond the hold itself. */
export interface UpstreamExtras {
  readonly customer?: UpstreamCustomer;
  readonly notes?: string;
  /** OSBP verification pass-through: sent to the platform, kept nowhere. */
  readonly verificationCode?: string;
  /**
   * SchCP §7.9: a host_approval host already said yes (its owner, or a rule): the upstream
   * booking is made confirmed, not tentative.
   */
  readonly answered?: boolean;
  /** SchCP §5.12: the booking is a meeting member's, written tentative on a calendar until commit. */
  readonly meeting?: boolean;
  /** SchCP §5.12: who a meeting booking waits on here (UpstreamCreate.awaiting). */
  readonly awaiting?: "host" | "member" | "none";
}

/**
 * Steps 3 and 4 of the two-phase confirm, for a hold fenced by beginConfirm: the intent is
 * written, the upstream create runs under the hold's idempotency key, and the booking is
 * recorded (or the hold given back). Every edge's confirm ends here, naming itself (`edge`:
 * "schcp", "osbp", "a2a"), so its bookings are counted under its name with the status they
 * were made in, or "refused".
 */
export function settleUpstream(
  deps: BookingDeps,
  host: HostRuntime,
  fenced: HoldRecord,
  fence: number,
  payload: HoldPayload,
  intent: ConfirmIntent,
  extras: UpstreamExtras,
  edge: string,
): UseCase<BookingState> {
  const attributes = {
    "booking.host_id": host.config.id,
    "booking.hold_id": fenced.holdId,
    "booking.edge": edge,
  };
  return inSpan("booking.confirm", { attributes }, async (span) => {
    const made = await settle(deps, host, fenced, fence, payload, intent, extras);
    const status = made.ok ? made.value.status : "refused";
    (deps.metrics ?? noMetrics).booking(edge, status);
    span.setAttribute("booking.status", status);
    if (made.ok) span.setAttribute("booking.booking_id", made.value.bookingId);
    else
      span.setAttributes({
        "booking.refusal.code": made.error.code,
        "booking.refusal.reason": made.error.reason,
      });
    return made;
  });
}

async function settle(
  deps: BookingDeps,
  host: HostRuntime,
  fenced: HoldRecord,
  fence: number,
  payload: HoldPayload,
  intent: ConfirmIntent,
  extras: UpstreamExtras,
): UseCase<BookingState> {
  const hostId = host.config.id;
  await writeConfirmIntent(deps.store, hostId, fenced.holdId, intent, deps.clock.now());
  const attempt = upstreamCreate(host, fenced, payload, {
    ...extras,
    ...(intent.answer !== undefined && { answered: true }),
    ...(intent.meeting !== undefined && { meeting: true }),
    ...(intent.meeting !== undefined && { awaiting: meetingAwaiting(intent) }),
  });
  const create = () => host.connector.bookings.create(attempt);
  let created: Awaited<ReturnType<typeof create>>;
  try {
    created = await create();
  } catch (bug) {
    // A connector that throws has a bug, and may or may not have booked: settle the hold as
    // for any ambiguous failure (ask by key; give it back if nothing was made), then let the
    // bug surface to the edge, loudly.
    await upstreamFailed(
      deps,
      host,
      fenced,
      fence,
      payload,
      intent,
      attempt,
      { code: "unavailable", message: "the connector threw" },
      guestOf(extras.customer),
    );
    throw bug;
  }
  // The guest's name and contact go to the booking record too, not through the confirm intent:
  // they are the host's record of its guest, kept no longer than the contract says (guest.ts).
  const guest = guestOf(extras.customer);
  if (created.ok) return finish(deps, host, fenced, fence, payload, created.value, intent, guest);
  return upstreamFailed(deps, host, fenced, fence, payload, intent, attempt, created.error, guest);
}

/**
 * The upstream create a hold makes, under its idempotency key. Also handed back to
 * findByIdempotencyKey after a lost answer, so a platform that cannot look a key up itself
 * (ports/bookings.ts "lookup", "none") can recognise the booking, or prove there is none,
 * from what was asked, in any process.
 */
export function upstreamCreate(
  host: HostRuntime,
  hold: HoldRecord,
  payload: HoldPayload,
  extras: UpstreamExtras,
): UpstreamCreate {
  return {
    idempotencyKey: upstreamKey(host.config.id, hold.holdId),
    serviceId: payload.contract.service.id,
    start: payload.contract.start,
    ...(payload.contract.end !== undefined && { end: payload.contract.end }),
    resourceIds: hold.allocations.map((a) => a.resourceId),
    ...(extras.customer !== undefined && { customer: extras.customer }),
    ...(extras.notes !== undefined && { notes: extras.notes }),
    ...(extras.verificationCode !== undefined && { verificationCode: extras.verificationCode }),
    partySize: payload.contract.partySize,
    tentative: host.config.policies.confirmation === "host_approval" && extras.answered !== true,
    ...(extras.meeting === true && { meeting: true }),
    ...(extras.awaiting !== undefined && { awaiting: extras.awaiting }),
  };
}

/**
 * SchCP §5.12: whom a meeting booking asks at this calendar: nobody on the organizer's own
 * calendar or where a rule already said yes, the member on a person's, the host at a business.
 */
function meetingAwaiting(intent: ConfirmIntent): "host" | "member" | "none" {
  switch (intent.meeting?.role) {
    case "organizer":
      return "none";
    case "person":
      return intent.meetingYes !== undefined ? "none" : "member";
    case "business":
    case undefined:
      return "host";
  }
}

/** Phase two; when the fence was lost (a reconciler took over), answer what was recorded. */
async function finish(
  deps: BookingDeps,
  host: HostRuntime,
  hold: HoldRecord,
  fence: number,
  payload: HoldPayload,
  upstream: UpstreamBooking,
  intent: ConfirmIntent,
  guest: Guest | undefined,
): UseCase<BookingState> {
  const now = deps.clock.now();
  const recorded = await recordBooking(deps, host, hold, fence, payload, upstream, intent, now, guest);
  if (recorded.ok) return ok(recorded.value);
  const after = await deps.store.getHold(host.config.id, hold.holdId, now);
  if (after?.state === "booked" && after.bookingId !== undefined) {
    const loaded = await loadBooking(deps.store, host.config.id, after.bookingId);
    if (loaded !== undefined) return ok(loaded.state);
  }
  return err(
    refuse(
      "upstream_unavailable",
      "upstream_unavailable",
      "the booking is being recorded; try again shortly",
      {
        retryAfterMs: 5_000,
      },
    ),
  );
}

/**
 * The upstream create failed. slot_taken: the time is gone, release it (409 SLOT_UNAVAILABLE).
 * 429: nothing happened upstream, so the hold goes back to held (503); a request the platform
 * refused as invalid goes back to held too, answered 400 (no retry can help). A 5xx or a timeout is
 * ambiguous (the create may have happened), so the upstream is asked once by idempotency key
 * before the hold is given back; if even that fails the hold stays confirming for
 * reconciliation, which never creates a second booking.
 */
async function upstreamFailed(
  deps: BookingDeps,
  host: HostRuntime,
  hold: HoldRecord,
  fence: number,
  payload: HoldPayload,
  intent: ConfirmIntent,
  attempt: UpstreamCreate,
  e: ConnectorError,
  guest: Guest | undefined,
): UseCase<BookingState> {
  const hostId = host.config.id;
  if (e.code === "slot_taken") {
    await deps.store.abortConfirm(hostId, hold.holdId, fence, "release", deps.clock.now());
    return err({ ...slotTaken(), upstream: e });
  }
  if (e.code === "timeout" || e.code === "unavailable") {
    const found = await host.connector.bookings.findByIdempotencyKey(attempt.idempotencyKey, attempt);
    if (!found.ok) return err(upstreamRefusal(e));
    if (found.value !== null) return finish(deps, host, hold, fence, payload, found.value, intent, guest);
  }
  await deps.store.abortConfirm(hostId, hold.holdId, fence, "held", deps.clock.now());
  return err(upstreamRefusal(e));
}

const slotTaken = (): BookingRefusal =>
  refuse(
    "slot_unavailable",
    "slot_taken",
    "the time was taken at the host's booking system; place a new hold",
  );
