/**
 * The SchCP host-endpoint operations (§5.1–§5.8), relative to the endpoint
 * {origin}/schcp/v0/{hostId}: what each takes, which closed schemas frame it, whether it
 * needs a mandate and an idempotency key, and which use case it calls. The handler in
 * schcp-routes.ts runs the same pipeline for all of them.
 */
import type { HostRuntime, UseCase } from "../../../booking/api.js";
import type { SchcpHostApi } from "../api.js";
import type { SchcpCaller } from "../caller.js";
import type { SchcpTypeOf, SchemaName } from "../../../protocol/schcp/validate.js";
import type { IdempotentRoute } from "./types.js";

/** A use case's answer: the status and wire body, or the core's refusal. */
type RouteAnswer = UseCase<{ readonly status: number; readonly body: unknown }>;

interface RouteParams {
  readonly holdId?: string;
  readonly waitlistId?: string;
  readonly bookingId?: string;
}

export interface SchcpRoute {
  readonly name: string;
  readonly method: "GET" | "POST" | "DELETE";
  /** Hono path below /schcp/v0/:hostId. */
  readonly path: string;
  /** The closed request schema; null for a bodiless request. */
  readonly request: SchemaName | null;
  /** The closed schema every success response must match. */
  readonly response: SchemaName;
  /** Whether the request must carry SchCP-Mandate at this host. */
  mandateRequired(host: HostRuntime): boolean;
  /** Availability only: the per-agent token bucket (§7.2). */
  readonly rateLimited: boolean;
  /** Set for the routes that carry idempotency_key (§9.1); DELETE /holds/{id} is exempt. */
  readonly idempotent?: IdempotentRoute;
  call(
    api: SchcpHostApi,
    hostId: string,
    caller: SchcpCaller,
    params: RouteParams,
    body: unknown,
  ): RouteAnswer;
}

const always = (): boolean => true;
/** §7.1 requires_mandate: without it, anonymous holds belong to the agent key. */
const holdsPolicy = (host: HostRuntime): boolean => host.config.policies.holds.requiresMandate;

/** Types the body as the schema it was validated against. */
function withBody<N extends SchemaName>(
  _schema: N,
  fn: (
    api: SchcpHostApi,
    hostId: string,
    caller: SchcpCaller,
    params: RouteParams,
    body: SchcpTypeOf<N>,
  ) => RouteAnswer,
): SchcpRoute["call"] {
  return (api, hostId, caller, params, body) => fn(api, hostId, caller, params, body as SchcpTypeOf<N>);
}

async function answer<T>(status: number, run: UseCase<T>): RouteAnswer {
  const result = await run;
  return result.ok ? { ok: true, value: { status, body: result.value } } : result;
}

function id(value: string | undefined): string {
  // Hono only matches these routes with the parameter present.
  if (value === undefined) throw new Error("route parameter missing");
  return value;
}

export const SCHCP_ROUTES: readonly SchcpRoute[] = [
  {
    name: "availability",
    method: "POST",
    path: "/availability",
    request: "AvailabilityRequest",
    response: "AvailabilityResponse",
    // §5.1: availability is public; a contacts-only host asks for a mandate in the core.
    mandateRequired: () => false,
    rateLimited: true,
    call: withBody("AvailabilityRequest", (api, h, c, _p, b) => answer(200, api.availability(h, c, b))),
  },
  {
    name: "placeHold",
    method: "POST",
    path: "/holds",
    request: "HoldRequest",
    response: "Hold",
    mandateRequired: holdsPolicy,
    rateLimited: false,
    idempotent: "placeHold",
    call: withBody("HoldRequest", (api, h, c, _p, b) => answer(201, api.placeHold(h, c, b))),
  },
  {
    name: "getHold",
    method: "GET",
    path: "/holds/:holdId",
    request: null,
    response: "Hold",
    mandateRequired: holdsPolicy,
    rateLimited: false,
    call: (api, h, c, p) => answer(200, api.getHold(h, c, id(p.holdId))),
  },
  {
    name: "releaseHold",
    method: "DELETE",
    path: "/holds/:holdId",
    request: null,
    response: "Hold",
    mandateRequired: holdsPolicy,
    rateLimited: false,
    // §9.1: exempt, idempotent by nature.
    call: (api, h, c, p) => answer(200, api.releaseHold(h, c, id(p.holdId))),
  },
  {
    name: "confirm",
    method: "POST",
    path: "/holds/:holdId/confirm",
    request: "ConfirmRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "confirm",
    call: withBody("ConfirmRequest", async (api, h, c, p, b) => {
      const result = await api.confirm(h, c, id(p.holdId), b);
      return result.ok
        ? { ok: true, value: { status: result.value.status, body: result.value.body } }
        : result;
    }),
  },
  {
    name: "getBooking",
    method: "GET",
    path: "/bookings/:bookingId",
    request: null,
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    call: (api, h, c, p) => answer(200, api.getBooking(h, c, id(p.bookingId))),
  },
  {
    name: "cancel",
    method: "POST",
    path: "/bookings/:bookingId/cancel",
    request: "CancelRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "cancel",
    call: withBody("CancelRequest", (api, h, c, p, b) => answer(200, api.cancel(h, c, id(p.bookingId), b))),
  },
  {
    name: "changeOffer",
    method: "POST",
    path: "/bookings/:bookingId/change-offer",
    request: "ChangeOfferRequest",
    response: "ChangeOfferResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "changeOffer",
    // §5.7 step 1: "returns 201 with a proposal".
    call: withBody("ChangeOfferRequest", (api, h, c, p, b) =>
      answer(201, api.changeOffer(h, c, id(p.bookingId), b)),
    ),
  },
  {
    name: "reschedule",
    method: "POST",
    path: "/bookings/:bookingId/reschedule",
    request: "RescheduleRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "reschedule",
    call: withBody("RescheduleRequest", (api, h, c, p, b) =>
      answer(200, api.reschedule(h, c, id(p.bookingId), b)),
    ),
  },
  {
    name: "proposalResponse",
    method: "POST",
    path: "/bookings/:bookingId/proposal-response",
    request: "ProposalResponseRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "proposalResponse",
    call: withBody("ProposalResponseRequest", (api, h, c, p, b) =>
      answer(200, api.proposalResponse(h, c, id(p.bookingId), b)),
    ),
  },
  {
    // §5.10: a participant's answer, under their own mandate (any scope).
    name: "respond",
    method: "POST",
    path: "/bookings/:bookingId/respond",
    request: "RespondRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "respond",
    call: withBody("RespondRequest", (api, h, c, p, b) => answer(200, api.respond(h, c, id(p.bookingId), b))),
  },
  {
    // §5.12: the organizer makes a meeting booking final with every member's acceptance.
    name: "commit",
    method: "POST",
    path: "/bookings/:bookingId/commit",
    request: "CommitRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "commit",
    call: withBody("CommitRequest", (api, h, c, p, b) => answer(200, api.commit(h, c, id(p.bookingId), b))),
  },
  {
    // §5.12 Revisions: a revised contract for a meeting booking still pending_host or tentative.
    name: "reviseMeeting",
    method: "POST",
    path: "/bookings/:bookingId/meeting",
    request: "MeetingRevisionRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "reviseMeeting",
    call: withBody("MeetingRevisionRequest", (api, h, c, p, b) =>
      answer(200, api.reviseMeeting(h, c, id(p.bookingId), b)),
    ),
  },
  {
    // §5.12 Changing a confirmed meeting: the organizer withdraws a pending revision.
    name: "withdrawMeetingRevision",
    method: "POST",
    path: "/bookings/:bookingId/meeting/withdraw",
    request: "MeetingWithdrawRequest",
    response: "BookingResponse",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "withdrawMeetingRevision",
    call: withBody("MeetingWithdrawRequest", (api, h, c, p, b) =>
      answer(200, api.withdrawMeetingRevision(h, c, id(p.bookingId), b)),
    ),
  },
  {
    name: "joinWaitlist",
    method: "POST",
    path: "/waitlist",
    request: "WaitlistRequest",
    response: "WaitlistEntry",
    mandateRequired: always,
    rateLimited: false,
    idempotent: "joinWaitlist",
    // §5.9 "→ 201".
    call: withBody("WaitlistRequest", (api, h, c, _p, b) => answer(201, api.joinWaitlist(h, c, b))),
  },
  {
    name: "getWaitlistEntry",
    method: "GET",
    path: "/waitlist/:waitlistId",
    request: null,
    response: "WaitlistEntry",
    mandateRequired: always,
    rateLimited: false,
    call: (api, h, c, p) => answer(200, api.getWaitlistEntry(h, c, id(p.waitlistId))),
  },
  {
    name: "leaveWaitlist",
    method: "DELETE",
    path: "/waitlist/:waitlistId",
    request: null,
    response: "WaitlistEntry",
    mandateRequired: always,
    rateLimited: false,
    // Like DELETE /holds/{id}: bodiless, idempotent by nature (leaving again returns the entry).
    call: (api, h, c, p) => answer(200, api.leaveWaitlist(h, c, id(p.waitlistId))),
  },
];
