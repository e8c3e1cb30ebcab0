/**
 * The neutral booking core as the edges see it: the direct use cases (DirectBookingApi: OSBP,
 * A2A), the host's side (OperatorApi), upstream changes and maintenance, over one BookingDeps.
 * Availability and holds are the hold use cases (src/booking/availability, src/booking/holds);
 * everything from confirm on lives in confirm/, bookings/, changes/ and operator/. Change
 * offers and host proposals are placed with the same createHold engine as any hold. No edge is
 * installed here: the composition root adds the edges' hooks and use cases
 * (src/gateway/booking-service.ts; docs/ARCHITECTURE.md, One core every edge).
 */
import type { BookingDeps, OperatorApi, UpstreamChangeApi, UseCase } from "./api.js";
import { declineBusyMeeting } from "./calendar/displace-meeting.js";
import { createHold } from "./holds/index.js";
import { storeBookingIndex } from "./bookings/booking-index.js";
import type { CreateHold } from "./changes/hold-engine.js";
import { approveBooking } from "./operator/approve.js";
import { markAttendance } from "./operator/attendance.js";
import { declineBooking } from "./operator/decline.js";
import { acceptMeeting, takeBackMeeting } from "./meetings/answer.js";
import { acceptRevision, declineRevision, revisionPending } from "./meetings/revise-confirmed.js";
import { bookingView, type BookingView } from "./view.js";
import type { BookingState } from "./bookings/state.js";
import { ok, type Result } from "../protocol/result.js";
import type { BookingRefusal } from "./errors.js";
import { expireOverdue } from "./operator/deadlines.js";
import type { DeadlineReport } from "./operator/deadlines.js";
import { hostCancelBooking } from "./operator/host-cancel.js";
import { listBookings, pageBookings } from "./operator/list.js";
import { proposeChange } from "./operator/propose.js";
import { counterBooking } from "./operator/counter.js";
import { applyUpstreamMove } from "./operator/upstream-move.js";
import { reconcileStuckConfirms } from "./reconcile/reconcile.js";
import {
  bookNow,
  directOpenings,
  guestCancelBooking,
  readDirectBooking,
  sendVerification,
  verifyCode,
  type DirectBookingApi,
} from "./direct/index.js";
import type { ReconcileReport } from "./reconcile/reconcile.js";
import { MemoryPublicPool } from "./public-pool/index.js";
import { addRule, listRules, MemoryRuleStore, removeRule } from "./answers/index.js";
import { sweepWaitlist, type WaitlistSweep } from "./waitlist/index.js";

/** The periodic work the jobs layer runs per host (src/jobs/maintenance). */
export interface BookingMaintenance {
  /** Confirms stuck past their lease, settled by asking the upstream (never creating). */
  reconcile(hostId: string): Promise<ReconcileReport>;
  /** Approval deadlines, lapsed change offers and participant deadlines (SchCP §5.7, §5.10, §6). */
  expireOverdue(hostId: string): Promise<DeadlineReport>;
  /** Waitlist offers that lapsed go down the line; entries whose window passed expire (§5.9). */
  sweepWaitlist(hostId: string): Promise<WaitlistSweep | undefined>;
  /** SchCP §5.8, §5.12: a meeting booking before commit whose time its calendar shows busy. */
  declineBusyMeeting?(hostId: string, bookingId: string, start: number): UseCase<BookingState>;
}

export type BookingCoreApi = OperatorApi & UpstreamChangeApi & BookingMaintenance & DirectBookingApi;

export interface BookingCore {
  readonly api: BookingCoreApi;
  /** The deps as resolved (defaults filled in), for the edges' use cases built beside the core. */
  readonly deps: BookingDeps;
  /** The hold engine every hold, change offer and proposal is placed with. */
  readonly engine: CreateHold;
}

export function createBookingCore(deps: BookingDeps): BookingCore {
  // Without a configured index, the store's own (written with each booking) serves (api.ts
  // BookingIndex).
  const d: BookingDeps = {
    ...deps,
    bookingIndex: deps.bookingIndex ?? storeBookingIndex(deps.store),
    publicPool: deps.publicPool ?? new MemoryPublicPool(),
    rules: deps.rules ?? new MemoryRuleStore(),
  };
  const engine: CreateHold = createHold;
  const api: BookingCoreApi = {
    listBookings: (hostId) => listBookings(d, hostId),
    pageBookings: (hostId, query) => pageBookings(d, hostId, query),
    approve: (hostId, bookingId) => approveBooking(d, hostId, bookingId),
    addRule: (hostId, jws) => addRule(d, hostId, jws),
    listRules: (hostId) => listRules(d, hostId),
    removeRule: (hostId, jti) => removeRule(d, hostId, jti),
    decline: (hostId, bookingId, input) => declineBooking(d, hostId, bookingId, input),
    hostCancel: (hostId, bookingId, input) => hostCancelBooking(d, hostId, bookingId, input),
    markAttendance: (hostId, bookingId, input) => markAttendance(d, hostId, bookingId, input),
    propose: (hostId, bookingId, input) => proposeChange(d, engine, hostId, bookingId, input),
    counter: (hostId, bookingId, input) => counterBooking(d, engine, hostId, bookingId, input),
    // §5.12: on a confirmed meeting with a pending revision, the member answers the revision.
    acceptMeeting: async (hostId, bookingId, input) =>
      viewed(
        d,
        (await revisionPending(d, hostId, bookingId))
          ? await acceptRevision(d, hostId, bookingId, input.acceptance)
          : await acceptMeeting(d, hostId, bookingId, input.acceptance),
      ),
    takeBackMeeting: async (hostId, bookingId, input) =>
      viewed(
        d,
        (await revisionPending(d, hostId, bookingId))
          ? await declineRevision(d, hostId, bookingId, input.message)
          : await takeBackMeeting(d, hostId, bookingId, input.message),
      ),
    applyUpstreamMove: (hostId, bookingId, move) => applyUpstreamMove(d, hostId, bookingId, move),

    openings: (hostId, caller, request) => directOpenings(d, hostId, caller, request),
    bookNow: (hostId, caller, intent) => bookNow(d, hostId, caller, intent),
    readBooking: (hostId, bookingId) => readDirectBooking(d, hostId, bookingId),
    guestCancel: (hostId, bookingId, input) => guestCancelBooking(d, hostId, bookingId, input),
    sendVerification: (hostId, customer, purpose) => sendVerification(d, hostId, customer, purpose),
    verifyCode: (hostId, customer, purpose, code) => verifyCode(d, hostId, customer, purpose, code),
    host: (hostId) => d.hosts.get(hostId),

    reconcile: (hostId) => reconcileStuckConfirms(d, hostId),
    expireOverdue: (hostId) => expireOverdue(d, hostId),
    declineBusyMeeting: (hostId, bookingId, start) => declineBusyMeeting(d, hostId, bookingId, start),
    sweepWaitlist: async (hostId) => {
      const host = d.hosts.get(hostId);
      return host === undefined ? undefined : sweepWaitlist(d, host, d.clock.now());
    },
  };
  return { api, deps: d, engine };
}

/** A use case's booking as the operator's neutral view. */
function viewed(
  d: BookingDeps,
  r: Result<BookingState, BookingRefusal>,
): Result<BookingView, BookingRefusal> {
  return r.ok ? ok(bookingView(r.value, d.clock.now())) : r;
}
