/**
 * Rules a person signed (SchCP §7.9): a compact JWS, typ schcp-rule+jwt, by the person's own
 * key, that lets their calendar's agent say yes without asking them. Pure: no I/O, no clock
 * but the one passed in.
 *
 * verifyRule checks what the rule itself can prove: the signature against principal_jwk, iss
 * as that key's thumbprint (self-certifying, as a root mandate, §3.3 check 1), the closed
 * RuleClaims shape (§5.2 "Claims are closed": rules too) with tz whenever weekdays are stated,
 * and, when a clock is given, that it has not expired. Whose rule it is (the host's owner) and
 * which agent key may use it (cnf.jkt) are the calendar's to check against its own config.
 *
 * ruleCovers says whether a rule covers one use (§7.9 "A rule covers a booking or meeting when
 * it was unexpired at the time it was used and every field it states matches").
 */
import { jwkThumbprint, parseEd25519PublicJwk, principalUrn } from "../../jose/jwk.js";
import { decodeCompactJws, verifyJwsSignature } from "../../jose/jws.js";
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { instantToWallClock, isoWeekday, isValidTimeZone, parseInstant } from "../../time/index.js";
import type { RuleClaims } from "../types.js";
import { validateSchcp } from "../validate.js";

export const RULE_TYP = "schcp-rule+jwt";

/** §5.12: verifiers allow 60 s of clock skew on iat, and no more; exp gets none. */
const IAT_SKEW_S = 60;

export interface VerifiedRule {
  readonly claims: RuleClaims;
  /** The compact JWS exactly as received, so an acceptance can carry it (§5.12). */
  readonly jws: string;
}

export type RuleProblemCode =
  "rule_malformed" | "rule_typ" | "rule_claims" | "rule_signature" | "rule_issuer" | "rule_expired";

export interface RuleProblem {
  readonly code: RuleProblemCode;
  /** For a person or operator to read: what is wrong with the rule. */
  readonly message: string;
}

const problem = (code: RuleProblemCode, message: string): RuleProblem => ({ code, message });

/**
 * Header members a rule may carry: the key is the claims' principal_jwk, so a second key in
 * the header (jwk, jku, x5c) is refused, as for mandates (§3.4), and crit never gets this far.
 */
const ALLOWED_HEADER = new Set(["alg", "typ", "kid"]);

export interface VerifyRuleOptions {
  /** Epoch seconds; when given, a rule whose exp has passed is rule_expired (§7.9). */
  readonly now?: number;
}

export async function verifyRule(
  jws: string,
  opts: VerifyRuleOptions = {},
): Promise<Result<VerifiedRule, RuleProblem>> {
  if (typeof jws !== "string" || jws === "") {
    return err(problem("rule_malformed", "a rule is a compact JWS string"));
  }
  const decoded = decodeCompactJws(jws, "rule");
  if (!decoded.ok) return err(problem("rule_malformed", `not a valid JWS: ${decoded.error.message}`));
  const header = decoded.value.header;
  for (const name of Object.keys(header)) {
    if (!ALLOWED_HEADER.has(name)) {
      return err(problem("rule_malformed", `rule JWS header member "${name}" is not allowed`));
    }
  }
  if (header.typ !== RULE_TYP) {
    return err(problem("rule_typ", `a rule's typ must be "${RULE_TYP}"`));
  }
  if (header.kid !== undefined && typeof header.kid !== "string") {
    return err(problem("rule_malformed", "rule kid must be a string"));
  }
  const claims = validateSchcp("RuleClaims", decoded.value.payload);
  if (!claims.ok) return err(problem("rule_claims", `invalid rule: ${claims.error.message}`));
  const c = claims.value;
  // The schema's dependentRequired says this too; kept here so the rule never rests on it alone.
  if (c.weekdays !== undefined && c.tz === undefined) {
    return err(problem("rule_claims", "a rule that states weekdays must state tz (§7.9)"));
  }
  if (c.tz !== undefined && !isValidTimeZone(c.tz)) {
    return err(problem("rule_claims", `rule tz ${JSON.stringify(c.tz)} is not a known time zone`));
  }
  if (c.exp <= c.iat) return err(problem("rule_claims", "a rule's exp must be after its iat"));
  // §3.4 Keys: Ed25519 only; a private d is refused by the parser.
  const jwk = parseEd25519PublicJwk(c.principal_jwk, "rule/principal_jwk", {
    allowKid: true,
    allowUse: true,
  });
  if (!jwk.ok) return err(problem("rule_claims", `rule principal_jwk: ${jwk.error.message}`));
  if (!(await verifyJwsSignature(decoded.value, jwk.value))) {
    return err(problem("rule_signature", "the rule's signature does not verify against its principal_jwk"));
  }
  if (c.iss !== principalUrn(jwkThumbprint(jwk.value))) {
    return err(problem("rule_issuer", "the rule's iss is not the principal of its principal_jwk"));
  }
  if (opts.now !== undefined && !(opts.now < c.exp)) {
    return err(problem("rule_expired", "the rule has expired"));
  }
  return ok({ claims: c, jws });
}

export interface RuleUse {
  /** Epoch seconds when the rule is used (the host's clock). */
  readonly at: number;
  readonly serviceId: string;
  /** The booking's start, RFC 3339 with an offset; its weekday is read in the rule's tz. */
  readonly start: string;
  /** The principal asking: the booker, or a meeting's organizer (§5.12). */
  readonly organizer?: string;
}

/** What ruleCovers reads of a rule: RuleClaims, or any narrower record of the same members. */
export interface RuleScope {
  readonly iat: number;
  readonly exp: number;
  readonly services?: readonly string[];
  readonly weekdays?: readonly string[];
  readonly tz?: string;
  readonly organizers?: readonly string[];
}

const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

/**
 * §7.9: in force when used (iat − 60 s ≤ at < exp, the §5.12 skew on iat and none on exp),
 * and every field the rule states matches; an absent field does not narrow it. A rule that
 * states organizers covers nothing whose organizer is unknown. Never throws: a start that
 * does not parse, or a zone that is not one, covers nothing.
 */
export function ruleCovers(rule: RuleScope, use: RuleUse): boolean {
  if (!(rule.iat - IAT_SKEW_S <= use.at && use.at < rule.exp)) return false;
  if (rule.services !== undefined && !rule.services.includes(use.serviceId)) return false;
  if (rule.organizers !== undefined) {
    if (use.organizer === undefined || !rule.organizers.includes(use.organizer)) return false;
  }
  if (rule.weekdays !== undefined) {
    if (rule.tz === undefined || !isValidTimeZone(rule.tz)) return false;
    const start = parseInstant(use.start, "start");
    if (!start.ok) return false;
    const wall = instantToWallClock(start.value.epochMs, rule.tz);
    const day = WEEKDAYS[isoWeekday(wall) - 1];
    if (day === undefined || !rule.weekdays.includes(day)) return false;
  }
  return true;
}
