/** Booking without a hold step (OSBP, Servicialo A2A): the same hold engine and confirm, in one call. */
export { attemptHoldId, bookNow } from "./book.js";
export { directOpenings } from "./openings.js";
/** OpeningsRequest.range: [start, end) in epoch ms (src/calendar/interval.ts). */
export type { Interval } from "../../calendar/index.js";
export { readDirectBooking } from "./read.js";
export { guestCancelBooking } from "./cancel.js";
export { sendVerification, verifyCode } from "./verification.js";

import type { UpstreamAnswer, UpstreamCustomer } from "../upstream.js";
import type { Caller, HostRuntime, UseCase } from "../api.js";
import type { BookingView } from "../view.js";
import type { DirectBooking, DirectBookingIntent } from "./book.js";
import type { Opening, OpeningsRequest } from "./openings.js";
import type { ReadBooking } from "./read.js";

/** The core as an edge without holds sees it (OSBP, Servicialo A2A). */
export interface DirectBookingApi {
  openings(hostId: string, caller: Caller, request: OpeningsRequest): UseCase<readonly Opening[]>;
  bookNow(hostId: string, caller: Caller, intent: DirectBookingIntent): UseCase<DirectBooking>;
  readBooking(hostId: string, bookingId: string): UseCase<ReadBooking>;
  /** The guest's own cancel, asked for on its behalf (direct/cancel.ts). */
  guestCancel(hostId: string, bookingId: string, input: { reason?: string }): UseCase<BookingView>;
  sendVerification(
    hostId: string,
    customer: UpstreamCustomer,
    purpose: string,
  ): Promise<UpstreamAnswer<{ readonly method: "sms" | "email" }>>;
  verifyCode(
    hostId: string,
    customer: UpstreamCustomer,
    purpose: string,
    code: string,
  ): Promise<UpstreamAnswer<{ readonly method: "sms" | "email" }>>;
  /** The host as configured, with the catalog the core reads (undefined: no such host). */
  host(hostId: string): HostRuntime | undefined;
}
