/**
 * POST /holds/{hold_id}/confirm (SchCP §5.3), two-phase against the upstream (DESIGN.md):
 *
 * 1. every check on the hold, the offer hash, the mandate and the policies (checks.ts);
 * 2. beginConfirm fences the hold under a lease: it can no longer lapse or be confirmed twice;
 * 3. the confirm intent (consent) is written, then the upstream create runs with the
 *    idempotency key `${hostId}:${holdId}`;
 * 4. completeConfirm records the booking (201 confirmed / 202 pending_host), or abortConfirm
 *    gives the hold back: released when the slot was taken upstream, held on a transient error.
 * A crash between 3 and 4 leaves the hold confirming; reconciliation settles it (reconcile/).
 */
import type { BookingDeps, BookingRefusal, Caller, HoldPayload, HostRuntime, UseCase } from "../api.js";
import type { ConnectorError, UpstreamBooking, UpstreamCustomer } from "../../connectors/port.js";
import type { BookingState } from "../bookings/state.js";
import type { HoldRecord } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { authorizeOnBooking, bookingAction } from "../bookings/access.js";
import { receiptConsent } from "../../protocol/schcp/mandate/index.js";
import type { BookingResponse, ConfirmRequest } from "../../protocol/schcp/types.js";
import { loadBooking } from "../bookings/store.js";
import { bookingResponse } from "../bookings/receipt.js";
import { invalidState, notFound, refuse, upstreamRefusal } from "../bookings/refuse.js";
import { checkConfirm, holdStateRefusal } from "./checks.js";
import { decodeHoldPayload } from "./hold-payload.js";
import { writeConfirmIntent } from "./intent.js";
import type { ConfirmIntent } from "./intent.js";
import { recordBooking, upstreamKey } from "./record-booking.js";

/** How long a confirm may spend upstream before a reconciler may take the hold over. */
export const CONFIRM_LEASE_MS = 30_000;

export type ConfirmResult = { readonly status: 201 | 202; readonly body: BookingResponse };

export async function confirmHold(
  deps: BookingDeps,
  hostId: string,
  caller: Caller,
  holdId: string,
  body: ConfirmRequest,
): UseCase<ConfirmResult> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const now = deps.clock.now();
  const hold = await deps.store.getHold(hostId, holdId, now);
  if (hold === undefined) return err(notFound("hold"));
  const payload = decodeHoldPayload(hold.payload, holdId);

  // A confirm that already happened (a retry after a lost answer, or a crash that
  // reconciliation settled) answers with the booking it made, for the same principal and
  // the same offer: the agent has no other way to learn the booking id.
  if (hold.state === "booked" && hold.bookingId !== undefined) {
    const recorded = await answerRecorded(deps, host, caller, hold.bookingId, payload, body);
    if (recorded !== undefined) return recorded;
  }

  const checked = await checkConfirm(deps.store, host, caller, hold, payload, body);
  if (!checked.ok) return checked;
  const chain = checked.value;

  const begun = await fenceHold(deps, hostId, holdId, now);
  if (!begun.ok) return begun;
  const { hold: fenced, fence } = begun.value;

  const intent: ConfirmIntent = {
    principal: chain.principal,
    consent: receiptConsent(chain, payload.offerSha256),
  };
  const contact = body.contact ?? chain.root.claims.contact;
  const made = await settleUpstream(deps, host, fenced, fence, payload, intent, {
    ...(contact !== undefined && { customer: contact }),
    ...(body.notes !== undefined && { notes: body.notes }),
  });
  if (!made.ok) return made;
  const status = made.value.status === "pending_host" ? 202 : 201;
  return ok({ status, body: bookingResponse(made.value, host) });
}

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
  if (begun.reason === "not_found") return err(notFound("hold"));
  return err(
    (begun.hold && holdStateRefusal(begun.hold)) ??
      invalidState(`the hold cannot be confirmed (${begun.reason})`),
  );
}

/** What the upstream create carries beyond the hold itself. */
export interface UpstreamExtras {
  readonly customer?: UpstreamCustomer;
  readonly notes?: string;
  /** OSBP verification pass-through: sent to the platform, kept nowhere. */
  readonly verificationCode?: string;
}

/**
 * Steps 3 and 4 of the two-phase confirm, for a hold fenced by beginConfirm: the intent is
 * written, the upstream create runs under the hold's idempotency key, and the booking is
 * recorded (or the hold given back). Every edge's confirm ends here.
 */
export async function settleUpstream(
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
  const create = () =>
    host.connector.bookings.create({
      idempotencyKey: upstreamKey(hostId, fenced.holdId),
      serviceId: payload.serviceId,
      start: payload.start,
      ...(payload.end !== undefined && { end: payload.end }),
      resourceIds: fenced.allocations.map((a) => a.resourceId),
      ...(extras.customer !== undefined && { customer: extras.customer }),
      ...(extras.notes !== undefined && { notes: extras.notes }),
      ...(extras.verificationCode !== undefined && { verificationCode: extras.verificationCode }),
      partySize: payload.partySize,
      tentative: host.config.policies.confirmation === "host_approval",
    });
  let created: Awaited<ReturnType<typeof create>>;
  try {
    created = await create();
  } catch (bug) {
    // A connector that throws has a bug, and may or may not have booked: settle the hold as
    // for any ambiguous failure (ask by key; give it back if nothing was made), then let the
    // bug surface to the edge, loudly.
    await upstreamFailed(deps, host, fenced, fence, payload, intent, {
      code: "unavailable",
      message: "the connector threw",
    });
    throw bug;
  }
  if (created.ok) return finish(deps, host, fenced, fence, payload, created.value, intent);
  return upstreamFailed(deps, host, fenced, fence, payload, intent, created.error);
}

async function answerRecorded(
  deps: BookingDeps,
  host: HostRuntime,
  caller: Caller,
  bookingId: string,
  payload: HoldPayload,
  body: ConfirmRequest,
): Promise<Result<ConfirmResult, BookingRefusal> | undefined> {
  if (body.offer_sha256 !== payload.offerSha256) return undefined;
  const chain = caller.mandate;
  if (chain === undefined || !chain.links.every((l) => l.claims.scope.includes("book"))) return undefined;
  const loaded = await loadBooking(deps.store, host.config.id, bookingId);
  if (loaded === undefined) return undefined;
  const allowed = await authorizeOnBooking(
    deps.store,
    caller,
    loaded.state,
    bookingAction("read", loaded.state),
  );
  if (!allowed.ok) return allowed;
  const status = loaded.state.status === "pending_host" ? 202 : 201;
  return ok({ status, body: bookingResponse(loaded.state, host) });
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
): UseCase<BookingState> {
  const now = deps.clock.now();
  const recorded = await recordBooking(deps, host, hold, fence, payload, upstream, intent, now);
  if (recorded.ok) return ok(recorded.value);
  const after = await deps.store.getHold(host.config.id, hold.holdId, now);
  if (after?.state === "booked" && after.bookingId !== undefined) {
    const loaded = await loadBooking(deps.store, host.config.id, after.bookingId);
    if (loaded !== undefined) return ok(loaded.state);
  }
  return err(
    refuse(
      "UPSTREAM_UNAVAILABLE",
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
  e: ConnectorError,
): UseCase<BookingState> {
  const hostId = host.config.id;
  if (e.code === "slot_taken") {
    await deps.store.abortConfirm(hostId, hold.holdId, fence, "release", deps.clock.now());
    return err({ ...slotTaken(), upstream: e });
  }
  if (e.code === "timeout" || e.code === "unavailable") {
    const found = await host.connector.bookings.findByIdempotencyKey(upstreamKey(hostId, hold.holdId));
    if (!found.ok) return err(upstreamRefusal(e));
    if (found.value !== null) return finish(deps, host, hold, fence, payload, found.value, intent);
  }
  await deps.store.abortConfirm(hostId, hold.holdId, fence, "held", deps.clock.now());
  return err(upstreamRefusal(e));
}

const slotTaken = (): BookingRefusal =>
  refuse(
    "SLOT_UNAVAILABLE",
    "slot_taken",
    "the time was taken at the host's booking system; place a new hold",
  );
