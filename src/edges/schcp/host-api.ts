/**
 * The SchCP edge of the core: every SchCP use case (api.ts SchcpHostApi) over the neutral
 * core, for the HTTP edge (src/gateway/app) and the MCP edge alike. It lives beside the core
 * rather than in src/gateway because its hooks (edge.ts: the signed offer, receipts,
 * webhooks) must run whichever edge or operator action changes a SchCP booking, and the jobs
 * read what it keeps with a hold (hold.expired).
 */
import type { BookingDeps } from "../../booking/api.js";
import type { CreateHold } from "../../booking/changes/hold-engine.js";
import type { SchcpHostApi } from "./api.js";
import type { SchcpEdgeOptions } from "./key-app.js";

export type { SchcpHostApi };
import { availability } from "./availability.js";
import { cancelBooking } from "./cancel.js";
import { changeOffer } from "./change-offer.js";
import { confirmHold } from "./confirm.js";
import { getBooking } from "./get.js";
import { getHold, releaseHold } from "./holds.js";
import { placeHold } from "./place-hold.js";
import { proposalResponse } from "./proposal-response.js";
import { reschedule } from "./reschedule.js";
import { respond } from "./respond.js";
import { commitBooking } from "./meeting/commit.js";
import { reviseBooking } from "./meeting/revise.js";
import { withdrawBookingRevision } from "./meeting/withdraw.js";
import { getWaitlistEntry, joinWaitlist, leaveWaitlist } from "./waitlist.js";

export function schcpHostApi(
  d: BookingDeps,
  engine: CreateHold,
  options: SchcpEdgeOptions = {},
): SchcpHostApi {
  return {
    availability: (hostId, caller, body) => availability(d, hostId, caller, body),
    joinWaitlist: (hostId, caller, body) => joinWaitlist(d, hostId, caller, body),
    getWaitlistEntry: (hostId, caller, entryId) => getWaitlistEntry(d, hostId, caller, entryId),
    leaveWaitlist: (hostId, caller, entryId) => leaveWaitlist(d, hostId, caller, entryId),
    placeHold: (hostId, caller, body) => placeHold(d, hostId, caller, body),
    getHold: (hostId, caller, holdId) => getHold(d, hostId, caller, holdId),
    releaseHold: (hostId, caller, holdId) => releaseHold(d, hostId, caller, holdId),
    confirm: (hostId, caller, holdId, body) => confirmHold(d, hostId, caller, holdId, body, options),
    getBooking: (hostId, caller, bookingId) => getBooking(d, hostId, caller, bookingId),
    cancel: (hostId, caller, bookingId, body) => cancelBooking(d, hostId, caller, bookingId, body),
    changeOffer: (hostId, caller, bookingId, body) => changeOffer(d, engine, hostId, caller, bookingId, body),
    reschedule: (hostId, caller, bookingId, body) => reschedule(d, hostId, caller, bookingId, body),
    proposalResponse: (hostId, caller, bookingId, body) =>
      proposalResponse(d, hostId, caller, bookingId, body),
    respond: (hostId, caller, bookingId, body) => respond(d, hostId, caller, bookingId, body),
    commit: (hostId, caller, bookingId, body) => commitBooking(d, hostId, caller, bookingId, body),
    reviseMeeting: (hostId, caller, bookingId, body) => reviseBooking(d, hostId, caller, bookingId, body),
    withdrawMeetingRevision: (hostId, caller, bookingId, body) =>
      withdrawBookingRevision(d, hostId, caller, bookingId, body),
  };
}
