/**
 * Acceptances (SchCP §5.12, §7.9): a member's yes to one set of terms, a compact JWS, typ
 * schcp-acceptance+jwt, signed by the member's own key (by: "person") or by their calendar's
 * agent key under a rule they signed (by: "rule"). Pure: the caller gives the time.
 *
 * Every bullet of §5.12 "It is valid for a member when" is checked here, in order; by: "rule"
 * on terms that do not allow rules is person_required, every other failure acceptance_invalid.
 * meeting_id, when present, is informative and never compared: the hash binds the acceptance.
 */
import { jwkThumbprint, principalUrn } from "../../jose/jwk.js";
import { verifyJwsSignature } from "../../jose/jws.js";
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { ruleCovers, verifyRule } from "../rule/index.js";
import type { AcceptanceClaims, MeetingMember, RuleClaims } from "../types.js";
import { answersFor } from "./contract.js";
import type { VerifiedContract } from "./contract.js";
import { decodeMeetingJws, signingJwk } from "./jws.js";
import { acceptanceInvalid, personRequired } from "./problem.js";
import type { MeetingProblem } from "./problem.js";

export const ACCEPTANCE_TYP = "schcp-acceptance+jwt";

/** §5.12: "each within 60 seconds (terms − 60 ≤ iat ≤ now + 60)". */
const SKEW_S = 60;

export interface AcceptanceContext {
  /** The current hash of the terms: the contract's contract_sha256 (an ordinary booking: its offer's). */
  readonly termsSha256: string;
  /** When the terms were made, epoch seconds: the contract's iat (an ordinary booking: when it was made). */
  readonly termsIat: number;
  /** The member's principal, as the contract names it. */
  readonly member: string;
  /** Whether a rule may answer for this member (answersFor(...) === "person_or_rule"). */
  readonly allowRule: boolean;
  /** What a rule must cover: the member's service, the start (its weekday in the rule's tz) and the organizer. */
  readonly serviceId: string;
  readonly start: string;
  readonly organizer: string;
  /** The verifier's clock, epoch milliseconds. */
  readonly now: number;
}

export interface VerifiedAcceptance {
  readonly by: "person" | "rule";
  /** by "rule": the rule's label, the person's own words (§7.9 answer.rule). */
  readonly ruleLabel?: string;
  readonly claims: AcceptanceClaims;
  /** by "rule": the rule it carries, verified. */
  readonly rule?: RuleClaims;
  /** The compact JWS exactly as received. */
  readonly jws: string;
}

/** The context a calendar checks a member's acceptance of a verified contract in (§5.12). */
export function acceptanceContext(
  contract: Pick<VerifiedContract, "claims" | "sha256">,
  member: MeetingMember,
  now: number,
): AcceptanceContext {
  return {
    termsSha256: contract.sha256,
    termsIat: contract.claims.iat,
    member: member.principal,
    allowRule: answersFor(contract, member) === "person_or_rule",
    serviceId: member.service_id,
    start: contract.claims.start,
    organizer: contract.claims.iss,
    now,
  };
}

export async function verifyAcceptance(
  jws: unknown,
  ctx: AcceptanceContext,
): Promise<Result<VerifiedAcceptance, MeetingProblem>> {
  const decoded = decodeMeetingJws(jws, ACCEPTANCE_TYP, "AcceptanceClaims", acceptanceInvalid);
  if (!decoded.ok) return decoded;
  const a = decoded.value.claims;
  const compact = decoded.value.jws.compact;

  // • the signature verifies with jwk;
  const jwk = signingJwk(a.jwk, "/payload/jwk", acceptanceInvalid);
  if (!jwk.ok) return jwk;
  if (!(await verifyJwsSignature(decoded.value.jws, jwk.value))) {
    return err(acceptanceInvalid("the acceptance's signature does not verify with jwk", "/signature"));
  }
  // • iss is the member's principal;
  if (a.iss !== ctx.member) {
    return err(acceptanceInvalid("iss is not this member's principal", "/payload/iss"));
  }
  // • terms_sha256 is the contract's current hash;
  if (a.terms_sha256 !== ctx.termsSha256) {
    return err(
      acceptanceInvalid(
        "terms_sha256 is not the current terms' hash (an earlier revision?)",
        "/payload/terms_sha256",
      ),
    );
  }
  // • terms − 60 ≤ iat ≤ now + 60.
  if (a.iat < ctx.termsIat - SKEW_S) {
    return err(acceptanceInvalid("iat is earlier than the terms it accepts", "/payload/iat"));
  }
  if (a.iat > Math.floor(ctx.now / 1000) + SKEW_S) {
    return err(acceptanceInvalid("iat is in the future", "/payload/iat"));
  }

  // by: "person": jwk is the member's own key (its principal is iss).
  if (a.by === "person") {
    if (principalUrn(jwkThumbprint(jwk.value)) !== a.iss) {
      return err(acceptanceInvalid('by "person": jwk is not the member\'s own key', "/payload/jwk"));
    }
    return ok({ by: "person", claims: a, jws: compact });
  }

  // by: "rule": the contract allows rules (person_required otherwise) …
  if (!ctx.allowRule) {
    return err(
      personRequired("this member must answer in person; no rule may answer for them", "/payload/by"),
    );
  }
  // The schema requires rule with by "rule"; narrowed again for the type.
  if (a.rule === undefined) return err(acceptanceInvalid('by "rule" carries a rule', "/payload/rule"));
  const rule = await verifyRule(a.rule);
  if (!rule.ok)
    return err(acceptanceInvalid(`the rule does not verify: ${rule.error.message}`, "/payload/rule"));
  const r = rule.value.claims;
  // … a rule the same person signed (§7.9) …
  if (r.iss !== a.iss) {
    return err(acceptanceInvalid("the rule was not signed by the accepting member", "/payload/rule"));
  }
  // … that names jwk as the agent key that may answer (cnf.jkt is its RFC 7638 thumbprint);
  if (r.cnf.jkt !== jwkThumbprint(jwk.value)) {
    return err(
      acceptanceInvalid(
        "the rule's cnf.jkt does not name the key that signed the acceptance",
        "/payload/jwk",
      ),
    );
  }
  // … was in force at the acceptance's iat: rule.iat − 60 ≤ iat < rule.exp;
  if (!(r.iat - SKEW_S <= a.iat && a.iat < r.exp)) {
    return err(
      acceptanceInvalid("the rule was not in force when the acceptance was signed", "/payload/rule"),
    );
  }
  // … covers the member's service, the start's weekday in the rule's zone, and the organizer.
  const use = { at: a.iat, serviceId: ctx.serviceId, start: ctx.start, organizer: ctx.organizer };
  if (!ruleCovers(r, use)) {
    return err(acceptanceInvalid(`the rule ("${r.label}") does not cover this meeting`, "/payload/rule"));
  }
  return ok({ by: "rule", ruleLabel: r.label, claims: a, rule: r, jws: compact });
}
