import { describe, expect, it } from "vitest";
import {
  acceptanceContext,
  contractSha256,
  verifyAcceptance,
} from "../../../../src/protocol/schcp/meeting/index.js";
import type { AcceptanceContext } from "../../../../src/protocol/schcp/meeting/index.js";
import type { MeetingMember, RuleClaims } from "../../../../src/protocol/schcp/types.js";
import {
  ELLIS_ACCEPT_STATEMENT,
  IAT,
  NOW_MS,
  ellis,
  noor,
  person,
  playdate,
  priya,
  signAcceptanceClaims,
  signContract,
  signRuleClaims,
} from "./support.js";

const contractJws = await signContract(playdate());
const HASH = contractSha256(contractJws);
const ellisMember = playdate().members[1] as MeetingMember;
/** Ellis's calendar agent: the key his rule names. */
const agent = person();
const ACCEPT_IAT = IAT + 300;

const ctx: AcceptanceContext = {
  termsSha256: HASH,
  termsIat: IAT,
  member: ellis.principal,
  allowRule: true,
  serviceId: "playdate",
  start: "2026-10-17T12:00:00-04:00",
  organizer: noor.principal,
  now: NOW_MS,
};

function byPerson(extra: Record<string, unknown> = {}) {
  return {
    iss: ellis.principal,
    iat: ACCEPT_IAT,
    terms_sha256: HASH,
    meeting_id: "mtg_playdate",
    by: "person",
    statement: ELLIS_ACCEPT_STATEMENT,
    jwk: ellis.publicJwk,
    ...extra,
  };
}

function ruleClaims(extra: Partial<RuleClaims> = {}): RuleClaims {
  return {
    iss: ellis.principal,
    principal_jwk: ellis.publicJwk,
    iat: IAT - 86400,
    exp: IAT + 86400 * 30,
    jti: "r-weekends",
    cnf: { jkt: agent.thumbprint },
    label: "Weekend playdates with my contacts",
    services: ["playdate"],
    weekdays: ["sat", "sun"],
    tz: "America/Toronto",
    ...extra,
  };
}

async function byRule(
  rule: object = ruleClaims(),
  extra: Record<string, unknown> = {},
  ruleKey = ellis.privateKey,
) {
  return {
    iss: ellis.principal,
    iat: ACCEPT_IAT,
    terms_sha256: HASH,
    meeting_id: "mtg_playdate",
    by: "rule",
    jwk: agent.publicJwk,
    rule: await signRuleClaims(rule, ruleKey),
    ...extra,
  };
}

async function check(claims: object, key = ellis.privateKey, c: AcceptanceContext = ctx) {
  return verifyAcceptance(await signAcceptanceClaims(claims, key), c);
}

async function refusal(claims: object, key = ellis.privateKey, c: AcceptanceContext = ctx) {
  const r = await check(claims, key, c);
  if (r.ok) throw new Error("expected a refusal");
  return r.error;
}

describe("verifyAcceptance (SchCP §5.12 Acceptances)", () => {
  it("accepts the member's own yes (by: person)", async () => {
    const jws = await signAcceptanceClaims(byPerson(), ellis.privateKey);
    const r = await verifyAcceptance(jws, ctx);
    expect(r.ok ? { by: r.value.by, label: r.value.ruleLabel, jws: r.value.jws } : r.error).toEqual({
      by: "person",
      label: undefined,
      jws,
    });
  });

  it("accepts a yes by rule, naming the rule's label", async () => {
    const r = await check(await byRule(), agent.privateKey);
    expect(r.ok ? { by: r.value.by, label: r.value.ruleLabel } : r.error).toEqual({
      by: "rule",
      label: "Weekend playdates with my contacts",
    });
  });

  describe("typ schcp-acceptance+jwt, closed claims (acceptance_invalid)", () => {
    it("refuses another typ", async () => {
      const jws = await signAcceptanceClaims(byPerson(), ellis.privateKey, {
        alg: "EdDSA",
        typ: "schcp-meeting+jwt",
      });
      const r = await verifyAcceptance(jws, ctx);
      expect(r.ok ? null : r.error).toMatchObject({ reason: "acceptance_invalid", field: "/header/typ" });
    });

    it("refuses a key in the header", async () => {
      const jws = await signAcceptanceClaims(byPerson(), ellis.privateKey, {
        alg: "EdDSA",
        typ: "schcp-acceptance+jwt",
        jwk: ellis.publicJwk,
      });
      expect((await verifyAcceptance(jws, ctx)).ok).toBe(false);
    });

    it("refuses an unknown claim", async () => {
      const e = await refusal(byPerson({ note: "yes!" }));
      expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/payload/note" });
    });

    it("refuses by: person carrying a rule, and by: rule without one", async () => {
      const withRule = byPerson({ rule: (await byRule()).rule });
      expect((await refusal(withRule)).reason).toBe("acceptance_invalid");
      const { rule: _dropped, ...noRule } = await byRule();
      expect((await refusal(noRule, agent.privateKey)).reason).toBe("acceptance_invalid");
    });

    it("refuses another by", async () => {
      expect((await refusal(byPerson({ by: "host" }))).reason).toBe("acceptance_invalid");
    });

    it("refuses what is not a JWS", async () => {
      const r = await verifyAcceptance("not-a-jws", ctx);
      expect(r.ok ? null : r.error.reason).toBe("acceptance_invalid");
    });
  });

  it("the signature verifies with jwk", async () => {
    const e = await refusal(byPerson(), priya.privateKey);
    expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/signature" });
  });

  it("iss is the member's principal", async () => {
    const e = await refusal(byPerson({ iss: priya.principal, jwk: priya.publicJwk }), priya.privateKey);
    expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/payload/iss" });
  });

  it("terms_sha256 is the contract's current hash (an earlier revision's is acceptance_invalid)", async () => {
    const earlier = contractSha256(await signContract({ ...playdate(), revision: 2 }));
    const e = await refusal(byPerson({ terms_sha256: earlier }));
    expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/payload/terms_sha256" });
  });

  describe("terms − 60 ≤ iat ≤ now + 60", () => {
    it("accepts iat 60 s before the terms, refuses 61", async () => {
      expect((await check(byPerson({ iat: IAT - 60 }))).ok).toBe(true);
      const e = await refusal(byPerson({ iat: IAT - 61 }));
      expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/payload/iat" });
    });

    it("accepts iat 60 s after now, refuses 61", async () => {
      const nowSec = NOW_MS / 1000;
      expect((await check(byPerson({ iat: nowSec + 60 }))).ok).toBe(true);
      const e = await refusal(byPerson({ iat: nowSec + 61 }));
      expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/payload/iat" });
    });
  });

  it("meeting_id is informative and not compared", async () => {
    expect((await check(byPerson({ meeting_id: "mtg_other" }))).ok).toBe(true);
    const { meeting_id: _m, ...without } = byPerson();
    expect((await check(without)).ok).toBe(true);
  });

  it('by: "person": jwk is the member\'s own key', async () => {
    // The calendar agent signs as if it were Ellis, with its own key: not his yes.
    const e = await refusal(byPerson({ jwk: agent.publicJwk }), agent.privateKey);
    expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/payload/jwk" });
  });

  describe('by: "rule"', () => {
    it("is person_required where the contract does not allow rules", async () => {
      const e = await refusal(await byRule(), agent.privateKey, { ...ctx, allowRule: false });
      expect(e).toMatchObject({ reason: "person_required", field: "/payload/by" });
    });

    it("refuses a rule that does not verify (bad signature, wrong typ, bad shape)", async () => {
      const forged = await byRule(ruleClaims(), {}, priya.privateKey);
      expect(await refusal(forged, agent.privateKey)).toMatchObject({
        reason: "acceptance_invalid",
        field: "/payload/rule",
      });
      const wrongTyp = await byRule(ruleClaims());
      wrongTyp.rule = await signRuleClaims(ruleClaims(), ellis.privateKey, {
        alg: "EdDSA",
        typ: "schcp-mandate+jwt",
      });
      expect((await refusal(wrongTyp, agent.privateKey)).reason).toBe("acceptance_invalid");
      const { tz: _tz, ...noTz } = ruleClaims();
      expect((await refusal(await byRule(noTz), agent.privateKey)).reason).toBe("acceptance_invalid");
    });

    it("the rule is one the same person signed", async () => {
      const priyas = ruleClaims({ iss: priya.principal, principal_jwk: priya.publicJwk });
      const e = await refusal(await byRule(priyas, {}, priya.privateKey), agent.privateKey);
      expect(e.message).toMatch(/not signed by the accepting member/);
    });

    it("names jwk as the agent key that may answer (cnf.jkt)", async () => {
      const other = person();
      const e = await refusal(await byRule(ruleClaims(), { jwk: other.publicJwk }), other.privateKey);
      expect(e).toMatchObject({ reason: "acceptance_invalid", field: "/payload/jwk" });
    });

    it("was in force at the acceptance's iat: rule.iat − 60 ≤ iat", async () => {
      const ok60 = await byRule(ruleClaims({ iat: ACCEPT_IAT + 60 }));
      expect((await check(ok60, agent.privateKey)).ok).toBe(true);
      const late = await byRule(ruleClaims({ iat: ACCEPT_IAT + 61 }));
      expect((await refusal(late, agent.privateKey)).message).toMatch(/not in force/);
    });

    it("was in force at the acceptance's iat: iat < rule.exp (no skew)", async () => {
      const expired = await byRule(ruleClaims({ exp: ACCEPT_IAT }));
      expect((await refusal(expired, agent.privateKey)).message).toMatch(/not in force/);
      expect((await check(await byRule(ruleClaims({ exp: ACCEPT_IAT + 1 })), agent.privateKey)).ok).toBe(
        true,
      );
    });

    it("a rule that expired since is judged when it was used", async () => {
      const r = await check(await byRule(ruleClaims({ exp: ACCEPT_IAT + 1 })), agent.privateKey, {
        ...ctx,
        now: (ACCEPT_IAT + 86400) * 1000,
      });
      expect(r.ok).toBe(true);
    });

    it("covers the member's service", async () => {
      const e = await refusal(await byRule(ruleClaims({ services: ["coffee"] })), agent.privateKey);
      expect(e.message).toMatch(/does not cover/);
    });

    it("covers the start's weekday in the rule's zone", async () => {
      // Saturday 00:30 in Toronto is still Friday in Vancouver.
      const early = { ...ctx, start: "2026-10-17T00:30:00-04:00" };
      expect((await check(await byRule(), agent.privateKey, early)).ok).toBe(true);
      const west = await byRule(ruleClaims({ tz: "America/Vancouver" }));
      expect((await refusal(west, agent.privateKey, early)).message).toMatch(/does not cover/);
      const weekdays = await byRule(ruleClaims({ weekdays: ["mon", "tue"] }));
      expect((await refusal(weekdays, agent.privateKey)).reason).toBe("acceptance_invalid");
    });

    it("covers the organizer", async () => {
      const forNoor = await byRule(ruleClaims({ organizers: [noor.principal] }));
      expect((await check(forNoor, agent.privateKey)).ok).toBe(true);
      const forPriya = await byRule(ruleClaims({ organizers: [priya.principal] }));
      expect((await refusal(forPriya, agent.privateKey)).message).toMatch(/does not cover/);
    });
  });
});

describe("acceptanceContext (SchCP §5.12)", () => {
  it("takes the hash, iat, start, organizer and service from the contract, allowRule from answers", () => {
    const claims = playdate();
    const contract = { claims, sha256: HASH };
    expect(acceptanceContext(contract, ellisMember, NOW_MS)).toEqual(ctx);
    const inPerson = { ...ellisMember, answers: "person" as const };
    expect(acceptanceContext(contract, inPerson, NOW_MS).allowRule).toBe(false);
  });
});
