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
import type { ActionTerms, Authority, KeptGrant } from "../../booking/authority.js";
import type { Money } from "../../protocol/money/index.js";
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
    keep: () => keptGrant(chain),
  };
}

/**
 * §5.9: what a waitlist offer must still fit, every link's limits at once (§3.3: an action fits
 * the root's constraints and every child's): the earliest exp, the narrowest window, the
 * smallest max_price and the services every link allows.
 */
function keptGrant(chain: MandateChain): KeptGrant {
  let expiresAt: number | undefined;
  let notBefore: number | undefined;
  let notAfter: number | undefined;
  let maxTotal: Money | undefined;
  let services: readonly string[] | undefined;
  for (const link of chain.links) {
    const exp = link.claims.exp * 1000;
    expiresAt = expiresAt === undefined ? exp : Math.min(expiresAt, exp);
    const c = parseLinkConstraints(link.claims, "");
    if (!c.ok) continue;
    const v = c.value;
    if (v.notBefore !== undefined) notBefore = Math.max(notBefore ?? -Infinity, v.notBefore.epochMs);
    if (v.notAfter !== undefined) notAfter = Math.min(notAfter ?? Infinity, v.notAfter.epochMs);
    if (v.maxPrice !== undefined) {
      // Two currencies cannot both be met: the first stands, and a total in the other fails it.
      if (
        maxTotal === undefined ||
        (maxTotal.currency === v.maxPrice.currency && v.maxPrice.minor < maxTotal.minor)
      )
        maxTotal = v.maxPrice;
    }
    if (v.services !== undefined) {
      const allowed = v.services;
      services = services === undefined ? allowed : services.filter((id) => allowed.includes(id));
    }
  }
  return {
    ...(expiresAt !== undefined && { expiresAt }),
    ...(notBefore !== undefined && { notBefore }),
    ...(notAfter !== undefined && { notAfter }),
    ...(maxTotal !== undefined && { maxTotal }),
    ...(services !== undefined && { services }),
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
