/**
 * The operator's side of a person's rules (SchCP §7.9 "Rules are kept by the person's
 * calendar"): add, list and remove the rules of one host. Reached through the operator API
 * (src/edges/operator), never through SchCP: rules are not published.
 *
 * A rule is kept only when verifyRule accepts it (typ, closed claims, signature, self-certifying
 * iss, unexpired), the host is a person's calendar, and the rule is its owner's: "a rule its
 * person signed" (§5.7 step 3). Its cnf.jkt is kept as signed; decide.ts says which key answers.
 */
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import type { BookingDeps, BookingRefusal } from "../api.js";
import { notFound, refuse } from "../bookings/refuse.js";
import { answeringKey } from "./decide.js";
import { MAX_RULES_PER_HOST } from "./port.js";
import type { RuleCheck, RuleStore, RuleTerms, StoredRule } from "./port.js";

/** A kept rule as the operator sees it, with whether the gateway can answer by it. */
export interface RuleView {
  readonly jws: string;
  readonly claims: RuleTerms;
  /** cnf.jkt names the key this gateway answers with for the host (decide.ts). */
  readonly answerable: boolean;
}

const invalid = (message: string, details?: Record<string, unknown>): BookingRefusal =>
  refuse("invalid_request", "invalid_request", message, details === undefined ? {} : { details });

function storeOf(deps: BookingDeps): Result<RuleStore, BookingRefusal> {
  return deps.rules === undefined
    ? err(refuse("unsupported", "unsupported", "this gateway keeps no rules"))
    : ok(deps.rules);
}

function checkOf(deps: BookingDeps): Result<RuleCheck, BookingRefusal> {
  return deps.ruleCheck === undefined
    ? err(refuse("unsupported", "unsupported", "this gateway keeps no rules"))
    : ok(deps.ruleCheck);
}

function viewOf(key: string | undefined, r: StoredRule): RuleView {
  return { jws: r.jws, claims: r.claims, answerable: key !== undefined && r.claims.cnf.jkt === key };
}

export async function addRule(
  deps: BookingDeps,
  hostId: string,
  jws: unknown,
): Promise<Result<{ readonly rule: RuleView; readonly replaced: boolean }, BookingRefusal>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const store = storeOf(deps);
  if (!store.ok) return store;
  const owner = host.config.owner;
  if (host.config.kind !== "person" || owner === undefined)
    return err(invalid("only a person's calendar keeps rules (SchCP §7.7, §7.9)"));
  if (typeof jws !== "string" || jws.length > 16_384)
    return err(invalid("rule must be a compact JWS string (schcp-rule+jwt)", { field: "/rule" }));
  const check = checkOf(deps);
  if (!check.ok) return check;
  const now = deps.clock.now();
  const verified = await check.value.verify(jws, Math.floor(now / 1000));
  if (!verified.ok)
    return err(invalid(verified.error.message, { field: "/rule", problem: verified.error.code }));
  const claims = verified.value.claims;
  if (claims.iss !== owner)
    return err(
      invalid("the rule is not signed by this calendar's owner", {
        field: "/rule",
        problem: "rule_not_owners",
      }),
    );
  const stored: StoredRule = verified.value;
  const added = await store.value.add(hostId, stored, now);
  if (added === "full")
    return err(
      refuse(
        "invalid_request",
        "invalid_request",
        `a calendar keeps at most ${MAX_RULES_PER_HOST} rules; remove one first`,
      ),
    );
  return ok({ rule: viewOf(answeringKey(host), stored), replaced: added === "replaced" });
}

export async function listRules(
  deps: BookingDeps,
  hostId: string,
): Promise<Result<readonly RuleView[], BookingRefusal>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const store = storeOf(deps);
  if (!store.ok) return store;
  const key = answeringKey(host);
  return ok((await store.value.list(hostId, deps.clock.now())).map((r) => viewOf(key, r)));
}

export async function removeRule(
  deps: BookingDeps,
  hostId: string,
  jti: string,
): Promise<Result<true, BookingRefusal>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const store = storeOf(deps);
  if (!store.ok) return store;
  return (await store.value.remove(hostId, jti)) ? ok(true) : err(notFound("rule"));
}
