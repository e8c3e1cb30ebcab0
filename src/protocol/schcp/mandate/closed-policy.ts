/**
 * §5.3 policies.closed_mandate: under "always" the ROOT mandate, the one the
 * principal signed, must carry the accepted offer's hash. An agent-signed child
 * carrying it does not count: the point is evidence that the human saw these terms.
 * Applies to change offers too (§5.7). The edge adds the approve_offer remedy.
 */
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { offerApprovalRequired } from "./refusal.js";
import type { MandateChain, MandateRefusal } from "./types.js";

export type ClosedMandatePolicy = "never" | "always";

export function checkClosedMandatePolicy(
  chain: MandateChain,
  offerSha256: string,
  policy: ClosedMandatePolicy,
): Result<void, MandateRefusal> {
  if (policy === "never") return ok(undefined);
  if (chain.root.claims.constraints?.offer_sha256 === offerSha256) return ok(undefined);
  return err(offerApprovalRequired(offerSha256));
}
