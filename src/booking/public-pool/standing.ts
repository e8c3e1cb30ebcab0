/**
 * Who draws on the public booking pool (port.ts). SchCP §7.2 exempts the principals that have
 * kept an appointment here; this pool asks one thing more, because it binds edges whose
 * principals are only claimed: the principal must also have been authenticated, or a script
 * could name a regular's e-mail and book as them. So:
 *
 * - the host's own credential (an A2A X-Org-Api-Key) never draws: it is the business itself;
 * - a principal proven by its key (a SchCP mandate chain, §3.3) draws until it has kept an
 *   appointment here (§7.2, isPrincipalProven), then never;
 * - a principal an honoured attester vouches for draws on that attester's pool instead
 *   (§7.5, max_active_per_attester in the hold store), not this one;
 * - everyone else draws: anonymous callers, A2A contacts, OSBP mandates (unsigned JSON in
 *   OSBP v0.1.0, "validated structurally, not cryptographically").
 */
import type { Caller } from "../api.js";

export function drawsOnPublicPool(caller: Caller, proven: boolean): boolean {
  const proof = caller.authority?.proof;
  if (proof === "host_key") return false;
  if (caller.attester !== undefined) return false;
  return !(proof === "principal_key" && proven);
}
