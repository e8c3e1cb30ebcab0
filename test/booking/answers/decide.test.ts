/**
 * SchCP §7.9 who says yes, in the core (src/booking/answers/decide.ts): a host_approval person's
 * calendar says yes at once to its owner (by person) or by a covering rule of its owner's whose
 * cnf.jkt is the calendar's signing key (by rule, with the label); never by rule when the person
 * must answer; a business and an instant host decide nothing here. The host's own answer is
 * by "person" at a person's calendar and by "host" at a business.
 */
import { describe, expect, it } from "vitest";
import { answerAtOnce, hostAnswer, MemoryRuleStore } from "../../../src/booking/answers/index.js";
import type { RuleCheck, StoredRule } from "../../../src/booking/answers/index.js";
import { jwkThumbprint } from "../../../src/protocol/jose/index.js";
import { ruleCovers } from "../../../src/protocol/schcp/rule/index.js";
import {
  hostConfig,
  NOW,
  otherPrincipal,
  principal,
  principalOf,
  runtime,
  THU_1300,
} from "../holds/support.js";

const OWNER = principalOf(principal);
const GUEST = principalOf(otherPrincipal);
const check: RuleCheck = { verify: () => Promise.reject(new Error("unused")), covers: ruleCovers };

const person = runtime(hostConfig({ kind: "person", owner: OWNER }, { confirmation: "host_approval" }));
const jkt = jwkThumbprint(person.keys[0]!.publicJwk);

function rule(over: Partial<StoredRule["claims"]> = {}): StoredRule {
  return {
    jws: "h.p.s",
    claims: {
      iss: OWNER,
      iat: NOW / 1000 - 60,
      exp: NOW / 1000 + 86_400,
      jti: "r-1",
      cnf: { jkt },
      label: "Oil changes on Thursdays",
      services: ["oil-change"],
      weekdays: ["thu"],
      tz: "America/Toronto",
      ...over,
    },
  };
}

async function withRules(...rules: StoredRule[]): Promise<MemoryRuleStore> {
  const store = new MemoryRuleStore();
  for (const r of rules) await store.add(person.config.id, r, NOW);
  return store;
}

const q = { principal: GUEST, serviceId: "oil-change", start: THU_1300, personRequired: false, now: NOW };

describe("answerAtOnce (§7.9)", () => {
  it("the owner's own booking: by person, even when the person must answer and without rules", async () => {
    expect(await answerAtOnce(person, {}, { ...q, principal: OWNER })).toEqual({ by: "person", at: NOW });
    expect(await answerAtOnce(person, {}, { ...q, principal: OWNER, personRequired: true })).toEqual({
      by: "person",
      at: NOW,
    });
  });

  it("a covering rule of the owner's: by rule with its label", async () => {
    const store = await withRules(rule());
    expect(await answerAtOnce(person, { store, check }, q)).toEqual({
      by: "rule",
      rule: "Oil changes on Thursdays",
      at: NOW,
    });
  });

  it("answers: person: never by rule", async () => {
    const store = await withRules(rule());
    expect(await answerAtOnce(person, { store, check }, { ...q, personRequired: true })).toBeUndefined();
  });

  it("a rule that does not cover, is not the owner's, or names another agent key: the person is asked", async () => {
    const store = await withRules(rule());
    expect(await answerAtOnce(person, { store, check }, { ...q, serviceId: "tires" })).toBeUndefined();
    expect(
      await answerAtOnce(person, { store, check }, { ...q, start: THU_1300 + 86_400_000 }),
    ).toBeUndefined();
    const theirs = await withRules(rule({ iss: GUEST }));
    expect(await answerAtOnce(person, { store: theirs, check }, q)).toBeUndefined();
    const phone = await withRules(rule({ cnf: { jkt: "another-agent-key" } }));
    expect(await answerAtOnce(person, { store: phone, check }, q)).toBeUndefined();
    // No rule format wired in: rules answer nothing.
    expect(await answerAtOnce(person, { store }, q)).toBeUndefined();
  });

  it("an instant host or a business decides nothing here", async () => {
    const store = await withRules(rule());
    const instant = runtime(hostConfig({ kind: "person", owner: OWNER }, { confirmation: "instant" }));
    expect(await answerAtOnce(instant, { store, check }, { ...q, principal: OWNER })).toBeUndefined();
    const business = runtime(hostConfig({}, { confirmation: "host_approval" }));
    expect(await answerAtOnce(business, { store, check }, q)).toBeUndefined();
  });
});

describe("hostAnswer (§7.9)", () => {
  it("is by person at a person's calendar and by host at a business", () => {
    expect(hostAnswer(person, NOW)).toEqual({ by: "person", at: NOW });
    expect(hostAnswer(runtime(), NOW)).toEqual({ by: "host", at: NOW });
  });
});
