/**
 * The booking core as the edges see it: every SchCP use case (SchcpHostApi) and the host's
 * side (OperatorApi) over one BookingDeps. Availability and holds are the hold use cases
 * (src/booking/availability, src/booking/holds); everything from confirm on lives in
 * confirm/, bookings/, changes/ and operator/. Change offers and host proposals are placed
 * with the same createHold engine as any hold.
 */
import type { BookingDeps, OperatorApi, SchcpHostApi } from "./api.js";
import { availability } from "./availability/index.js";
import { createHold, getHold, placeHold, releaseHold } from "./holds/index.js";
import { storeBookingIndex } from "./bookings/booking-index.js";
import { cancelBooking } from "./bookings/cancel.js";
import { getBooking } from "./bookings/get.js";
import { changeOffer } from "./changes/change-offer.js";
import type { CreateHold } from "./changes/hold-engine.js";
import { proposalResponse } from "./changes/proposal-response.js";
import { reschedule } from "./changes/reschedule.js";
import { confirmHold } from "./confirm/confirm.js";
import { approveBooking } from "./operator/approve.js";
import { markAttendance } from "./operator/attendance.js";
import { declineBooking } from "./operator/decline.js";
import { expireOverdue } from "./operator/deadlines.js";
import type { DeadlineReport } from "./operator/deadlines.js";
import { hostCancelBooking } from "./operator/host-cancel.js";
import { listBookings } from "./operator/list.js";
import { proposeChange } from "./operator/propose.js";
import { reconcileStuckConfirms } from "./reconcile/reconcile.js";
import {
  bookNow,
  directOpenings,
  readDirectBooking,
  sendVerification,
  verifyCode,
  type DirectBookingApi,
} from "./direct/index.js";
import type { ReconcileReport } from "./reconcile/reconcile.js";

/** The periodic work the jobs layer runs per host (I5's maintenance runners). */
export interface BookingMaintenance {
  /** Confirms stuck past their lease, settled by asking the upstream (never creating). */
  reconcile(hostId: string): Promise<ReconcileReport>;
  /** Approval deadlines and lapsed change offers (§5.7, §6). */
  expireOverdue(hostId: string): Promise<DeadlineReport>;
}

export type BookingService = SchcpHostApi & OperatorApi & BookingMaintenance & DirectBookingApi;

export function createBookingService(deps: BookingDeps): BookingService {
  // Without a configured index, the store's own (written with each booking) serves (api.ts BookingIndex).
  const d: BookingDeps =
    deps.bookingIndex === undefined ? { ...deps, bookingIndex: storeBookingIndex(deps.store) } : deps;
  const engine: CreateHold = createHold;
  return {
    availability: (hostId, caller, body) => availability(d, hostId, caller, body),
    placeHold: (hostId, caller, body) => placeHold(d, hostId, caller, body),
    getHold: (hostId, caller, holdId) => getHold(d, hostId, caller, holdId),
    releaseHold: (hostId, caller, holdId) => releaseHold(d, hostId, caller, holdId),
    confirm: (hostId, caller, holdId, body) => confirmHold(d, hostId, caller, holdId, body),
    getBooking: (hostId, caller, bookingId) => getBooking(d, hostId, caller, bookingId),
    cancel: (hostId, caller, bookingId, body) => cancelBooking(d, hostId, caller, bookingId, body),
    changeOffer: (hostId, caller, bookingId, body) => changeOffer(d, engine, hostId, caller, bookingId, body),
    reschedule: (hostId, caller, bookingId, body) => reschedule(d, hostId, caller, bookingId, body),
    proposalResponse: (hostId, caller, bookingId, body) =>
      proposalResponse(d, hostId, caller, bookingId, body),

    listBookings: (hostId) => listBookings(d, hostId),
    approve: (hostId, bookingId) => approveBooking(d, hostId, bookingId),
    decline: (hostId, bookingId, input) => declineBooking(d, hostId, bookingId, input),
    hostCancel: (hostId, bookingId, input) => hostCancelBooking(d, hostId, bookingId, input),
    markAttendance: (hostId, bookingId, input) => markAttendance(d, hostId, bookingId, input),
    propose: (hostId, bookingId, input) => proposeChange(d, engine, hostId, bookingId, input),

    openings: (hostId, caller, request) => directOpenings(d, hostId, caller, request),
    bookNow: (hostId, caller, intent) => bookNow(d, hostId, caller, intent),
    readBooking: (hostId, bookingId) => readDirectBooking(d, hostId, bookingId),
    sendVerification: (hostId, customer, purpose) => sendVerification(d, hostId, customer, purpose),
    verifyCode: (hostId, customer, purpose, code) => verifyCode(d, hostId, customer, purpose, code),
    host: (hostId) => d.hosts.get(hostId),

    reconcile: (hostId) => reconcileStuckConfirms(d, hostId),
    expireOverdue: (hostId) => expireOverdue(d, hostId),
  };
}
