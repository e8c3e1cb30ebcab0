/**
 * What a hold and a booking stand on, in the core's own terms: the service, the
 * time, the resource, the party, the place, the price and the terms the host applied. Every
 * edge's wire shape is built from it (SchCP's signed offer and Booking in ../schcp/, OSBP's
 * receipt in src/edges/osbp/adapter/, the operator's view in ./view.ts); none of them is kept here.
 *
 * What one edge needs to keep beside it (SchCP: the signed offer, its hash and claims, and the
 * latest receipt) is an opaque attachment under that edge's name (`Attachments`), read and
 * written by that edge alone through its BookingEdge hooks (api.ts).
 */
import type { Money } from "../protocol/money/index.js";
import type { Place } from "../protocol/place.js";

/** One line of the all-in price, in order: service, fees, surcharges, taxes. */
export interface PriceLine {
  readonly kind: "service" | "fee" | "surcharge" | "tax";
  readonly label: string;
  readonly amount: Money;
}

/** A place the service happens at when it is not the host's own (the guest's address, say). */
export type { Place };

/** The terms of one hold or booking as the host offered them; fixed once offered. */
export interface BookingContract {
  /** A new booking, or a change of an existing one (its hold may overlap that booking). */
  readonly kind: "booking" | "change";
  readonly service: { readonly id: string; readonly name: string };
  /** Epoch ms. */
  readonly start: number;
  /** Service end (no buffer), epoch ms; absent when the service is open-ended. */
  readonly end?: number;
  /** The resource the host assigned when the guest chose or the edge pinned one. */
  readonly resource?: { readonly id: string; readonly name: string };
  readonly partySize: number;
  readonly place?: Place;
  /** The service's stated price (per person when so priced), or null when it states none. */
  readonly price: Money | null;
  /** The all-in total (the sum of `lines`), or null when there is no price. */
  readonly total: Money | null;
  readonly lines: readonly PriceLine[];
  /** How long the host keeps the booking's personal data (an ISO 8601 duration, "P365D"). */
  readonly retention: string;
  /** host_approval: the latest time the host answers, epoch ms. */
  readonly approvalBy?: number;
  /**
   * SchCP §5.10 reconfirmation, as the host's policy stood when the terms were made: "a policy
   * added later binds only later offers". `before` as published; `beforeMs` read from it.
   */
  readonly reconfirm?: ContractReconfirm;
}

/** §5.10 reconfirm: due `beforeMs` before the start; `default` is what silence does. */
export interface ContractReconfirm {
  readonly before: string;
  readonly beforeMs: number;
  readonly default: "release" | "keep";
}

/** How the person agreed to the contract: to the terms as shown, or within standing limits. */
export interface Consent {
  readonly approved: "offer" | "contract" | "limits";
  /** The grant the agreement came through (a mandate id, an edge-scoped principal). */
  readonly mandate: string;
  readonly mode?: "human_present" | "human_not_present";
}

/**
 * The grant a booking made without a mandate of its own names (direct/book.ts): the caller's
 * edge-scoped principal, which already says its edge ("a2a:…"), or the grant's kind before a
 * principal that does not ("osbp:osbp-mandate:…", "direct:<agent key>").
 */
export const grantOf = (kind: string, principal: string): string =>
  principal.startsWith(`${kind}:`) ? principal : `${kind}:${principal}`;

/** The one kind whose principals began with the kind itself (the A2A edge's "a2a:<hash>"). */
const DOUBLED = "a2a:a2a:";

/**
 * A consent as stored. Direct bookings once named their grant `${kind}:${principal}` even where
 * the principal already began with the kind, so an A2A booking's reads "a2a:a2a:…": read as the
 * one grant it names, "a2a:…", the way such bookings are now written (grantOf). Only that
 * prefix: another edge's mandate id is whatever its grant says and is never rewritten.
 */
export const storedConsent = (c: Consent): Consent =>
  c.mandate.startsWith(DOUBLED) ? { ...c, mandate: c.mandate.slice("a2a:".length) } : c;

/**
 * Per-edge records kept with a hold, a proposal or a booking, keyed by edge name ("schcp").
 * The core copies them along (hold → booking, change hold → proposal → booking) and never
 * looks inside.
 */
export type Attachments = Readonly<Record<string, unknown>>;

/** The edges that keep a record with `attachments` (a booking's, a proposal's): their names. */
export const edgesOf = (attachments: Attachments | undefined): readonly string[] =>
  Object.keys(attachments ?? {});
