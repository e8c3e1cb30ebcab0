/**
 * The SchCP host endpoint's use cases (§5.1–§5.8) as the HTTP and MCP edges call them: wire
 * bodies in, wire bodies out. Implemented in this folder over the neutral core (host-api.ts);
 * the edge has verified the signature, the mandate and the closed schema first.
 */
import type { SchcpCaller } from "./caller.js";
import type { UseCase } from "../../booking/api.js";
import type {
  AvailabilityRequest,
  AvailabilityResponse,
  BookingResponse,
  CancelRequest,
  ChangeOfferRequest,
  ChangeOfferResponse,
  ConfirmRequest,
  Hold,
  HoldRequest,
  ProposalResponseRequest,
  RescheduleRequest,
  RespondRequest,
  CommitRequest,
  MeetingRevisionRequest,
  MeetingWithdrawRequest,
  WaitlistEntry,
  WaitlistRequest,
} from "../../protocol/schcp/types.js";

export interface SchcpHostApi {
  /** §5.9 POST /waitlist, GET and DELETE /waitlist/{id}. */
  joinWaitlist(hostId: string, caller: SchcpCaller, body: WaitlistRequest): UseCase<WaitlistEntry>;
  getWaitlistEntry(hostId: string, caller: SchcpCaller, entryId: string): UseCase<WaitlistEntry>;
  leaveWaitlist(hostId: string, caller: SchcpCaller, entryId: string): UseCase<WaitlistEntry>;
  availability(hostId: string, caller: SchcpCaller, body: AvailabilityRequest): UseCase<AvailabilityResponse>;
  placeHold(hostId: string, caller: SchcpCaller, body: HoldRequest): UseCase<Hold>;
  getHold(hostId: string, caller: SchcpCaller, holdId: string): UseCase<Hold>;
  releaseHold(hostId: string, caller: SchcpCaller, holdId: string): UseCase<Hold>;
  confirm(
    hostId: string,
    caller: SchcpCaller,
    holdId: string,
    body: ConfirmRequest,
  ): UseCase<{ readonly status: 201 | 202; readonly body: BookingResponse }>;
  getBooking(hostId: string, caller: SchcpCaller, bookingId: string): UseCase<BookingResponse>;
  cancel(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: CancelRequest,
  ): UseCase<BookingResponse>;
  changeOffer(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: ChangeOfferRequest,
  ): UseCase<ChangeOfferResponse>;
  reschedule(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: RescheduleRequest,
  ): UseCase<BookingResponse>;
  proposalResponse(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: ProposalResponseRequest,
  ): UseCase<BookingResponse>;
  /** §5.10: a participant's (or the booker's reconfirming) answer. */
  respond(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: RespondRequest,
  ): UseCase<BookingResponse>;
  /** §5.12: the organizer commits a meeting booking with every member's acceptance. */
  commit(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: CommitRequest,
  ): UseCase<BookingResponse>;
  /** §5.12 Revisions: the organizer hands this calendar a revised contract. */
  reviseMeeting(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: MeetingRevisionRequest,
  ): UseCase<BookingResponse>;
  /** §5.12 Changing a confirmed meeting: the organizer withdraws a pending revision. */
  withdrawMeetingRevision(
    hostId: string,
    caller: SchcpCaller,
    bookingId: string,
    body: MeetingWithdrawRequest,
  ): UseCase<BookingResponse>;
}
