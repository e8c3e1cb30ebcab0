/**
 * The bookings capability: appointments the upstream keeps (platforms). Creates are idempotent
 * by a key the gateway derives from the hold, so a retried or reconciled create never makes a
 * second booking upstream (DESIGN.md "Holds on platforms that have none").
 */
import type { ConnectorResult } from "./result.js";

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
  /** Tentative: a host_approval booking waiting for the host. */
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

export interface BookingMove {
  readonly start: number;
  readonly end?: number;
  readonly resourceIds: readonly string[];
}

export interface BookingPort {
  /** The same key again answers the booking it made (never a second one); slot_taken when the time went. */
  create(request: UpstreamCreate): Promise<ConnectorResult<UpstreamBooking>>;
  get(upstreamId: string): Promise<ConnectorResult<UpstreamBooking>>;
  /** Reconciliation after a lost answer: the booking made under this key, or null. */
  findByIdempotencyKey(idempotencyKey: string): Promise<ConnectorResult<UpstreamBooking | null>>;
  /** A move to another time (§5.7); the upstream may refuse with slot_taken. */
  move(upstreamId: string, change: BookingMove): Promise<ConnectorResult<UpstreamBooking>>;
  /** Idempotent: cancelling a cancelled booking answers it as it is. */
  cancel(upstreamId: string, reason?: string): Promise<ConnectorResult<UpstreamBooking>>;
  /** Host approval or decline of a tentative booking, or attendance. */
  setStatus(upstreamId: string, status: UpstreamStatus): Promise<ConnectorResult<UpstreamBooking>>;
}
