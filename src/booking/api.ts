/**
 * The booking core's public surface: the types the edges and the core share, the neutral
 * records it keeps (HoldPayload here, BookingState in bookings/state.ts, both on the
 * contract.ts terms), the hooks an edge keeps its own records through (BookingEdge), and the
 * operator's use cases. SchCP's use cases (SchcpHostApi, schcp/api.ts) are built over the core
 * in schcp/, which this file does not import.
 *
 * The HTTP edge authenticates the request (SchCP §3.2 signature, §3.3 mandate verified for
 * the host in the path), validates the body against the closed schema, and calls one
 * method. The core never sees an HTTP request; it answers with a value or a BookingRefusal
 * that the edge maps once to its protocol's refusal (§9.2 for SchCP).
 */
import type { ContactStore } from "./hosts/contacts.js";
import type { PublicPoolStore } from "./public-pool/port.js";
import type { RuleCheck, RuleStore } from "./answers/port.js";
import type { RuleView } from "./answers/rules.js";
import type { PlatformConnector } from "../connectors/port.js";
import type { Catalog, PlaceLocation } from "./catalog.js";
import type { HostHealth, HostHealthStatus } from "./hosts/health.js";
import type { BookingListQuery, BookingPage, GatewayStore, HoldRecord } from "../holds/port.js";
import type { WaitlistEntryView } from "./waitlist/view.js";
import type { Money } from "../protocol/money/index.js";
import type { KeyObject } from "node:crypto";
import type { Ed25519PublicJwk } from "../protocol/jose/index.js";
import type { Clock } from "../protocol/clock.js";
import type { Result } from "../protocol/result.js";
import type { Metrics } from "../protocol/metrics.js";
import type { Caller, LimitClaim } from "./authority.js";
import type { BookingAttention, BookingEnding, BookingState, BookingStatus } from "./bookings/state.js";
import type { Attachments, BookingContract, Place } from "./contract.js";
import type { BookingView } from "./view.js";
import type { BookingRefusal } from "./errors.js";
import type { MeetingRuleSigner, VerifiedAcceptance } from "./meetings/types.js";

// Declared beside the code they describe, which imports nothing of this file back.
export type { BookingRefusal, Caller };

export type UseCase<T> = Promise<Result<T, BookingRefusal>>;

// ---- hosts -------------------------------------------------------------------------

/** §5.2 release schedule: a whole day opens `daysAhead` days before, at `at` local time. */
export interface ReleaseSchedule {
  readonly daysAhead: number;
  readonly at: string;
}

export interface Surcharge {
  readonly when: "same_day" | "weekend" | "after_hours";
  readonly label: string;
  readonly amount?: Money;
  /** Exact decimal string, applied half up like a tax (§2.1). */
  readonly percent?: string;
  /** after_hours from this local "HH:MM" (default 17:00). */
  readonly after?: string;
}

/** Gateway-side rules layered over a catalog service (§2.1 "Services ... may also carry"). */
export interface ServiceRules {
  readonly serviceId: string;
  readonly minNoticeMs?: number;
  readonly maxAdvanceMs?: number;
  readonly opens?: ReleaseSchedule;
  readonly partySize?: { readonly min: number; readonly max: number };
  readonly location?: "host" | "guest" | "elsewhere";
  readonly eligibility?: "returning" | "new";
  readonly surcharges?: readonly Surcharge[];
  readonly selectable?: boolean;
}

export interface HostPolicies {
  readonly holds: {
    readonly maxTtlMs: number;
    readonly maxActivePerAgent: number;
    readonly requiresMandate: boolean;
    readonly maxActiveUnproven: number;
    readonly maxActivePerAttester: number;
  };
  readonly confirmation: "instant" | "host_approval";
  readonly closedMandate: "never" | "always";
  /** SchCP Retention string as published, e.g. "P365D". */
  readonly retention: string;
  readonly access: "public" | "contacts";
  /** Principals on a contacts-only host's private list (§7.8); never published. */
  readonly contacts?: readonly string[];
  readonly serviceArea?: { readonly country: string; readonly postalPrefixes: readonly string[] };
  readonly walkInReserve?: ReadonlyArray<{
    readonly resourceType: string;
    readonly keep: number;
    /** ISO weekdays it applies on; all days when absent. */
    readonly days?: readonly number[];
  }>;
  /** host_approval: how long the host has to answer (default two hours, §5.7). */
  readonly approvalTimeoutMs: number;
  readonly allowWildcardAudience: boolean;
  /**
   * SchCP §3.4: also accept mandates as SD-JWT VCs ("dc+sd-jwt" in discovery's auth.mandates).
   * Absent means false: compact mandates only.
   */
  readonly sdJwtMandates?: boolean;
  /** Nothing is offered past this horizon (§10; 31 days by default). */
  readonly horizonMs: number;
  /**
   * §5.9 policies.waitlist: the host keeps a waitlist per service; an offer's hold lasts
   * offerTtlMs scaled down by reputation (§7.3). Absent: no waitlist.
   */
  readonly waitlist?: { readonly offerTtlMs: number; readonly maxEntriesPerAgent: number };
  /** The public booking pool's caps (public-pool/port.ts); its defaults when absent. */
  readonly publicBooking?: { readonly perHost: number; readonly perOrigin: number };
  /** §5.3 free text: "refuse" refuses a booking carrying notes; intakeUrl is the host's own form. */
  readonly data?: { readonly freeTextNotes: "accept" | "refuse"; readonly intakeUrl?: string };
  /**
   * SchCP §5.10 policies.tentative: the longest a required participant is given to answer.
   * Absent: the host refuses required participants (501 UNSUPPORTED).
   */
  readonly tentative?: { readonly maxConfirmWithin: string; readonly maxConfirmWithinMs: number };
  /**
   * SchCP §2.1, §5.12: a business takes part in meetings of several people (advertises
   * meetings). A person's calendar always does, whatever this says.
   */
  readonly meetings?: true;
  /** SchCP §5.10 policies.reconfirm, stated in every offer made while it is set. */
  readonly reconfirm?: {
    readonly before: string;
    readonly beforeMs: number;
    readonly default: "release" | "keep";
  };
}

export interface HostConfig {
  readonly id: string;
  readonly name: string;
  readonly kind: "business" | "person";
  /**
   * SchCP §7.7: the principal of the person whose calendar this is; present exactly when kind is
   * "person". Their own bookings need nobody else's yes, and the rules they sign answer for them
   * (§7.9).
   */
  readonly owner?: string;
  readonly timezone: string;
  /** The host's own domain, or null when the operator publishes it (§2.3 host_domain). */
  readonly domain: string | null;
  readonly url?: string;
  readonly address?: Readonly<Record<string, string>>;
  /** Where the business is, as its owner states it (overrides what the upstream reports). */
  readonly location?: PlaceLocation;
  /** Published for the contact remedy of every refusal (§9.2). */
  readonly contact?: { readonly phone?: string; readonly url?: string };
  readonly connector: { readonly type: string; readonly settings: Readonly<Record<string, unknown>> };
  readonly policies: HostPolicies;
  readonly services: readonly ServiceRules[];
  /** The attesters whose attestations the host honours (SchCP §2.1 trust.attesters, §7.5). */
  readonly trust?: { readonly attesters: readonly TrustedAttesterConfig[] };
  /** The brand this location belongs to and its sibling locations (SchCP §2.4). */
  readonly brand?: HostBrand;
  /**
   * A calendar host's section as written (capacity, hours, services, approver); read by
   * src/booking/calendar/config.ts when the host is built, so its errors name its fields.
   */
  readonly calendar?: unknown;
}

/** SchCP §7.5: an attester the host trusts, with the Ed25519 keys its attestations verify against. */
export interface TrustedAttesterConfig {
  readonly id: string;
  readonly name?: string;
  readonly keys: readonly Ed25519PublicJwk[];
}

/**
 * SchCP §2.4: a chain's brand and its locations. A location without a discovery URL is one
 * this gateway serves: its document is published at the gateway's own discovery URL for it.
 */
export interface HostBrand {
  readonly id: string;
  readonly name: string;
  readonly locations: ReadonlyArray<{
    readonly hostId: string;
    readonly name?: string;
    readonly discovery?: string;
  }>;
}

/**
 * A host's signing key, in the core's terms: the private key every statement the host makes is
 * signed with, its public half and the kid that names it. Each edge signs with it in its own
 * format (SchCP offers, receipts and webhooks, SchCP §2.1, §3.2) and publishes the public half.
 */
export interface HostKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicJwk: Ed25519PublicJwk;
}

/** A configured host with its live pieces: catalog read from the connector, signing keys. */
export interface HostRuntime {
  readonly config: HostConfig;
  /**
   * Checked at start to have what a platform host needs (booking/hosts/capabilities.ts), and
   * watched so every upstream failure reaches the host's health (hosts/watched-connector.ts).
   */
  readonly connector: PlatformConnector;
  /**
   * The catalog in use: a getter over the last one read and checked (hosts/refresh.ts). A host
   * whose upstream has not answered since start has an empty one (no services, no resources)
   * and cannot offer time: use cases ask hostTimeRefusal (hosts/refusals.ts) first.
   */
  readonly catalog: Catalog;
  /** The first key signs; all are published in discovery (§2.1 keys, unique kid). */
  readonly keys: readonly HostKey[];
  /** The host's upstream health (hosts/health.ts); absent on hand-built runtimes in tests. */
  readonly health?: HostHealth;
  /** Reads the catalog again now (the refresh job, an operator after reconnecting). */
  readonly refreshCatalog?: () => Promise<HostHealthStatus>;
  /**
   * A calendar host: the instant up to which its calendar was read in full, undefined while
   * unread (src/booking/calendar). Nothing later is offered or held: availability_unknown (§10).
   */
  readonly availabilityKnownUntil?: () => Promise<number | undefined>;
}

export interface HostDirectory {
  get(hostId: string): HostRuntime | undefined;
  list(): readonly HostRuntime[];
}

// ---- what the core keeps with a hold and a booking ----------------------------------

/**
 * Stored as the hold record's payload (holds/payload.ts): the neutral contract, who placed the
 * hold, and what each edge keeps with it (SchCP: the signed offer and the wire Hold).
 */
export interface HoldPayload {
  readonly v: 2;
  readonly contract: BookingContract;
  /** For a change offer: the booking it would move (§5.7). */
  readonly bookingId?: string;
  readonly proposalId?: string;
  readonly by?: "guest" | "host";
  readonly agentKey: string;
  readonly principal: string | null;
  readonly callbackUrl?: string;
  readonly attachments?: Attachments;
  /** A waitlist offer's hold (§5.9): its entry, and which offer of the freed time it is (1–3). */
  readonly waitlist?: { readonly entryId: string; readonly round: number };
}

/** A waitlist offer just placed (§5.9): the entry (status offered) and its hold. */
export interface WaitlistOffered {
  readonly entry: WaitlistEntryView;
  readonly hold: HoldRecord;
  readonly payload: HoldPayload;
}

/** A hold just priced, before it is placed: what an edge attaches its own record to. */
export interface HeldTerms {
  readonly holdId: string;
  readonly now: number;
  readonly expiresAt: number;
  readonly contract: BookingContract;
  /** For a change hold: the booking it would change, with that edge's attachment. */
  readonly booking?: BookingState;
}

/** What the guest is told about (an edge delivers it in its own shape: SchCP webhooks, §5.8). */
export type BookingNotice =
  | "confirmed"
  | "declined"
  | "expired"
  | "cancelled_by_host"
  | "change_proposed"
  | "change_approved"
  | "change_declined"
  | "no_show"
  | "ended"
  /** SchCP §5.10: a participant answered (booking.response). */
  | "response"
  /** SchCP §5.12: a meeting member accepted (booking.accepted). */
  | "accepted";

export interface NoticeExtras {
  readonly refusal?: BookingEnding;
  /** Nearby free starts (epoch ms) offered instead. */
  readonly alternatives?: ReadonlyArray<{ readonly start: number; readonly end?: number }>;
}

/**
 * An edge's hooks into the core, for the records only it reads (contract.ts Attachments). The
 * core calls them for holds the edge asked for and for bookings that carry its attachment,
 * whichever edge or operator action changed them.
 */
export interface BookingEdge {
  /** The record to keep with a hold of this edge's caller, or a change hold of its booking. */
  holdAttachment(host: HostRuntime, held: HeldTerms): Promise<unknown>;
  /**
   * The record to store with the booking as it now stands (`attachment`: what it carries now:
   * the hold's at confirm, the proposal's after a move, else its own). SchCP signs a receipt.
   */
  bookingAttachment(
    host: HostRuntime,
    state: BookingState,
    attachment: unknown,
    now: number,
  ): Promise<unknown>;
  /**
   * Gives back the units of outside limits this edge claimed for the booking (authority.ts
   * LimitClaim), once, when the booking will not happen: cancelled (by the guest or the host),
   * declined or expired (SchCP §3.3). Awaited before the ending is answered; it never fails the
   * ending (an answer it cannot get now is retried in the background by the edge's own means).
   */
  giveBack?(
    host: HostRuntime,
    state: BookingState,
    claims: readonly LimitClaim[],
    now: number,
  ): Promise<void>;
  /**
   * A waitlist offer was placed for an entry this edge keeps (SchCP §5.9): tell its agent
   * (SchCP: waitlist.offered to the entry's callback_url, with the hold and the entry).
   */
  waitlistOffered?(
    deps: Pick<BookingDeps, "ids" | "outbox">,
    host: HostRuntime,
    offered: WaitlistOffered,
    now: number,
  ): Promise<void>;
  /**
   * SchCP §5.12 Acceptances: checks `acceptance` against the meeting booking's current
   * contract, for one of the members who must accept (state.meeting.mustAccept). Only the
   * edge that verified the contract reads inside it.
   */
  verifyAcceptance?(
    host: HostRuntime,
    state: BookingState,
    acceptance: string,
    now: number,
  ): Promise<Result<VerifiedAcceptance, BookingRefusal>>;
  /** Tells the booking's guest (state.callbackUrl is set). */
  notify(
    deps: Pick<BookingDeps, "ids" | "outbox">,
    host: HostRuntime,
    state: BookingState,
    notice: BookingNotice,
    now: number,
    extras: NoticeExtras,
  ): Promise<void>;
}

// ---- the use cases -----------------------------------------------------------------

/** What the operator asks of its list of a host's bookings (OperatorApi.pageBookings). */
export interface BookingListRequest {
  /** 1 to MAX_BOOKING_PAGE (src/holds/port.ts); default BOOKING_PAGE_DEFAULT. */
  readonly limit?: number;
  /** The previous page's nextCursor. */
  readonly cursor?: string;
  readonly status?: BookingStatus;
  /** Bookings starting in [from, to), epoch ms; either bound may be left open. */
  readonly from?: number;
  readonly to?: number;
}

export interface BookingViewPage {
  readonly bookings: readonly BookingView[];
  /** Present while older bookings remain; a filtered page may be short and still have one. */
  readonly nextCursor?: string;
}

/** The host's side, reached only with an operator credential (never an agent signature). */
export interface OperatorApi {
  /** SchCP §7.9: keep a rule the calendar's owner signed (answers/rules.ts). */
  addRule?(hostId: string, jws: unknown): UseCase<{ readonly rule: RuleView; readonly replaced: boolean }>;
  /** The rules a person's calendar keeps, unexpired. */
  listRules?(hostId: string): UseCase<readonly RuleView[]>;
  /** Forget a rule by its jti. */
  removeRule?(hostId: string, jti: string): UseCase<true>;
  /** The newest page (BOOKING_PAGE_DEFAULT bookings); pageBookings walks them all. */
  listBookings(hostId: string): UseCase<readonly BookingView[]>;
  /** A page of the host's bookings, newest first, filtered by status and start time. */
  pageBookings(hostId: string, query: BookingListRequest): UseCase<BookingViewPage>;
  approve(hostId: string, bookingId: string): UseCase<BookingView>;
  decline(
    hostId: string,
    bookingId: string,
    input: { reason?: string; message?: string; timeStillGood?: boolean },
  ): UseCase<BookingView>;
  hostCancel(
    hostId: string,
    bookingId: string,
    input: { message?: string; timeStillGood?: boolean; by?: "host" | "system" },
  ): UseCase<BookingView>;
  markAttendance(
    hostId: string,
    bookingId: string,
    input: { status: "completed" | "no_show"; end?: string },
  ): UseCase<BookingView>;
  /** A host change offer for a confirmed (or pending) booking (SchCP §5.8). */
  propose(hostId: string, bookingId: string, input: { start: string; place?: Place }): UseCase<BookingView>;
  /**
   * The host's counter to a pending_host booking (SchCP §5.11): another start, another place,
   * or both (at least one); ttlMs shortens its life below the approval deadline.
   */
  counter(
    hostId: string,
    bookingId: string,
    input: { start?: string; place?: Place; ttlMs?: number },
  ): UseCase<BookingView>;
  /** SchCP §5.12: the meeting member's acceptance, given to their own calendar. */
  acceptMeeting(hostId: string, bookingId: string, input: { acceptance: string }): UseCase<BookingView>;
  /** SchCP §5.12: the member takes back their yes (or says no) with their own message. */
  takeBackMeeting(hostId: string, bookingId: string, input: { message?: string }): UseCase<BookingView>;
}

/** The booking as the upstream now has it. */
export interface UpstreamMove {
  /** Epoch ms. */
  readonly start: number;
  /** Service end (no buffer); absent keeps the booking's length. */
  readonly end?: number;
  /** The upstream's resources (Square team members); empty keeps the booking's. */
  readonly resourceIds: readonly string[];
  /** The upstream's version of the booking (Square booking.version). */
  readonly version: number;
}

export type UpstreamMoveOutcome =
  | {
      readonly outcome: "moved";
      readonly booking: BookingView;
      /** Told to the guest (its time or chosen resource changed). */
      readonly guestTold: boolean;
      /** Set when other gateway time was there: the booking holds no resource now. */
      readonly conflict?: BookingAttention;
    }
  | {
      readonly outcome: "unchanged";
      readonly booking: BookingView;
      readonly why: "same" | "not_newer" | "not_active" | "own_change_pending";
    };

/** What the host's own system of record changed, applied by its webhook receiver (not an operator route). */
export interface UpstreamChangeApi {
  /** A booking moved upstream (operator/upstream-move.ts): the gateway follows it. */
  applyUpstreamMove(hostId: string, bookingId: string, move: UpstreamMove): UseCase<UpstreamMoveOutcome>;
}

/** A webhook to deliver (§5.8); the jobs layer signs it with the host key and sends it. */
export interface OutboundEvent {
  readonly hostId: string;
  readonly callbackUrl: string;
  readonly event: Readonly<Record<string, unknown>>;
}

export interface Outbox {
  enqueue(event: OutboundEvent): Promise<void>;
}

export interface IdGenerator {
  /** A new opaque id with the given prefix ("h_", "b_", "e_", "p_"). */
  next(prefix: string): string;
}

/**
 * The host's bookings a page at a time, for the operator's list. The hold store keeps the
 * index itself, written in the same atomic step as each booking and each payload write, so
 * no crash can leave a booking unlisted or listed under a status it no longer has; without a
 * configured index the booking service reads the store's (bookings/booking-index.ts).
 */
export interface BookingIndex {
  /** Newest first (HoldStore.listBookings): every booking on exactly one page of a walk. */
  page(hostId: string, query: BookingListQuery): Promise<BookingPage>;
}

export interface BookingDeps {
  readonly hosts: HostDirectory;
  readonly store: GatewayStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly outbox: Outbox;
  /** Optional: see BookingIndex. */
  readonly bookingIndex?: BookingIndex;
  /** Edge hooks by attachment name; the gateway installs SchCP's (src/gateway/booking-service.ts). */
  readonly edges?: Readonly<Record<string, BookingEdge>>;
  /**
   * Places newcomers' bookings take at a host (public-pool/): Redis when the gateway has it;
   * createBookingCore makes an in-memory one when absent.
   */
  readonly publicPool?: PublicPoolStore;
  /** Counts holds and bookings (src/protocol/metrics.ts); nothing is counted when absent. */
  readonly metrics?: Metrics;
  /**
   * Contacts-only hosts' stored contact lists (SchCP §7.8, hosts/contacts.ts), read by every
   * access check; absent: only the configuration's `policies.contacts` and the owner pass.
   */
  readonly contacts?: ContactStore;
  /**
   * The rules people signed for their calendars (SchCP §7.9, answers/): Redis when the gateway
   * has it; createBookingCore makes an in-memory one when absent.
   */
  readonly rules?: RuleStore;
  /** The rule format's checks (answers/port.ts); without them no rule is kept or used. */
  readonly ruleCheck?: RuleCheck;
  /**
   * SchCP §5.12, §7.9: signs a meeting member's acceptance by rule with the host's key
   * (meetings/types.ts); without it no rule answers a meeting.
   */
  readonly meetingSigner?: MeetingRuleSigner;
}
