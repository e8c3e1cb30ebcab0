/**
 * Authority: what answers "may this principal take this action on these terms" for a caller
 * that is not a SchCP mandate chain. The SchCP edge verifies a mandate chain and the core
 * checks it with checkMandateAction (holds/mandate.ts); any other edge hands the core an
 * Authority it built from its own protocol's grant (an OSBP BookingMandate, later a
 * Servicialo A2A request), so the core's rules (access, window, notice, caps, allocation)
 * bind every edge alike while each protocol's own limits stay in its own terms.
 */
import type { Money } from "../protocol/money/index.js";
import type { Result } from "../protocol/result.js";
import type { BookingRefusal, Caller } from "./api.js";

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
}

export interface Authority {
  /** Who the booking belongs to: a stable, non-personal id (never a phone or an email). */
  readonly principal: string;
  /** A short name of the grant's protocol, for audit ("osbp", "a2a"). */
  readonly kind: string;
  permits(terms: ActionTerms): Result<void, BookingRefusal>;
}

/** Whose request it is: the SchCP mandate's root principal or the Authority's; null when anonymous. */
export const principalOf = (caller: Caller): string | null =>
  caller.mandate?.principal ?? caller.authority?.principal ?? null;
