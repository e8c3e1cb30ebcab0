/**
 * What the gateway keeps for a booking: the JSON in the hold store's booking payload.
 *
 * The contract is the neutral terms the booking stands on (contract.ts): "the booking stands
 * on the offer" (SchCP §5.2), so price, lines and retention come from it, never from the
 * host's current policy. What an edge keeps beside it (SchCP: the accepted offer's exact
 * bytes, hash and claims, and the latest signed receipt) is in `attachments` under the edge's
 * name; every edge's view of the booking is derived from this state each time, so the
 * booking, its receipt and webhooks can never disagree.
 *
 * Version 1 (builds before the core and the SchCP edge were split) kept the signed offer as the contract, the
 * receipt and the retention at the top level; decodeBookingState reads it into version 2.
 */
import { parseSchcpMoney, type Money } from "../../protocol/money/index.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { parseInstant } from "../../protocol/time/index.js";
import { storedConsent } from "../contract.js";
import type { Attachments, BookingContract, Consent, Place, PriceLine } from "../contract.js";
import type { UpstreamCustomer } from "../upstream.js";
import type { LimitClaim } from "../authority.js";

/** A booking's life (SchCP §6 names the same states; each edge words them its own way). */
export const BOOKING_STATUSES = [
  "pending_host",
  "tentative",
  "confirmed",
  "declined",
  "expired",
  "cancelled",
  "completed",
  "no_show",
] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/**
 * Why a booking, or a change of it, did not happen: declined by the host, lapsed unanswered,
 * cancelled by the host (SchCP §9.2's booking refusals are its wire form, schcp/wire.ts).
 */
export interface BookingEnding {
  readonly kind: "declined" | "expired" | "cancelled";
  /** "host_declined" (optionally ":" and the host's own suffix), "host_did_not_answer", "host_cancelled". */
  readonly reason: string;
  readonly message: string;
}

/** Who answered a booking request, and when (epoch ms); `rule` when a rule did. */
export interface BookingAnswer {
  readonly by: "host" | "person" | "rule";
  readonly rule?: string;
  readonly at: number;
}

/** A change offer the guest or host turned down: the booking kept its time (§5.7). */
export interface DeclinedChange {
  readonly proposalId?: string;
  readonly revision?: number;
  readonly start: number;
  readonly end?: number;
  readonly place?: Place;
  readonly ending: BookingEnding;
}

/** An open change offer (guest's, §5.7) or host proposal (§5.8, §5.11) and the hold behind it. */
export interface StoredProposal {
  readonly proposalId: string;
  readonly by: "guest" | "host";
  readonly holdId: string;
  readonly contract: BookingContract;
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended booking. */
  readonly end?: number;
  readonly place?: Place;
  readonly expiresAt: number;
  readonly resourceIds: readonly string[];
  /** §5.7 step 3: the guest accepted; a host_approval host has yet to say yes. */
  readonly awaitingHost?: true;
  /** How the guest agreed to the move; the booking carries it once the move is made (§5.7). */
  readonly consent?: Consent;
  /** What each edge kept with the change hold (SchCP: the signed change offer). */
  readonly attachments?: Attachments;
}

export interface BookingState {
  readonly v: 2;
  readonly bookingId: string;
  readonly hostId: string;
  /** The hold the booking was confirmed from; the upstream idempotency key is `${hostId}:${holdId}`. */
  readonly holdId: string;
  readonly status: BookingStatus;
  /** iTIP SEQUENCE: bumped on every change the guest must see (§5.6, §5.7, §6). */
  readonly sequence: number;
  readonly serviceId: string;
  /** The booking's time as it stands (the contract's, or the end the host recorded). */
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended booking until the host ends it (§4.2). */
  readonly end?: number;
  readonly openEnd?: true;
  readonly resourceIds: readonly string[];
  readonly partySize?: number;
  readonly place?: Place;
  /** The terms the booking stands on; a change offer's replace them when it is accepted. */
  readonly contract: BookingContract;
  /** How the person agreed to the current contract. */
  readonly consent: Consent;
  readonly upstreamId: string;
  readonly callbackUrl?: string;
  readonly agentKey: string;
  /** Root principal that owns the booking (§5.5). */
  readonly principal: string;
  readonly answer?: BookingAnswer;
  /**
   * SchCP §7.9: the confirm carried answers: "person", so the host's person answers this
   * booking and its moves themselves, never a rule.
   */
  readonly personRequired?: true;
  /** host_approval: the latest time the host answers (§5.2 approval_by). */
  readonly approvalBy?: number;
  readonly proposal?: StoredProposal;
  readonly declinedChange?: DeclinedChange;
  /** Why it ended, once declined, expired or cancelled by the host. */
  readonly refusal?: BookingEnding;
  readonly createdAt: number;
  /** When the booking last changed: the JSCalendar event's `updated` (RFC 8984). */
  readonly updatedAt: number;
  /** Each edge's own record of the booking (SchCP: offer and receipt); opaque here. */
  readonly attachments?: Attachments;
  /**
   * Units of outside limits the booking holds (authority.ts LimitClaim; SchCP §3.3 shared
   * booking limits), given back through their edge when it is cancelled, declined or expires
   * (cancel.ts endBooking). A booking that went ahead keeps them.
   */
  readonly limitClaims?: readonly LimitClaim[];
  /**
   * The upstream's version of the booking last applied from the host's own tools (Square's
   * booking version, operator/upstream-move.ts): the same or an older one changes nothing.
   */
  readonly upstreamVersion?: number;
  /** Something only the operator can settle; shown in the operator's view, never to the guest. */
  readonly attention?: BookingAttention;
  /**
   * The upstream itself answered the create as pending (Servicialo `pendiente_confirmacion`, a
   * tentative event): the business decides there, not through the gateway. The booking is
   * pending_host without a gateway deadline until the business's answer is known (the operator
   * records it when the upstream cannot report it: docs/connectors.md "Pending at the business").
   */
  readonly awaitingUpstream?: true;
  /**
   * The total the upstream's own answer to the create states it recorded (a gateway upstream's
   * Servicialo session `price`), when it states one. The agreed offer's total stays the
   * booking's terms (SchCP §5.3); a different figure here is raised to the operator
   * (attention `upstream_total_differs`), never hidden.
   */
  readonly upstreamTotal?: Money;
  /**
   * Who the booking is for, as the guest gave it at confirm (guest.ts): the host's record of
   * its guest, shown to the host only within the contract's retention, never on a guest-facing
   * wire. Absent when none was given, or the booking was recorded without the confirm's request
   * (reconciliation after a crash). Typed by its shape, which is guest.ts's `Guest`, so that
   * guest.ts imports this file and not the other way round.
   */
  readonly guest?: UpstreamCustomer;
  /** Who ended a cancelled booking: the guest (or its agent), the host, or the gateway itself. */
  readonly cancelledBy?: CancelledBy;
  /** §5.10: required and named-only participants, and the booker's reconfirmation. */
  readonly participants?: readonly StoredParticipant[];
  /**
   * §5.10 Locks: the booking was made tentative and has not been final yet, so its booker has
   * earned no "confirmed" outcome for it (§7.3); it is recorded when the booking becomes final.
   */
  readonly creditPending?: true;
}

/**
 * A person named on a booking (SchCP §5.10). A required one (`who`, a principal id) answers
 * with their own mandate; a named-only one (`name`) has nothing to answer (not_required). The
 * booker's own reconfirmation is a required participant with role "booker".
 */
export interface StoredParticipant {
  readonly who?: string;
  readonly name?: string;
  readonly role: "attendee" | "invitee" | "booker";
  readonly relationship?: string;
  /** As asked at confirm; the deadline is computed again from it when a change re-asks. */
  readonly confirmWithinMs?: number;
  /** Epoch ms: when `default` applies to a pending answer. */
  readonly confirmBy?: number;
  readonly default: "release" | "keep";
  readonly status: "pending" | "accepted" | "declined" | "not_required";
}

/** Who cancelled (ports/bookings.ts carries the same words to the upstream). */
export type CancelledBy = "guest" | "host" | "system";

/** Why a booking needs the operator (operator/upstream-move.ts). */
export interface BookingAttention {
  /**
   * upstream_move_conflict: moved upstream onto time the gateway had given to others;
   * upstream_total_differs: the upstream recorded another total than the one agreed.
   */
  readonly reason: "upstream_move_conflict" | "upstream_total_differs";
  readonly message: string;
  /** The gateway bookings at that time and resource; empty when it was a live hold. */
  readonly conflictsWith: readonly string[];
  readonly at: number;
}

export function encodeBookingState(state: BookingState): string {
  return JSON.stringify(state);
}

/**
 * Reads a stored payload, version 2 or 1. Only what the use cases rely on is checked: the
 * payload is written by this module alone, so a failure means corruption, which the caller
 * reports loudly.
 */
export function decodeBookingState(payload: string): Result<BookingState, string> {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return err("the booking payload is not JSON");
  }
  if (typeof value !== "object" || value === null) return err("the booking payload is not an object");
  const s = value as Record<string, unknown>;
  const strings = [s["bookingId"], s["hostId"], s["holdId"], s["status"], s["serviceId"], s["upstreamId"]];
  if (strings.some((x) => typeof x !== "string")) return err("the booking payload lacks an identifier");
  if (typeof s["sequence"] !== "number" || typeof s["start"] !== "number")
    return err("the booking payload lacks times");
  if (s["v"] === 2) {
    if (!isContract(s["contract"])) return err("the booking payload lacks its contract");
    return ok(withNeutralOutcome(s) as unknown as BookingState);
  }
  if (s["v"] === 1) {
    const v2 = fromV1(s);
    return v2.ok
      ? ok(withNeutralOutcome(v2.value as unknown as Record<string, unknown>) as unknown as BookingState)
      : v2;
  }
  return err("unknown booking payload version");
}

const isConsent = (c: unknown): c is Consent =>
  typeof c === "object" && c !== null && typeof (c as Record<string, unknown>)["mandate"] === "string";

/**
 * Records written before the core kept its own outcome shapes stored the SchCP wire forms
 * (answer.at and declined_change times as RFC 3339 strings, refusals as {code: "DECLINED", ...}):
 * read them into the core's (BookingAnswer, BookingEnding, DeclinedChange). A consent's doubled
 * grant name is read as the one grant it names (contract.ts storedConsent).
 */
function withNeutralOutcome(s: Record<string, unknown>): Record<string, unknown> {
  const out = { ...s };
  const ms = (v: unknown): number | undefined => {
    if (typeof v === "number") return v;
    const p = parseInstant(v, "");
    return p.ok ? p.value.epochMs : undefined;
  };
  const ending = (r: unknown): BookingEnding | undefined => {
    if (typeof r !== "object" || r === null) return undefined;
    const o = r as Record<string, unknown>;
    if (typeof o["kind"] === "string") return o as unknown as BookingEnding;
    const kind = typeof o["code"] === "string" ? o["code"].toLowerCase() : "";
    if (kind !== "declined" && kind !== "expired" && kind !== "cancelled") return undefined;
    return { kind, reason: String(o["reason"]), message: String(o["message"]) };
  };
  const answer = s["answer"] as Record<string, unknown> | undefined;
  if (answer !== undefined && typeof answer["at"] === "string") {
    const at = ms(answer["at"]);
    if (at !== undefined) out["answer"] = { ...answer, at };
  }
  const refusal = ending(s["refusal"]);
  if (refusal !== undefined) out["refusal"] = refusal;
  if (isConsent(s["consent"])) out["consent"] = storedConsent(s["consent"]);
  const proposal = s["proposal"] as Record<string, unknown> | undefined;
  if (proposal !== undefined && isConsent(proposal["consent"]))
    out["proposal"] = { ...proposal, consent: storedConsent(proposal["consent"]) };
  const dc = s["declinedChange"] as Record<string, unknown> | undefined;
  if (dc !== undefined && !("ending" in dc)) {
    const start = ms(dc["start"]);
    const end = ms(dc["end"]);
    const e = ending(dc["refusal"]);
    if (start !== undefined && e !== undefined) {
      const proposalId = dc["proposal_id"];
      const revision = dc["revision"];
      out["declinedChange"] = {
        ...(typeof proposalId === "string" && { proposalId }),
        ...(typeof revision === "number" && { revision }),
        start,
        ...(end !== undefined && { end }),
        ...(dc["place"] !== undefined && { place: dc["place"] }),
        ending: e,
      };
    }
  }
  return out;
}

function isContract(c: unknown): c is BookingContract {
  if (typeof c !== "object" || c === null) return false;
  const k = c as Partial<BookingContract>;
  return (
    (k.kind === "booking" || k.kind === "change") &&
    typeof k.service?.id === "string" &&
    typeof k.start === "number" &&
    typeof k.retention === "string" &&
    Array.isArray(k.lines)
  );
}

/**
 * The terms a version 1 record kept, under the names it stored them (the claims of the offer
 * this gateway signed then, SchCP §5.2): only the members the neutral contract is read from.
 * Money is checked as it is read (contractFromClaims).
 */
export interface StoredOfferTerms {
  readonly kind: "booking" | "change";
  readonly service: { readonly id: string; readonly name: string };
  readonly price?: unknown;
  readonly total?: unknown;
  readonly lines?: readonly {
    readonly kind: PriceLine["kind"];
    readonly label: string;
    readonly amount: unknown;
  }[];
  readonly retention: string;
  readonly resource?: string;
  readonly resource_name?: string;
  /** RFC 3339. */
  readonly approval_by?: string;
}

/** A version 1 contract: the signed offer itself (SchCP §5.3). */
interface V1Contract {
  readonly offer: string;
  readonly offerSha256: string;
  readonly claims: StoredOfferTerms;
}

const isV1Contract = (c: unknown): c is V1Contract =>
  typeof c === "object" &&
  c !== null &&
  typeof (c as V1Contract).offer === "string" &&
  typeof (c as V1Contract).offerSha256 === "string" &&
  typeof (c as V1Contract).claims === "object";

/**
 * The neutral terms a version 1 record's signed offer stated (the claims this gateway signed),
 * for the time, party and place the record kept beside them.
 */
export function contractFromClaims(
  claims: StoredOfferTerms,
  at: { readonly start: number; readonly end?: number; readonly partySize: number; readonly place?: Place },
): BookingContract {
  const money = (m: unknown, field: string): Money | null => {
    if (m === undefined) return null;
    const parsed = parseSchcpMoney(m, field);
    if (!parsed.ok) throw new Error(`stored offer ${field}: ${parsed.error.message}`);
    return parsed.value;
  };
  const lines: PriceLine[] = (claims.lines ?? []).map((l, i) => ({
    kind: l.kind,
    label: l.label,
    amount: money(l.amount, `/lines/${i}/amount`) as Money,
  }));
  const approval =
    claims.approval_by === undefined ? undefined : parseInstant(claims.approval_by, "/approval_by");
  return {
    kind: claims.kind,
    service: { id: claims.service.id, name: claims.service.name },
    start: at.start,
    ...(at.end !== undefined && { end: at.end }),
    ...(claims.resource !== undefined && {
      resource: { id: claims.resource, name: claims.resource_name ?? claims.resource },
    }),
    partySize: at.partySize,
    ...(at.place !== undefined && { place: at.place }),
    price: money(claims.price, "/price"),
    total: money(claims.total, "/total"),
    lines,
    retention: claims.retention,
    ...(approval?.ok === true && { approvalBy: approval.value.epochMs }),
  };
}

/** Version 1 → 2: the offer, its hash and claims and the receipt become the SchCP attachment. */
function fromV1(s: Record<string, unknown>): Result<BookingState, string> {
  const contract = s["contract"];
  if (!isV1Contract(contract)) return err("the booking payload lacks its contract");
  if (typeof s["receipt"] !== "string") return err("the booking payload lacks an identifier");
  const { receipt, retention: _r, contract: _c, proposal, v: _v, ...rest } = s;
  const start = s["start"] as number;
  const end = s["end"] as number | undefined;
  const partySize = typeof s["partySize"] === "number" ? s["partySize"] : 1;
  const place = s["place"] as Place | undefined;
  const state = {
    ...rest,
    v: 2,
    contract: contractFromClaims(contract.claims, {
      start,
      ...(end !== undefined && { end }),
      partySize,
      ...(place !== undefined && { place }),
    }),
    attachments: {
      schcp: { offer: contract.offer, offerSha256: contract.offerSha256, claims: contract.claims, receipt },
    },
    ...(proposal !== undefined && { proposal: proposalFromV1(proposal, partySize) }),
  };
  return ok(state as unknown as BookingState);
}

function proposalFromV1(p: unknown, partySize: number): StoredProposal {
  const old = p as Omit<StoredProposal, "contract" | "attachments"> & { contract: V1Contract };
  const { contract, ...rest } = old;
  return {
    ...rest,
    contract: contractFromClaims(contract.claims, {
      start: old.start,
      ...(old.end !== undefined && { end: old.end }),
      partySize,
      ...(old.place !== undefined && { place: old.place }),
    }),
    attachments: {
      schcp: { offer: contract.offer, offerSha256: contract.offerSha256, claims: contract.claims },
    },
  };
}

/** Corrupt stored state is not the caller's fault and not a refusal: it is an internal error. */
export function decodeOrThrow(payload: string, bookingId: string): BookingState {
  const decoded = decodeBookingState(payload);
  if (!decoded.ok) throw new Error(`booking ${bookingId}: ${decoded.error}`);
  return decoded.value;
}

/** Statuses in which the booking still occupies time (§6). */
export const ACTIVE_STATUSES: ReadonlySet<BookingStatus> = new Set([
  "pending_host",
  "tentative",
  "confirmed",
]);
