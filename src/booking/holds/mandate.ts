/**
 * The mandate side of a hold (SchCP §3.3, §7.1): checkMandateAction for the action (hold, or
 * change_offer for a change), the links a hold counts against (max_bookings keyed by
 * (root iss, jti)), and the windows alternatives must stay inside.
 */
import type { GatewayStore, MandateCount } from "../../holds/port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import { parseLinkConstraints } from "../../protocol/schcp/mandate/constraints.js";
import {
  checkMandateAction,
  type MandateAction,
  type MandateChain,
  type MandateRefusal,
} from "../../protocol/schcp/mandate/index.js";
import type { RefusalReason } from "../../protocol/schcp/refusals.js";
import type { BookingRefusal } from "../api.js";
import { bookingRefusal } from "../rules/index.js";

export function fromMandateRefusal(r: MandateRefusal): BookingRefusal {
  return bookingRefusal(r.code, {
    // checkMandateAction only returns reasons registered under its code (§9.2).
    reason: r.reason as RefusalReason<typeof r.code>,
    message: r.message,
    ...(r.basis !== undefined && { basis: r.basis }),
    ...(r.details !== undefined && { details: r.details }),
  });
}

export async function checkAction(
  store: GatewayStore,
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
export function mandateCounts(chain: MandateChain | undefined): MandateCount[] {
  if (chain === undefined) return [];
  return chain.links.flatMap((link) => {
    const max = link.claims.constraints?.max_bookings;
    return max === undefined ? [] : [{ rootIss: chain.rootIss, jti: link.claims.jti, maxBookings: max }];
  });
}

/** Whether [start, end] sits in every link's window (§3.3 check 6; the start alone when open). */
export function insideMandateWindows(chain: MandateChain | undefined, start: number, end?: number): boolean {
  if (chain === undefined) return true;
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
