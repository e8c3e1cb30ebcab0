/**
 * What the SchCP edge needs of principals' key apps (SchCP §3.3), stated here as its port; the
 * composition root builds it over the outbound transport webhooks use (§3.3 "Status URLs", §5.8)
 * and a background queue that survives a restart on Redis (src/jobs/key-app/).
 */
import type { MandateStatusPort } from "../../protocol/schcp/mandate/index.js";

/** POST {status}/claims: 201 claimed, 200 already held, 409 none left; else refused or no answer. */
export type SchcpClaimAnswer = "claimed" | "already_held" | "none_left" | "refused" | "no_answer";

export interface SchcpKeyApps {
  /** POST {status}/claims { claim_id }. */
  claim(statusUrl: string, claimId: string): Promise<SchcpClaimAnswer>;
  /** DELETE {status}/claims/{claim_id}: true when the key app took the unit back. */
  giveBack(statusUrl: string, claimId: string): Promise<boolean>;
  /**
   * After a give-back that got no answer: retried in the background for about a day, then the
   * claim is left held ("one booking fewer left, never one more"). Never rejects.
   */
  giveBackLater(job: { hostId: string; statusUrl: string; claimId: string }): Promise<void>;
}

/** What the SchCP edge is handed beside the core's deps. */
export interface SchcpEdgeOptions {
  /** Shared booking limits; without it every shared_limit confirm is refused (§3.3). */
  readonly keyApps?: SchcpKeyApps;
}

/** Check 7's status port (§3.3), for the HTTP edge's mandate verification. */
export type { MandateStatusPort };
