/**
 * The shapes of SchCP mandate verification (§3.3): a verified chain of links, the
 * action a host is asked to take under it, and the refusals it can end in.
 */
import type { PrincipalPublicJwk } from "./sd-jwt/keys.js";
import type { MandateClaims } from "../types.js";

/** The §9.2 codes a mandate check can end in (see refusal.ts for the reasons). */
export type MandateRefusalCode =
  "MANDATE_INVALID" | "MANDATE_SCOPE" | "MANDATE_LIMIT" | "OFFER_APPROVAL_REQUIRED";

export interface MandateRefusal {
  readonly code: MandateRefusalCode;
  /** A reason registered under `code` (SchCP §9.2). */
  readonly reason: string;
  readonly message: string;
  /** Where in the mandate the problem is: "SchCP-Mandate" plus a JSON pointer into the claims. */
  readonly field?: string;
  /** The rule that refused, for the refusal's basis (never anything about other guests). */
  readonly basis?: Record<string, unknown>;
  readonly details?: Record<string, unknown>;
}

/** One verified mandate of a chain: depth 0 is the root the principal signed. */
export interface MandateLink {
  readonly compact: string;
  readonly claims: MandateClaims;
  /**
   * principal_jwk for the root, issuer_jwk for a child; for an SD-JWT VC mandate (§3.4), the
   * issuer JWT's jwk header, which may be a P-256 key.
   */
  readonly signerJwk: PrincipalPublicJwk;
  /** The envelope: a compact JWS (§3.3) or an SD-JWT VC presentation (§3.4). */
  readonly format: "schcp-mandate+jwt" | "dc+sd-jwt";
  readonly depth: 0 | 1;
}

/** A verified chain (§3.3 Attenuation: a root and at most one child). */
export interface MandateChain {
  /** Root first. */
  readonly links: readonly MandateLink[];
  readonly root: MandateLink;
  /** The link whose cnf.jkt signed the request (the root when there is no child). */
  readonly leaf: MandateLink;
  readonly rootIss: string;
  /** The principal the chain acts for: the root's iss. */
  readonly principal: string;
  readonly subject: string;
}

export type MandateStatusValue = "active" | "revoked" | "unknown";

/** §3.3 check 7: the revocation status of one link, best effort. */
export interface MandateStatusPort {
  status(link: { iss: string; jti: string; statusUrl?: string }): Promise<MandateStatusValue>;
}

export type MandateActionKind =
  | "availability"
  | "hold"
  | "book"
  | "release"
  | "read"
  | "cancel"
  | "change_offer"
  | "reschedule"
  | "proposal_response"
  | "respond"
  | "waitlist_join"
  | "waitlist_leave";

/** What the host is asked to do, reduced to what §3.3 checks 5 and 6 look at. */
export interface MandateAction {
  readonly kind: MandateActionKind;
  readonly serviceId: string;
  /** Epoch milliseconds. */
  readonly start: number;
  /** Epoch milliseconds; absent for an open-ended booking (§4.2). */
  readonly end?: number;
  readonly openEnded?: boolean;
  /** The offer's stated all-in total; absent or null when it states no price. */
  readonly total?: { readonly minor: number; readonly currency: string } | null;
  readonly bookingId?: string;
  /** The offer this action accepts (book, reschedule, proposal_response) or reads. */
  readonly offerSha256?: string;
  /** The hold being confirmed, already counted against max_bookings. */
  readonly countedItemId?: string;
}

/** Active holds, bookings and waiting entries made under one link (§7.1, §3.3 "Ids are per link"). */
export interface MandateBookingCounter {
  active(rootIss: string, jti: string, excludeItemId?: string): Promise<number>;
}
