/**
 * Who says yes (SchCP §7.9), in the core's terms, for every edge.
 *
 * - hostAnswer: the host's own answer, given through the operator API or an approval link: by
 *   "host" at a business, by "person" at a person's calendar (§7.7). A no is always this too:
 *   "Rules only ever say yes."
 * - answerAtOnce: whether a host_approval host says yes without asking, and who that yes is:
 *   its owner booking their own time (§7.9 Owners: "a host_approval calendar confirms its
 *   owner's own bookings at once", by "person", since the owner is the person), or a rule its
 *   person signed that covers the booking (by "rule", with the rule's label), unless the guest
 *   asked for the person's own answer (§7.9 "A host MUST NOT then answer by rule"). Used for a
 *   new booking (confirm) and for a guest's move (§5.7 step 3) alike.
 *
 * Which agent key may answer by a rule: the rule's cnf.jkt "names the one agent key that may
 * answer by the rule". For an ordinary booking the gateway itself answers, as the calendar's
 * agent, and signs with the host's signing key (its offers and receipts, §2.1), so this reading
 * requires cnf.jkt to be the thumbprint of the host's current signing key (HostRuntime.keys[0]).
 * A rule naming any other key (the person's own phone agent, say) is kept but answers nothing
 * here.
 */
import { jwkThumbprint } from "../../protocol/jose/index.js";
import { formatInstant } from "../../protocol/time/index.js";
import type { HostRuntime } from "../api.js";
import type { BookingAnswer } from "../bookings/state.js";
import type { RuleCheck, RuleStore, StoredRule } from "./port.js";

/** The host's own yes or no (§7.9): "host" at a business, "person" at a person's calendar. */
export function hostAnswer(host: HostRuntime, at: number): BookingAnswer {
  return { by: host.config.kind === "person" ? "person" : "host", at };
}

/** The thumbprint of the key the gateway answers with for this host (its signing key). */
export function answeringKey(host: HostRuntime): string | undefined {
  const key = host.keys[0];
  return key === undefined ? undefined : jwkThumbprint(key.publicJwk);
}

export interface AnswerQuestion {
  /** The root principal of the booking's (or the move's) mandate: who is asking. */
  readonly principal: string;
  readonly serviceId: string;
  /** Epoch ms: the booking's start (or the move's new start). */
  readonly start: number;
  /** §7.9 answers: "person": the guest asked that the person answer themselves. */
  readonly personRequired: boolean;
  readonly now: number;
}

/** The rule of `rules` that covers the question, with the key the gateway answers with. */
export function coveringRule(
  host: HostRuntime,
  check: RuleCheck,
  rules: readonly StoredRule[],
  q: AnswerQuestion,
): StoredRule | undefined {
  const key = answeringKey(host);
  if (key === undefined) return undefined;
  const use = {
    at: Math.floor(q.now / 1000),
    serviceId: q.serviceId,
    start: formatInstant(q.start, host.config.timezone),
    organizer: q.principal,
  };
  return rules.find(
    (r) => r.claims.iss === host.config.owner && r.claims.cnf.jkt === key && check.covers(r.claims, use),
  );
}

/**
 * The yes a host_approval host gives without asking, or undefined when it asks its person (or
 * its business) as usual. A host that confirms instantly has nothing to decide here.
 */
export async function answerAtOnce(
  host: HostRuntime,
  rules: { readonly store?: RuleStore; readonly check?: RuleCheck },
  q: AnswerQuestion,
): Promise<BookingAnswer | undefined> {
  if (host.config.policies.confirmation !== "host_approval") return undefined;
  const owner = host.config.owner;
  if (owner === undefined) return undefined;
  // §7.9 Owners: the owner booking their own time needs nobody else's yes.
  if (q.principal === owner) return { by: "person", at: q.now };
  const { store, check } = rules;
  if (q.personRequired || store === undefined || check === undefined) return undefined;
  const rule = coveringRule(host, check, await store.list(host.config.id, q.now), q);
  return rule === undefined ? undefined : { by: "rule", rule: rule.claims.label, at: q.now };
}
