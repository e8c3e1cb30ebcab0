/**
 * The hold engine a change offer is placed with: the hold use case's createHold
 * (src/booking/holds/), which applies every §5.2 rule, the mandate check (change_offer), the
 * reputation-scaled TTL, prices the change, lets the booking's edges attach their records (SchCP signs the change offer once), and places the hold atomically.
 * Taken as a parameter so the change use cases stay testable on their own; the booking
 * service passes the real one.
 */
import type { BookingDeps, Caller, HoldPayload, HostRuntime, UseCase } from "../api.js";
import type { HoldRecord } from "../../holds/port.js";
import type { BookingState } from "../bookings/state.js";
import type { Place } from "../contract.js";

/** The parameters of createHold this module uses (structurally the hold use case's own). */
export interface ChangeHoldParams {
  readonly caller: Caller;
  readonly serviceId: string;
  /** Epoch ms. */
  readonly start: number;
  /** Requested TTL; the engine grants min(requested, policy, reputation) (§5.7 "TTL as for a hold"). */
  readonly ttlMs: number;
  readonly callbackUrl?: string;
  readonly partySize: number;
  readonly place?: Place;
  readonly kind: "change";
  readonly bookingId: string;
  readonly proposalId: string;
  readonly by: "guest" | "host";
  /** §5.7: the change offer's hold may overlap the booking it belongs to, and nothing else. */
  readonly overlapBookingId: string;
  /** The resource the booking's contract names (the guest chose it): the change keeps it. */
  readonly pinnedResourceId?: string;
  /** The booking as it stands: its edges attach their records to the change hold (§5.7 prev). */
  readonly booking: BookingState;
  /** A change offer repeats the booking's own retention, not the host's current policy (§5.2). */
  readonly retentionOverride: string;
  /** A host proposal (by "host") carries no mandate: the hold belongs to the booking's principal. */
  readonly principal?: string | null;
}

export type CreateHold = (
  deps: BookingDeps,
  runtime: HostRuntime,
  params: ChangeHoldParams,
) => UseCase<{ readonly record: HoldRecord; readonly payload: HoldPayload }>;
