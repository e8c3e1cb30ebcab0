/**
 * The Connector port: the one small interface every upstream implements (DESIGN.md).
 *
 * Two kinds of upstream stand behind it (SchCP §10):
 * - "platform": a booking platform that computes its own availability and takes bookings
 *   (Square, Openings, Servicialo, the synthetic one). The gateway asks it for free starts
 *   and emulates holds on top, because no platform has a hold primitive.
 * - "calendar": a calendar (Google, Microsoft, CalDAV) whose busy time the gateway reads
 *   and into which it writes events; availability is working hours minus busy time.
 *
 * Connectors are plain translators. They take their I/O as constructor parameters
 * (fetch or SDK client, clock, token provider), never read process.env, never write the
 * gateway's stores, and return typed results. Every upstream failure comes back as a
 * ConnectorError; a connector throws only for its own bugs.
 */
import type { Interval } from "../holds/port.js";
import type { Result } from "../protocol/result.js";
import type { Money } from "../protocol/money/index.js";

/** The platform's static identity and the exact native API pin it sends (OSBP Platform Metadata). */
export interface PlatformIdentity {
  readonly vendor: string;
  readonly api_version: string;
}

/** Response metadata of the most recent upstream call (OSBP UpstreamMeta). */
export interface UpstreamMeta {
  readonly call: string;
  readonly status: number;
  readonly server?: string;
  readonly request_id?: string;
  readonly api_version?: string;
  readonly deprecation?: string;
  readonly sunset?: string;
  readonly ratelimit?: Readonly<Record<string, string>>;
}

export type ConnectorErrorCode =
  /** The time is no longer free upstream (someone booked it outside the gateway). */
  | "slot_taken"
  /** HTTP 429; retryAfterMs when the platform said. */
  | "rate_limited"
  /** 5xx or an unreadable answer. */
  | "unavailable"
  | "timeout"
  /** The platform wants the customer verified before booking (OSBP requires_verification). */
  | "verification_required"
  | "verification_failed"
  | "not_found"
  /** The platform refused the request as malformed (a gateway or mapping bug). */
  | "invalid_request"
  /** Credentials expired or revoked: the business must reconnect. */
  | "unauthorized"
  /** The connector cannot do this at all (e.g. verification on a platform without it). */
  | "unsupported";

export interface ConnectorError {
  readonly code: ConnectorErrorCode;
  readonly message: string;
  readonly retryAfterMs?: number;
  /** For verification_required: how the platform will send the code. */
  readonly verificationMethod?: "sms" | "email" | "unknown";
  readonly upstream?: UpstreamMeta;
}

export type ConnectorResult<T> = Result<T, ConnectorError>;

export interface WeeklyPeriod {
  /** ISO weekday, 1 = Monday … 7 = Sunday. */
  readonly day: 1 | 2 | 3 | 4 | 5 | 6 | 7;
  /** Wall-clock "HH:MM" in the location's zone; close < open continues past midnight. */
  readonly open: string;
  readonly close: string;
}

export interface CatalogResource {
  readonly id: string;
  /** SchCP resource_type (§4.1): "bay", "technician", "chair", "person". */
  readonly type: string;
  readonly name: string;
  readonly capacity: number;
  readonly hours: readonly WeeklyPeriod[];
  /**
   * A person (staff member) whose time a booking binds, as opposed to a room, bay or piece of
   * equipment: the OSBP Provider. Platforms know this (team members vs resources).
   */
  readonly staff?: boolean;
}

export interface CatalogTax {
  readonly label: string;
  /** The exact decimal as written (e.g. "13"), applied half up (SchCP §2.1). */
  readonly percent: string;
}

export interface CatalogService {
  readonly id: string;
  readonly name: string;
  /** Milliseconds, or "open" for an open-ended service (§4.2). */
  readonly duration: number | "open";
  readonly bufferAfterMs: number;
  /** Open-ended services: ms set aside, or until the first resource closes (§4.2). */
  readonly setAside?: number | "until_close";
  /** Absent: the service has no price (§5.2). */
  readonly price?: Money;
  readonly pricePer?: "booking" | "person";
  /** Mandatory fees added as lines (§5.2 service.fees). */
  readonly fees?: ReadonlyArray<{ readonly label: string; readonly amount: Money }>;
  readonly taxExempt?: boolean;
  readonly requires: ReadonlyArray<{ readonly resourceType: string; readonly combine?: boolean }>;
  /** The platform needs the customer verified before it books this service. */
  readonly requiresVerification?: boolean;
  /** The platform routes this service to a consultation/quote workflow (OSBP). */
  readonly requiresConsultation?: boolean;
  /**
   * Payment the platform itself requires (OSBP policy.explain); SchCP never moves money.
   * Absent means the platform did not say, which OSBP reads as "unknown" and fails closed on:
   * a connector whose platform takes nothing upfront states requirement "none".
   */
  readonly payment?: {
    readonly requirement: "none" | "deposit" | "full_prepay" | "unknown";
    readonly deposit?: Money;
  };
  /** Non-fixed price kinds a platform may report (OSBP Money type). */
  readonly priceType?: "fixed" | "insurance_dependent" | "quote_required" | "unknown";
  readonly cancellationFee?: Money;
  readonly noShowFee?: Money;
  /** Cancellation terms the platform reports (OSBP policy.explain); absent when it reports none. */
  readonly cancellation?: {
    readonly enabled: boolean;
    /** How long before the start a cancellation is still accepted, ms. */
    readonly windowMs?: number;
    /** The platform's own wording, shown as display data. */
    readonly note?: string;
    /** Lateness tolerated before the appointment counts as a no-show, ms. */
    readonly lateGraceMs?: number;
  };
}

/** What the upstream knows about the business: services, resources, hours, taxes. */
export interface Catalog {
  readonly organization: {
    readonly id: string;
    readonly name: string;
    readonly timezone: string;
    readonly currency?: string;
    readonly country?: string;
  };
  readonly services: readonly CatalogService[];
  readonly resources: readonly CatalogResource[];
  readonly taxes: readonly CatalogTax[];
  readonly verificationMethod?: "sms" | "email" | "none" | "unknown";
}

/** A free start the platform reports, with the resources free to serve it. */
export interface UpstreamSlot {
  readonly serviceId: string;
  readonly start: number;
  /** End of the service itself (no buffer); absent for an open-ended service. */
  readonly end?: number;
  readonly resourceIds: readonly string[];
}

export interface AvailabilityQuery {
  readonly serviceId: string;
  readonly range: Interval;
  readonly resourceIds?: readonly string[];
  readonly partySize?: number;
}

/** Busy time a calendar reports; incomplete reads keep the busy time already known (§10). */
export interface BusyRead {
  readonly busy: ReadonlyArray<{ readonly resourceId: string; readonly interval: Interval }>;
  /** Up to when the calendar was fully read; nothing after it may be offered. */
  readonly readUntil: number;
  readonly complete: boolean;
}

export interface UpstreamCustomer {
  readonly name?: string;
  readonly phone?: string;
  readonly email?: string;
}

export interface UpstreamCreate {
  /**
   * Derived from the hold (e.g. "<hostId>:<holdId>"): the same create retried or
   * reconciled never makes a second booking upstream.
   */
  readonly idempotencyKey: string;
  readonly serviceId: string;
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended booking. */
  readonly end?: number;
  readonly resourceIds: readonly string[];
  readonly customer?: UpstreamCustomer;
  readonly notes?: string;
  readonly partySize?: number;
  /** Tentative: a host_approval booking waiting for the host (a TENTATIVE event, §10). */
  readonly tentative: boolean;
  readonly verificationCode?: string;
}

export type UpstreamStatus = "tentative" | "confirmed" | "cancelled" | "completed" | "no_show" | "unknown";

export interface UpstreamBooking {
  readonly upstreamId: string;
  readonly idempotencyKey?: string;
  readonly serviceId: string;
  readonly start: number;
  readonly end?: number;
  readonly resourceIds: readonly string[];
  readonly status: UpstreamStatus;
}

export interface Connector {
  readonly kind: "platform" | "calendar";
  readonly platform: PlatformIdentity;
  /** Metadata of the most recent upstream call, for audit (absent before the first call). */
  readonly lastUpstream?: UpstreamMeta;

  catalog(): Promise<ConnectorResult<Catalog>>;
  /** Platform kind: the platform's own free starts in the range. */
  findAvailability(query: AvailabilityQuery): Promise<ConnectorResult<readonly UpstreamSlot[]>>;
  /** Calendar kind: busy time per resource over the range. Platforms may also report it. */
  readBusy(range: Interval, resourceIds: readonly string[]): Promise<ConnectorResult<BusyRead>>;

  createBooking(request: UpstreamCreate): Promise<ConnectorResult<UpstreamBooking>>;
  /** Reconciliation: the booking made under this idempotency key, if any. */
  findBookingByIdempotencyKey(idempotencyKey: string): Promise<ConnectorResult<UpstreamBooking | null>>;
  getBooking(upstreamId: string): Promise<ConnectorResult<UpstreamBooking>>;
  /** Host approval or decline of a tentative booking, attendance, or a rewrite of its event. */
  setStatus(upstreamId: string, status: UpstreamStatus): Promise<ConnectorResult<UpstreamBooking>>;
  /** A move to another time (§5.7); the upstream may refuse with slot_taken. */
  moveBooking(
    upstreamId: string,
    change: { readonly start: number; readonly end?: number; readonly resourceIds: readonly string[] },
  ): Promise<ConnectorResult<UpstreamBooking>>;
  cancelBooking(upstreamId: string, reason?: string): Promise<ConnectorResult<UpstreamBooking>>;

  /** OSBP verification pass-through; "unsupported" where the platform has none. */
  sendVerification(
    customer: UpstreamCustomer,
    purpose: string,
  ): Promise<ConnectorResult<{ readonly method: "sms" | "email" }>>;
  /**
   * An independent check of a code that must NOT consume it (the booking create still needs
   * it); a platform whose only verify consumes the code answers "unsupported".
   */
  verifyCode(
    customer: UpstreamCustomer,
    purpose: string,
    code: string,
  ): Promise<ConnectorResult<{ readonly method: "sms" | "email" }>>;
}
