/**
 * SchcpClient: an agent's calls to a host endpoint (SchCP §5), over HTTP only.
 *
 * Every call is signed (§3.2) with a fresh nonce and created = now, carries the mandate in
 * SchCP-Mandate when one is given (the signature covers it), and its answer is parsed
 * strictly and validated against the closed response schema (Hold, BookingResponse, …) or
 * the Refusal shape, so an agent never acts on a hold or booking that fails (§5.2, §5.3).
 * Verifying the signed offer and receipt inside is verify.ts's job, with the discovery keys.
 * Mutating calls get a random idempotency_key unless the caller gives one (§9.1); give the
 * same one to retry.
 */
import type { Clock } from "../protocol/clock.js";
import { signSchcpRequest } from "../protocol/http-signatures/index.js";
import type { Result } from "../protocol/result.js";
import { err } from "../protocol/result.js";
import { offerSha256 } from "../protocol/schcp/offer/index.js";
import { agentError } from "./errors.js";
import type {
  Booking,
  AvailabilityRequest,
  AvailabilityResponse,
  BookingResponse,
  CancelRequest,
  ChangeOfferRequest,
  CommitRequest,
  ChangeOfferResponse,
  ConfirmRequest,
  Hold,
  HoldRequest,
  MeetingRevisionRequest,
  MeetingWithdrawRequest,
  ProposalResponseRequest,
  RescheduleRequest,
  RespondRequest,
  WaitlistEntry,
  WaitlistRequest,
} from "../protocol/schcp/types.js";
import type { SchemaName, SchcpTypeOf } from "../protocol/schcp/validate.js";
import { verifyBrand } from "./brand.js";
import type { VerifiedBrand, VerifyBrandOptions } from "./brand.js";
import { discoverHost, discoverOperator } from "./discovery.js";
import type { DiscoveredHost, DiscoveredOperator, DiscoverHostOptions } from "./discovery.js";
import type { AgentError } from "./errors.js";
import { checkUrl, readSchcpAnswer, send } from "./http.js";
import type { FetchLike, HttpPolicy, Reply } from "./http.js";
import type { AgentKey } from "./keys.js";
import { randomToken } from "../protocol/random.js";
import type { MandatePresenter } from "./sd-jwt.js";

export interface SchcpClientOptions {
  readonly agentKey: AgentKey;
  /** Defaults to the global fetch; tests pass a Hono app's `request`. */
  readonly fetch?: FetchLike;
  /** Epoch milliseconds; a signature's created is this clock's second (§3.2). */
  readonly clock?: Clock;
  /** Plain http: "loopback" (default), "always" or "never" (§3.1 "JSON over HTTPS"). */
  readonly allowHttp?: HttpPolicy;
}

/** Where to send: a discovered host (or anything with its authorized endpoint). */
export interface HostTarget {
  readonly endpoint: string;
}

export interface CallOptions {
  /**
   * The SchCP-Mandate header: a compact mandate JWS (or chain leaf) (§3.3), or a presenter
   * asked once per request, such as an SD-JWT VC mandate's (sdJwtPresenter, §3.4), whose
   * every request needs a fresh Key Binding JWT. The request signature covers the value sent.
   */
  readonly mandate?: string | MandatePresenter;
}

/** A request body whose idempotency_key the client fills in when absent (§9.1). */
export type Keyed<T extends { idempotency_key: string }> = Omit<T, "idempotency_key"> & {
  idempotency_key?: string;
};

export type Call<T> = Promise<Result<Reply<T>, AgentError>>;

/** A raw signed request (for tools and tests that need to send exactly these bytes). */
export interface SignedRequest {
  readonly method: string;
  readonly url: string;
  /** An object is sent as JSON.stringify(body); a string or bytes exactly as given. */
  readonly body?: unknown;
  readonly mandate?: string;
  /** Override the signature's created (Unix seconds) or nonce: tests of stale and replayed signatures. */
  readonly created?: number;
  readonly nonce?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export class SchcpClient {
  readonly agentKey: AgentKey;
  private readonly fetchFn: FetchLike;
  private readonly clock: Clock;
  private readonly allowHttp: HttpPolicy;

  constructor(opts: SchcpClientOptions) {
    this.agentKey = opts.agentKey;
    this.fetchFn = opts.fetch ?? ((url, init) => fetch(url, init));
    this.clock = opts.clock ?? Date;
    this.allowHttp = opts.allowHttp ?? "loopback";
  }

  discoverOperator(origin: string): Promise<Result<DiscoveredOperator, AgentError>> {
    return discoverOperator(this.io(), origin);
  }

  discoverHost(url: string, opts?: DiscoverHostOptions): Promise<Result<DiscoveredHost, AgentError>> {
    return discoverHost(this.io(), url, opts);
  }

  /** §2.4: a location's brand siblings, each verified only if it names the brand and lists this location back. */
  verifyBrand(
    location: string | Pick<DiscoveredHost, "url" | "document">,
    opts?: VerifyBrandOptions,
  ): Promise<Result<VerifiedBrand, AgentError>> {
    return verifyBrand(this.io(), location, opts);
  }

  /** POST /availability (§5.1). A mandate is optional except at a contacts-only host. */
  availability(
    host: HostTarget,
    body: AvailabilityRequest,
    opts: CallOptions = {},
  ): Call<AvailabilityResponse> {
    return this.call(host, "POST", "/availability", body, "AvailabilityResponse", opts);
  }

  /** POST /holds (§5.2): a Hold with its signed offer, or SLOT_UNAVAILABLE with alternatives. */
  hold(host: HostTarget, body: Keyed<HoldRequest>, opts: CallOptions = {}): Call<Hold> {
    return this.call(host, "POST", "/holds", keyed(body), "Hold", opts);
  }

  getHold(host: HostTarget, holdId: string, opts: CallOptions = {}): Call<Hold> {
    return this.call(host, "GET", `/holds/${seg(holdId)}`, undefined, "Hold", opts);
  }

  /** DELETE /holds/{id} (§5.4): idempotent by nature, so it carries no key (§9.1). */
  releaseHold(host: HostTarget, holdId: string, opts: CallOptions = {}): Call<Hold> {
    return this.call(host, "DELETE", `/holds/${seg(holdId)}`, undefined, "Hold", opts);
  }

  /**
   * POST /waitlist (§5.9): 201 with the closed WaitlistEntry. A freed time that suits the entry
   * comes as a waitlist.offered webhook carrying the hold and the entry (verify the hold's offer
   * with verifyHoldOffer), or by polling getWaitlistEntry until it names a hold_id (then
   * getHold); confirm that hold as any other, naming its offer's hash.
   */
  joinWaitlist(host: HostTarget, body: Keyed<WaitlistRequest>, opts: CallOptions = {}): Call<WaitlistEntry> {
    return this.call(host, "POST", "/waitlist", keyed(body), "WaitlistEntry", opts);
  }

  /** GET /waitlist/{id} (§5.9). */
  getWaitlistEntry(host: HostTarget, waitlistId: string, opts: CallOptions = {}): Call<WaitlistEntry> {
    return this.call(host, "GET", `/waitlist/${seg(waitlistId)}`, undefined, "WaitlistEntry", opts);
  }

  /** DELETE /waitlist/{id} (§5.9): leaves the line; an offer held goes to the next entry. */
  leaveWaitlist(host: HostTarget, waitlistId: string, opts: CallOptions = {}): Call<WaitlistEntry> {
    return this.call(host, "DELETE", `/waitlist/${seg(waitlistId)}`, undefined, "WaitlistEntry", opts);
  }

  /** POST /holds/{id}/confirm (§5.3): 201 confirmed or 202 pending_host. */
  confirm(
    host: HostTarget,
    holdId: string,
    body: Keyed<ConfirmRequest>,
    opts: CallOptions = {},
  ): Call<BookingResponse> {
    return this.call(host, "POST", `/holds/${seg(holdId)}/confirm`, keyed(body), "BookingResponse", opts);
  }

  getBooking(host: HostTarget, bookingId: string, opts: CallOptions = {}): Call<BookingResponse> {
    return this.call(host, "GET", `/bookings/${seg(bookingId)}`, undefined, "BookingResponse", opts);
  }

  /** POST /bookings/{id}/cancel (§5.6): free before the start, sequence + 1, a fresh receipt. */
  cancel(
    host: HostTarget,
    bookingId: string,
    body: Keyed<CancelRequest> = {},
    opts: CallOptions = {},
  ): Call<BookingResponse> {
    return this.call(
      host,
      "POST",
      `/bookings/${seg(bookingId)}/cancel`,
      keyed(body),
      "BookingResponse",
      opts,
    );
  }

  /** POST /bookings/{id}/change-offer (§5.7 step 1): the new time held, with a change offer. */
  changeOffer(
    host: HostTarget,
    bookingId: string,
    body: Keyed<ChangeOfferRequest>,
    opts: CallOptions = {},
  ): Call<ChangeOfferResponse> {
    const path = `/bookings/${seg(bookingId)}/change-offer`;
    return this.call(host, "POST", path, keyed(body), "ChangeOfferResponse", opts);
  }

  /** POST /bookings/{id}/reschedule (§5.7 step 2): accept the open change offer by its hash. */
  reschedule(
    host: HostTarget,
    bookingId: string,
    body: Keyed<RescheduleRequest>,
    opts: CallOptions = {},
  ): Call<BookingResponse> {
    const path = `/bookings/${seg(bookingId)}/reschedule`;
    return this.call(host, "POST", path, keyed(body), "BookingResponse", opts);
  }

  /** POST /bookings/{id}/proposal-response (§5.8): accept or decline a host's proposal. */
  proposalResponse(
    host: HostTarget,
    bookingId: string,
    body: Keyed<ProposalResponseRequest>,
    opts: CallOptions = {},
  ): Call<BookingResponse> {
    const path = `/bookings/${seg(bookingId)}/proposal-response`;
    return this.call(host, "POST", path, keyed(body), "BookingResponse", opts);
  }

  /**
   * Accepts the host's open proposal on `booking` (§5.8), or its counter to a pending booking
   * (§5.11), naming the proposal's exact offer bytes by hash at the booking's current sequence.
   * Verify it first (verifyHostProposal). Under closed_mandate "always" the mandate must be the
   * principal's own over that hash (KeyApp, §5.3).
   */
  acceptProposal(
    host: HostTarget,
    booking: Pick<Booking, "booking_id" | "sequence" | "proposal">,
    opts: CallOptions & { readonly idempotencyKey?: string } = {},
  ): Call<BookingResponse> {
    return this.answerProposal(host, booking, true, opts);
  }

  /** Declines the host's open proposal or counter: it is cleared and its held time freed (§5.8, §5.11). */
  declineProposal(
    host: HostTarget,
    booking: Pick<Booking, "booking_id" | "sequence" | "proposal">,
    opts: CallOptions & { readonly idempotencyKey?: string } = {},
  ): Call<BookingResponse> {
    return this.answerProposal(host, booking, false, opts);
  }

  private async answerProposal(
    host: HostTarget,
    booking: Pick<Booking, "booking_id" | "sequence" | "proposal">,
    accept: boolean,
    opts: CallOptions & { readonly idempotencyKey?: string },
  ): Call<BookingResponse> {
    const p = booking.proposal;
    if (p === undefined || p.by !== "host")
      return err(
        agentError("offer_invalid", "the booking carries no proposal by the host", { field: "/proposal" }),
      );
    return this.proposalResponse(
      host,
      booking.booking_id,
      {
        proposal_id: p.proposal_id,
        accept,
        sequence: booking.sequence,
        ...(accept && { offer_sha256: offerSha256(p.offer) }),
        ...(opts.idempotencyKey !== undefined && { idempotency_key: opts.idempotencyKey }),
      },
      opts.mandate !== undefined ? { mandate: opts.mandate } : {},
    );
  }

  /**
   * POST /bookings/{id}/respond (§5.10): a required participant's answer, or the booker's
   * reconfirmation (accept: true), under the answerer's own mandate (any scope). offerSha256
   * must be the booking's current contract: read it first (getBooking, then
   * verifyParticipantBooking) and hash the offer the response carries.
   */
  respond(
    host: HostTarget,
    bookingId: string,
    accept: boolean,
    offerSha256: string,
    opts: CallOptions & { readonly idempotencyKey?: string } = {},
  ): Call<BookingResponse> {
    const body: Keyed<RespondRequest> = {
      accept,
      offer_sha256: offerSha256,
      ...(opts.idempotencyKey !== undefined && { idempotency_key: opts.idempotencyKey }),
    };
    const path = `/bookings/${seg(bookingId)}/respond`;
    return this.call(host, "POST", path, keyed(body), "BookingResponse", opts);
  }

  /**
   * POST /holds/{id}/confirm with a meeting contract (§5.12 step 5): 202, the booking tentative
   * on the organizer's own calendar and pending_host on another member's until they answer.
   * The contract is the KeyApp's signMeetingContract; offerSha256 this hold's offer, which the
   * contract's member entry for this calendar names.
   */
  confirmMeeting(
    host: HostTarget,
    holdId: string,
    contract: string,
    offerSha256: string,
    opts: CallOptions & { readonly idempotencyKey?: string } = {},
  ): Call<BookingResponse> {
    const body: Keyed<ConfirmRequest> = {
      offer_sha256: offerSha256,
      meeting: contract,
      ...(opts.idempotencyKey !== undefined && { idempotency_key: opts.idempotencyKey }),
    };
    return this.confirm(host, holdId, body, opts);
  }

  /**
   * POST /bookings/{id}/commit (§5.12 Commit, scope book): the contract's hash and an acceptance
   * of it from every member who must accept (every person except the organizer). Commit at
   * every calendar, businesses first; a revision of a confirmed meeting the same way, its own
   * calendar last.
   */
  commitMeeting(
    host: HostTarget,
    bookingId: string,
    body: Keyed<CommitRequest>,
    opts: CallOptions = {},
  ): Call<BookingResponse> {
    const path = `/bookings/${seg(bookingId)}/commit`;
    return this.call(host, "POST", path, keyed(body), "BookingResponse", opts);
  }

  /**
   * POST /bookings/{id}/meeting (§5.12 Revisions, scope reschedule): hands this calendar the
   * revised contract at the booking's current sequence.
   */
  reviseMeeting(
    host: HostTarget,
    bookingId: string,
    body: Keyed<MeetingRevisionRequest>,
    opts: CallOptions = {},
  ): Call<BookingResponse> {
    const path = `/bookings/${seg(bookingId)}/meeting`;
    return this.call(host, "POST", path, keyed(body), "BookingResponse", opts);
  }

  /**
   * POST /bookings/{id}/meeting/withdraw (§5.12 Changing a confirmed meeting, scope
   * reschedule): drops a pending revision of a confirmed meeting at this calendar after another
   * member said no, with the organizer's words as the reason.
   */
  withdrawMeetingRevision(
    host: HostTarget,
    bookingId: string,
    body: Keyed<MeetingWithdrawRequest>,
    opts: CallOptions = {},
  ): Call<BookingResponse> {
    const path = `/bookings/${seg(bookingId)}/meeting/withdraw`;
    return this.call(host, "POST", path, keyed(body), "BookingResponse", opts);
  }

  /**
   * Signs and sends one request exactly as described, and returns the raw Response. The
   * operations above use it; so can tools that need bytes the typed calls would not send.
   */
  async signedFetch(req: SignedRequest): Promise<Result<Response, AgentError>> {
    const url = checkUrl(req.url, this.allowHttp);
    if (!url.ok) return url;
    const body = toBytes(req.body);
    const signed = signSchcpRequest({
      method: req.method,
      targetUri: url.value.href,
      body,
      ...(req.mandate !== undefined && { mandate: req.mandate }),
      privateKey: this.agentKey.privateKey,
      publicJwk: this.agentKey.publicJwk,
      created: req.created ?? Math.floor(this.clock.now() / 1000),
      ...(req.nonce !== undefined && { nonce: req.nonce }),
    });
    const headers: Record<string, string> = { accept: "application/json", ...signed };
    if (body.length > 0) headers["content-type"] = "application/json";
    Object.assign(headers, req.headers);
    return send(this.fetchFn, url.value.href, {
      method: req.method,
      headers,
      ...(body.length > 0 && { body }),
      // Never follow a redirect with a signed request: it would carry the signature and the
      // mandate to a URI they were not made for (§3.2 covers @target-uri). A 3xx is answered
      // as it is (invalid_response). It also spares fetch a copy of every request body.
      redirect: "manual",
    });
  }

  private async call<N extends SchemaName>(
    host: HostTarget,
    method: string,
    path: string,
    body: unknown,
    schema: N,
    opts: CallOptions,
  ): Call<SchcpTypeOf<N>> {
    let mandate = opts.mandate;
    if (mandate !== undefined && typeof mandate !== "string") {
      const presented = mandate.present();
      if (!presented.ok) return presented;
      mandate = presented.value;
    }
    const res = await this.signedFetch({
      method,
      url: `${host.endpoint.replace(/\/+$/, "")}${path}`,
      body,
      ...(mandate !== undefined && { mandate }),
    });
    if (!res.ok) return res;
    return readSchcpAnswer(res.value, schema);
  }

  private io() {
    return { fetch: this.fetchFn, allowHttp: this.allowHttp };
  }
}

/** A fresh idempotency key: 16 random bytes, base64url (§9.1). */
export function newIdempotencyKey(): string {
  return randomToken(16);
}

function keyed<T extends { idempotency_key?: string }>(body: T): T & { idempotency_key: string } {
  return { ...body, idempotency_key: body.idempotency_key ?? newIdempotencyKey() };
}

function seg(id: string): string {
  return encodeURIComponent(id);
}

function toBytes(body: unknown): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  if (typeof body === "string") return new TextEncoder().encode(body);
  return new TextEncoder().encode(JSON.stringify(body));
}
