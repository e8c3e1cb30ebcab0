/**
 * Authority: what answers "may this principal take this action on these terms" for every edge.
 * Each edge turns its protocol's grant into one (the SchCP edge a verified mandate chain,
 * schcp/mandate-authority.ts; the OSBP edge a BookingMandate; later a Servicialo A2A request),
 * so the core's rules (access, window, notice, caps, allocation) bind every edge alike, while
 * each protocol's own limits stay in its own terms. The core never sees the grant itself.
 */
import type { MandateCount } from "../holds/port.js";
import type { Money } from "../protocol/money/index.js";
import type { Result } from "../protocol/result.js";
import type { BookingRefusal } from "./errors.js";

/**
 * Who is asking, in the core's terms: the agent's key (or an edge-scoped id) and, when the
 * request carries a grant, the Authority the edge built from it (authority.ts): a SchCP
 * mandate chain, an OSBP BookingMandate. Absent: an anonymous agent.
 */
export interface Caller {
  /** RFC 7638 thumbprint of the key that signed the request (SchCP); an edge-scoped id otherwise. */
  readonly agentKey: string;
  readonly authority?: Authority;
  /** A SchCP chain reaches the core only as an Authority (schcp/caller.ts coreCaller). */
  readonly mandate?: never;
  /**
   * An attester the edge honoured for this principal (§7.5: listed in the host's trust
   * attesters, signature and subject verified); its pool and reputation apply.
   */
  readonly attester?: string;
  /**
   * The network origin the edge saw (or its channel's name), for the public booking pool's
   * per-origin cap (public-pool/); the agent key stands in when absent.
   */
  readonly origin?: string;
}

/** The terms an action would take, as the core has priced and placed them. */
export interface ActionTerms {
  readonly action: "hold" | "change_offer";
  readonly serviceId: string;
  /** Epoch ms. */
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended service. */
  readonly end?: number;
  /** Total the booking would cost (taxes and fees included); null when the service has no price. */
  readonly total: Money | null;
  /** The resource the caller pinned (a provider), when it pinned one. */
  readonly resourceId?: string;
  /** For a change offer: the booking it would move. */
  readonly bookingId?: string;
}

/**
 * A grant's limits as data, kept with a waitlist entry (§5.9) so an offer made later, when no
 * request carries the grant, is checked against it: "the mandate still valid and covering it".
 * Absent members set no limit.
 */
export interface KeptGrant {
  /** Epoch ms after which the grant is no longer valid. */
  readonly expiresAt?: number;
  /** The window an action's time must lie in, epoch ms (the start alone for an open end). */
  readonly notBefore?: number;
  readonly notAfter?: number;
  /** The largest all-in total; a total in another currency does not fit. */
  readonly maxTotal?: Money;
  readonly services?: readonly string[];
}

export interface Authority {
  /** Who the booking belongs to: a stable, non-personal id (never a phone or an email). */
  readonly principal: string;
  /** A short name of the grant's protocol, for audit ("schcp", "osbp", "a2a"). */
  readonly kind: string;
  /**
   * How the caller was authenticated: "principal_key" when the principal itself signed the
   * grant (a SchCP mandate chain), "host_key" when the host's own credential made the request
   * (an A2A X-Org-Api-Key). Absent when the principal is only claimed (an e-mail, an unsigned
   * OSBP mandate). Decides who draws on the public booking pool (public-pool/standing.ts).
   */
  readonly proof?: "principal_key" | "host_key";
  /** Asynchronous when the grant counts what it has already used (SchCP max_bookings). */
  permits(terms: ActionTerms): Result<void, BookingRefusal> | Promise<Result<void, BookingRefusal>>;
  /**
   * Counted limits each booking hold takes one of (SchCP §7.1 max_bookings per mandate link),
   * checked by the store in the same atomic step as the allocation, so two concurrent holds
   * cannot both take the last one.
   */
  readonly holdLimits?: readonly MandateCount[];
  /** Whether a time lies inside the grant's windows: alternatives outside it are not offered. */
  covers?(start: number, end?: number): boolean;
  /** The grant's limits as data, for a waitlist entry (§5.9); absent: the edge keeps none. */
  keep?(): KeptGrant;
}

/**
 * One unit of a limit that someone outside the gateway keeps, held by a booking (SchCP §3.3
 * "One consent, several hosts": a shared booking limit the principal's key app keeps). The
 * core only keeps it with the booking and hands it back to the edge that took it when the
 * booking will not happen (cancelled, declined, expired); what `keeper` and `id` mean, and
 * how the unit is given back, is that edge's business (api.ts BookingEdge.giveBack).
 */
export interface LimitClaim {
  /** The edge that took the unit (its attachment name), which gives it back. */
  readonly edge: string;
  /** Where the unit is kept, in that edge's terms (SchCP: the mandate link's status URL). */
  readonly keeper: string;
  /** The claim's id there (SchCP: "{host id}/{hold id}"). */
  readonly id: string;
}

/** Whose request it is: the Authority's principal; null when anonymous. */
export const principalOf = (caller: Caller): string | null => caller.authority?.principal ?? null;
