/**
 * A waitlist entry in the core's terms (SchCP §5.9): what the store keeps (WaitlistRecord) and
 * what the core keeps in its payload: the party, the place, where to send the offer, the edges
 * that keep records of its holds, and the grant's limits as data (authority.ts KeptGrant), so an
 * offer made later is checked against the mandate without a request carrying it.
 */
import type { WaitlistRecord } from "../../holds/waitlist-port.js";
import type { Money } from "../../protocol/money/index.js";
import type { ActionTerms, Authority, KeptGrant } from "../authority.js";
import type { Place } from "../contract.js";
import type { WaitlistEntryView } from "./view.js";
import type { BookingRefusal } from "../errors.js";
import { bookingRefusal } from "../rules/index.js";
import { err, ok, type Result } from "../../protocol/result.js";

export interface EntryPayload {
  readonly v: 1;
  readonly partySize: number;
  readonly place?: Place;
  readonly callbackUrl?: string;
  /** Edges that keep a record with the entry's holds ("schcp" signs the offer). */
  readonly edges: readonly string[];
  readonly grant: KeptGrant;
  /** §7.5: an attester the edge honoured when the entry joined. */
  readonly attester?: string;
}

export const encodeEntryPayload = (p: EntryPayload): string => JSON.stringify(p);

export function decodeEntryPayload(text: string): EntryPayload {
  const p = JSON.parse(text) as Partial<EntryPayload>;
  if (p.v !== 1 || typeof p.partySize !== "number" || !Array.isArray(p.edges) || typeof p.grant !== "object")
    throw new Error("unreadable waitlist entry payload");
  return p as EntryPayload;
}

export function entryView(record: WaitlistRecord, position?: number): WaitlistEntryView {
  const p = decodeEntryPayload(record.payload);
  return {
    entryId: record.entryId,
    hostId: record.hostId,
    status: record.status,
    serviceId: record.serviceId,
    window: { start: record.window.start, end: record.window.end },
    createdAt: record.createdAt,
    ...(position !== undefined && { position }),
    ...(record.holdId !== undefined && { holdId: record.holdId }),
    principal: record.principal,
    agentKey: record.agentKey,
    ...(p.callbackUrl !== undefined && { callbackUrl: p.callbackUrl }),
    ...(p.place !== undefined && { place: p.place }),
    partySize: p.partySize,
  };
}

const limit = (reason: string, message: string): Result<void, BookingRefusal> =>
  err(bookingRefusal("authority_limit", { reason: reason as "outside_window", message }));

/** Whether an offer's terms fit the kept grant (§5.9 "the mandate still valid and covering it"). */
function fitsGrant(grant: KeptGrant, terms: ActionTerms, now: number): Result<void, BookingRefusal> {
  if (grant.expiresAt !== undefined && grant.expiresAt <= now)
    return err(
      bookingRefusal("authority_invalid", { reason: "mandate_expired", message: "the mandate has expired" }),
    );
  if (grant.services !== undefined && !grant.services.includes(terms.serviceId))
    return err(
      bookingRefusal("authority_scope", {
        reason: "service_not_allowed",
        message: "the mandate does not allow this service",
      }),
    );
  const last = terms.end ?? terms.start;
  if (
    (grant.notBefore !== undefined && terms.start < grant.notBefore) ||
    (grant.notAfter !== undefined && last > grant.notAfter)
  )
    return limit("outside_window", "the time is outside the mandate's window");
  const max: Money | undefined = grant.maxTotal;
  if (max !== undefined && terms.total !== null) {
    if (terms.total.currency !== max.currency)
      return limit("currency_mismatch", "the total is in another currency than the mandate's max_price");
    if (terms.total.minor > max.minor)
      return limit("over_max_price", "the total is over the mandate's max_price");
  }
  return ok(undefined);
}

/** The entry's grant as the core's Authority, for the hold engine when it prepares an offer. */
export function keptAuthority(record: WaitlistRecord, grant: KeptGrant, now: number): Authority {
  return {
    principal: record.principal,
    kind: "waitlist",
    proof: "principal_key",
    holdLimits: record.mandates,
    covers: (start, end) =>
      (grant.notBefore === undefined || start >= grant.notBefore) &&
      (grant.notAfter === undefined || (end ?? start) <= grant.notAfter),
    permits: (terms) => fitsGrant(grant, terms, now),
  };
}

export type { WaitlistEntryView } from "./view.js";
