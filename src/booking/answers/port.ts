/**
 * The rules a person signed (SchCP §7.9), kept by their calendar: "Rules are kept by the
 * person's calendar and are not published." One store per deployment, keyed by host; memory
 * (memory-store.ts) and Redis (redis-store.ts) behave alike.
 */
import type { Result } from "../../protocol/result.js";

/**
 * A rule's claims in the core's terms: the members of SchCP's RuleClaims (§7.9) the calendar
 * reads, by the same names (the core does not import an edge's wire types; docs/ARCHITECTURE.md,
 * Layers). iat and exp are epoch seconds, as signed.
 */
export interface RuleTerms {
  readonly iss: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  readonly cnf: { readonly jkt: string };
  readonly label: string;
  readonly services?: readonly string[];
  readonly weekdays?: readonly string[];
  readonly tz?: string;
  readonly organizers?: readonly string[];
}

/** A rule as kept: its exact compact JWS (what an acceptance carries, §5.12) and its claims. */
export interface StoredRule {
  readonly jws: string;
  readonly claims: RuleTerms;
}

/** One use of a rule, as ruleCovers reads it (src/protocol/schcp/rule). */
export interface RuleUse {
  /** Epoch seconds. */
  readonly at: number;
  readonly serviceId: string;
  /** RFC 3339 with the host's offset. */
  readonly start: string;
  readonly organizer?: string;
}

/**
 * The rule format's own checks, handed in by the composition root (src/gateway/runtime), which
 * wires SchCP's verifyRule and ruleCovers (src/protocol/schcp/rule): the signature, the closed
 * claims, the self-certifying iss, expiry, and what a rule covers.
 */
export interface RuleCheck {
  verify(
    jws: string,
    nowSec: number,
  ): Promise<Result<StoredRule, { readonly code: string; readonly message: string }>>;
  covers(rule: RuleTerms, use: RuleUse): boolean;
}

/** At most this many rules per host: each booking at the host reads them all. */
export const MAX_RULES_PER_HOST = 100;

export type AddRuleOutcome = "added" | "replaced" | "full";

export interface RuleStore {
  /**
   * Keeps the rule under its jti (a rule with the same jti is replaced), unless the host already
   * keeps MAX_RULES_PER_HOST others: "full". Rules expired at `now` are forgotten first. Atomic.
   */
  add(hostId: string, rule: StoredRule, now: number): Promise<AddRuleOutcome>;
  /** The host's rules not expired at `now` (epoch ms), oldest iat first. */
  list(hostId: string, now: number): Promise<readonly StoredRule[]>;
  /** Forgets the rule with this jti; false when the host kept none. */
  remove(hostId: string, jti: string): Promise<boolean>;
}

/** A rule is kept while unexpired: exp is epoch seconds (§5.12 "exp gets no skew"). */
export const ruleLive = (rule: StoredRule, now: number): boolean => now < rule.claims.exp * 1000;

export const byIat = (a: StoredRule, b: StoredRule): number =>
  a.claims.iat - b.claims.iat || (a.claims.jti < b.claims.jti ? -1 : a.claims.jti > b.claims.jti ? 1 : 0);
