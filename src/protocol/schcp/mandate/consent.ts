/**
 * How the person agreed to a booking, for its receipt (§5.3 "A receipt is evidence of
 * the agreement"). Only the root counts: links an agent added are the agent's own,
 * the mandate that binds the person is the one they signed.
 */
import type { ReceiptConsent } from "../types.js";
import type { MandateChain } from "./types.js";

/**
 * The receipt's consent member as a mandate chain decides it: approved is "offer" when
 * the root carried this offer's hash, "limits" when an open mandate covered it;
 * mandate is the root's jti; mode is the root's consent.mode, when it states one.
 */
export type MandateReceiptConsent = ReceiptConsent & { approved: "offer" | "limits" };

/**
 * "contract" (a signed meeting contract, §5.12) is decided by the meeting use case,
 * which knows the contract; a mandate alone can only say "offer" or "limits".
 */
export function receiptConsent(chain: MandateChain, offerSha256: string): MandateReceiptConsent {
  const root = chain.root.claims;
  const mode = root.consent?.mode;
  return {
    approved: root.constraints?.offer_sha256 === offerSha256 ? "offer" : "limits",
    mandate: root.jti,
    ...(mode !== undefined && { mode }),
  };
}
