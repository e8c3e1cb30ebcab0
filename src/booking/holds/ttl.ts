/**
 * The granted TTL (SchCP §5.2 "min(requested, policy max, reputation cap)", §7.3): the
 * reputation cap is the smallest of the agent key's, the principal's and the honoured
 * attester's. A suspended agent or principal (cap 0) gets no hold at all: 429 HOLD_LIMIT
 * holds_suspended. A suspended attester only stops vouching (§7.5 "they fall back to the
 * ordinary new-guest pool rather than being locked out").
 */
import type { GatewayStore } from "../../holds/port.js";
import { grantedTtlMs, ttlCapMs } from "../../holds/reputation.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingRefusal } from "../api.js";
import { bookingRefusal } from "../rules/index.js";

export interface TtlGrant {
  readonly ttlMs: number;
  /** The attester the hold draws on, unless its own reputation suspended it. */
  readonly attester?: string;
}

export async function grantTtl(
  store: GatewayStore,
  subjects: { readonly agentKey: string; readonly principal: string | null; readonly attester?: string },
  requestedMs: number,
  policyMaxMs: number,
  now: number,
): Promise<Result<TtlGrant, BookingRefusal>> {
  const cap = async (kind: "agent" | "principal" | "attester", id: string) =>
    ttlCapMs(await store.reputation({ kind, id }, now), policyMaxMs);
  const caps: number[] = [];
  const suspended = (subject: string) =>
    err(
      bookingRefusal("hold_limit", {
        reason: "holds_suspended",
        message: "too many holds lapsed unconfirmed; holds are suspended for a while",
        basis: { policy: "reputation", subject },
      }),
    );

  const agent = await cap("agent", subjects.agentKey);
  if (agent === 0) return suspended("agent");
  caps.push(agent);
  if (subjects.principal !== null) {
    const principal = await cap("principal", subjects.principal);
    if (principal === 0) return suspended("principal");
    caps.push(principal);
  }
  let attester = subjects.attester;
  if (attester !== undefined) {
    const c = await cap("attester", attester);
    if (c === 0) attester = undefined;
    else caps.push(c);
  }
  const ttlMs = grantedTtlMs(requestedMs, policyMaxMs, caps);
  return ok({ ttlMs, ...(attester !== undefined && { attester }) });
}
