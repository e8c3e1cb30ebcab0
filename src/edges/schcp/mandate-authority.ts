/**
 * A verified SchCP mandate chain as the core's Authority (booking/authority.ts): the hold and
 * change-offer actions are checked with checkMandateAction (SchCP §3.3, §7.1), max_bookings is
 * counted by the store in the hold's own atomic step (keyed by (root iss, jti)), and
 * alternatives stay inside every link's window. The SchCP edge builds it from the Caller it
 * verified (caller.ts); the core sees only the Authority.
 */
import type { GatewayStore, MandateCount } from "../../holds/port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import { parseLinkConstraints } from "../../protocol/schcp/mandate/constraints.js";
import {
  checkMandateAction,
  type MandateAction,
  type MandateChain,
} from "../../protocol/schcp/mandate/index.js";
import type { BookingRefusal } from "../../booking/api.js";
import type { ActionTerms, Authority } from "../../booking/authority.js";
import { fromMandateRefusal } from "./mandate-refusal.js";

const SCHCP_AUTHORITY = "schcp";

export interface MandateAuthority extends Authority {
  readonly kind: typeof SCHCP_AUTHORITY;
  readonly chain: MandateChain;
}

export function mandateAuthority(
  store: Pick<GatewayStore, "countForMandate">,
  hostId: string,
  chain: MandateChain,
): MandateAuthority {
  return {
    principal: chain.principal,
    kind: SCHCP_AUTHORITY,
    // The chain is rooted in the principal's own key, verified at the edge (§3.3).
    proof: "principal_key",
    chain,
    holdLimits: mandateCounts(chain),
    covers: (start, end) => insideMandateWindows(chain, start, end),
    permits: (terms) => checkTerms(store, hostId, chain, terms),
  };
}

/** The chain behind an Authority the SchCP edge built; undefined for any other grant. */
export function mandateChainOf(authority: Authority | undefined): MandateChain | undefined {
  return authority?.kind === SCHCP_AUTHORITY && "chain" in authority
    ? (authority as MandateAuthority).chain
    : undefined;
}

const checkTerms = (
  store: Pick<GatewayStore, "countForMandate">,
  hostId: string,
  chain: MandateChain,
  terms: ActionTerms,
): Promise<Result<void, BookingRefusal>> =>
  checkAction(store, hostId, chain, {
    kind: terms.action,
    serviceId: terms.serviceId,
    start: terms.start,
    ...(terms.end === undefined ? { openEnded: true } : { end: terms.end }),
    total: terms.total,
    ...(terms.bookingId !== undefined && { bookingId: terms.bookingId }),
  });

/** checkMandateAction for any SchCP action (hold, read, release, change_offer), counted per host. */
export async function checkAction(
  store: Pick<GatewayStore, "countForMandate">,
  hostId: string,
  chain: MandateChain,
  action: MandateAction,
): Promise<Result<void, BookingRefusal>> {
  const checked = await checkMandateAction(chain, action, {
    counter: { active: (rootIss, jti, exclude) => store.countForMandate(hostId, rootIss, jti, exclude) },
  });
  return checked.ok ? ok(undefined) : err(fromMandateRefusal(checked.error));
}

/** §7.1 "Every hold counts against the mandate's max_bookings": each link that has one. */
function mandateCounts(chain: MandateChain): MandateCount[] {
  return chain.links.flatMap((link) => {
    const max = link.claims.constraints?.max_bookings;
    return max === undefined ? [] : [{ rootIss: chain.rootIss, jti: link.claims.jti, maxBookings: max }];
  });
}

/** Whether [start, end] sits in every link's window (§3.3 check 6; the start alone when open). */
function insideMandateWindows(chain: MandateChain, start: number, end?: number): boolean {
  const last = end ?? start;
  return chain.links.every((link) => {
    const c = parseLinkConstraints(link.claims, "");
    if (!c.ok) return false;
    return (
      (c.value.notBefore === undefined || start >= c.value.notBefore.epochMs) &&
      (c.value.notAfter === undefined || last <= c.value.notAfter.epochMs)
    );
  });
}
