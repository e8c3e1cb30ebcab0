/** The rule store in process memory: the twin of redis-store.ts, one synchronous step per call. */
import { byIat, MAX_RULES_PER_HOST, ruleLive } from "./port.js";
import type { AddRuleOutcome, RuleStore, StoredRule } from "./port.js";

export class MemoryRuleStore implements RuleStore {
  readonly #hosts = new Map<string, Map<string, StoredRule>>();

  #live(hostId: string, now: number): Map<string, StoredRule> {
    let rules = this.#hosts.get(hostId);
    if (rules === undefined) this.#hosts.set(hostId, (rules = new Map<string, StoredRule>()));
    for (const [jti, r] of rules) if (!ruleLive(r, now)) rules.delete(jti);
    return rules;
  }

  add(hostId: string, rule: StoredRule, now: number): Promise<AddRuleOutcome> {
    const rules = this.#live(hostId, now);
    const jti = rule.claims.jti;
    if (rules.has(jti)) {
      rules.set(jti, rule);
      return Promise.resolve("replaced");
    }
    if (rules.size >= MAX_RULES_PER_HOST) return Promise.resolve("full");
    rules.set(jti, rule);
    return Promise.resolve("added");
  }

  list(hostId: string, now: number): Promise<readonly StoredRule[]> {
    return Promise.resolve([...this.#live(hostId, now).values()].sort(byIat));
  }

  remove(hostId: string, jti: string): Promise<boolean> {
    return Promise.resolve(this.#hosts.get(hostId)?.delete(jti) ?? false);
  }
}
