/**
 * SchCP §7.9 rules: verifyRule (typ, closed claims, tz with weekdays, signature, self-certifying
 * iss, exp) and ruleCovers (in force with the §5.12 iat skew, services, weekdays in tz,
 * organizers; absent fields do not narrow).
 */
import { describe, expect, it } from "vitest";
import { generateEd25519KeyPair, jwkThumbprint, principalUrn } from "../../../../src/protocol/jose/jwk.js";
import { signCompactJws } from "../../../../src/protocol/jose/jws.js";
import { ruleCovers, verifyRule } from "../../../../src/protocol/schcp/rule/index.js";
import type { RuleClaims } from "../../../../src/protocol/schcp/types.js";

const NOW = 1_792_000_000;
const person = generateEd25519KeyPair();
const other = generateEd25519KeyPair();
const agent = generateEd25519KeyPair();
const issOf = (k: { publicJwk: { kty: string; crv: string; x: string } }): string =>
  principalUrn(jwkThumbprint(k.publicJwk));

function claims(over: Partial<RuleClaims> = {}): RuleClaims {
  return {
    iss: issOf(person),
    principal_jwk: person.publicJwk,
    iat: NOW - 10,
    exp: NOW + 86_400,
    jti: "r-weekend",
    cnf: { jkt: jwkThumbprint(agent.publicJwk) },
    label: "Weekend playdates with my contacts",
    ...over,
  };
}

function sign(
  payload: object,
  header: Record<string, unknown> = { typ: "schcp-rule+jwt" },
  key = person.privateKey,
): Promise<string> {
  return signCompactJws(header, payload as Record<string, unknown>, key);
}

describe("verifyRule (§7.9)", () => {
  it("accepts a rule signed by its principal_jwk and returns its claims and exact bytes", async () => {
    const jws = await sign({
      ...claims(),
      services: ["playdate"],
      weekdays: ["sat", "sun"],
      tz: "America/Toronto",
    });
    const r = await verifyRule(jws, { now: NOW });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.jws).toBe(jws);
    expect(r.value.claims.label).toBe("Weekend playdates with my contacts");
    expect(r.value.claims.weekdays).toEqual(["sat", "sun"]);
  });

  it("refuses what is not a compact JWS", async () => {
    for (const bad of ["", "a.b", "not a jws at all"]) {
      const r = await verifyRule(bad);
      expect(r.ok ? "ok" : r.error.code).toBe("rule_malformed");
    }
  });

  it("refuses another typ (a mandate is not a rule)", async () => {
    const r = await verifyRule(await sign(claims(), { typ: "schcp-mandate+jwt" }));
    expect(r.ok ? "ok" : r.error.code).toBe("rule_typ");
    const none = await verifyRule(await sign(claims(), {}));
    expect(none.ok ? "ok" : none.error.code).toBe("rule_typ");
  });

  it("refuses a second key in the header", async () => {
    const r = await verifyRule(await sign(claims(), { typ: "schcp-rule+jwt", jwk: other.publicJwk }));
    expect(r.ok ? "ok" : r.error.code).toBe("rule_malformed");
  });

  it("refuses claims outside the closed RuleClaims shape", async () => {
    const extra = await verifyRule(await sign({ ...claims(), max_price: "10.00" }));
    expect(extra.ok ? "ok" : extra.error.code).toBe("rule_claims");
    const { label: _label, ...noLabel } = claims();
    const missing = await verifyRule(await sign(noLabel));
    expect(missing.ok ? "ok" : missing.error.code).toBe("rule_claims");
    const badDay = await verifyRule(await sign({ ...claims(), weekdays: ["saturday"], tz: "UTC" }));
    expect(badDay.ok ? "ok" : badDay.error.code).toBe("rule_claims");
  });

  it("requires tz when weekdays are stated", async () => {
    const r = await verifyRule(await sign({ ...claims(), weekdays: ["sat"] }));
    expect(r.ok ? "ok" : r.error.code).toBe("rule_claims");
  });

  it("refuses a zone that is not one", async () => {
    const r = await verifyRule(await sign({ ...claims(), weekdays: ["sat"], tz: "Mars/Olympus_Mons" }));
    expect(r.ok).toBe(false);
  });

  it("refuses a signature by another key than principal_jwk", async () => {
    const r = await verifyRule(await sign(claims(), undefined, other.privateKey));
    expect(r.ok ? "ok" : r.error.code).toBe("rule_signature");
  });

  it("refuses an iss that is not principal_jwk's principal", async () => {
    const r = await verifyRule(await sign(claims({ iss: issOf(other) })));
    expect(r.ok ? "ok" : r.error.code).toBe("rule_issuer");
  });

  it("refuses a private key in principal_jwk", async () => {
    const jwk = { ...person.publicJwk, d: "AAAA" } as unknown as RuleClaims["principal_jwk"];
    const r = await verifyRule(await sign(claims({ principal_jwk: jwk })));
    expect(r.ok).toBe(false);
  });

  it("refuses an expired rule when a clock is given (no skew on exp), not without one", async () => {
    const jws = await sign(claims({ exp: NOW }));
    const at = await verifyRule(jws, { now: NOW });
    expect(at.ok ? "ok" : at.error.code).toBe("rule_expired");
    expect((await verifyRule(jws, { now: NOW - 1 })).ok).toBe(true);
    expect((await verifyRule(jws)).ok).toBe(true);
  });

  it("refuses exp not after iat", async () => {
    const r = await verifyRule(await sign(claims({ iat: NOW, exp: NOW })));
    expect(r.ok ? "ok" : r.error.code).toBe("rule_claims");
  });
});

describe("ruleCovers (§7.9)", () => {
  const use = { at: NOW, serviceId: "playdate", start: "2026-10-17T12:00:00-04:00" }; // a Saturday

  it("a rule stating nothing but its time covers any use while in force", () => {
    expect(ruleCovers(claims(), use)).toBe(true);
    expect(ruleCovers(claims(), { ...use, serviceId: "coffee", organizer: issOf(other) })).toBe(true);
  });

  it("is in force from iat − 60 s (the §5.12 skew) up to, not including, exp", () => {
    const r = claims({ iat: NOW, exp: NOW + 100 });
    expect(ruleCovers(r, { ...use, at: NOW - 60 })).toBe(true);
    expect(ruleCovers(r, { ...use, at: NOW - 61 })).toBe(false);
    expect(ruleCovers(r, { ...use, at: NOW + 99 })).toBe(true);
    expect(ruleCovers(r, { ...use, at: NOW + 100 })).toBe(false);
  });

  it("services narrow to the services listed", () => {
    const r = claims({ services: ["playdate"] });
    expect(ruleCovers(r, use)).toBe(true);
    expect(ruleCovers(r, { ...use, serviceId: "coffee" })).toBe(false);
  });

  it("weekdays are read in the rule's tz, not the start's offset", () => {
    const r = claims({ weekdays: ["sat"], tz: "America/Toronto" });
    expect(ruleCovers(r, use)).toBe(true);
    // Saturday 23:30 in Toronto is Sunday in UTC: still Saturday for the rule.
    expect(ruleCovers(r, { ...use, start: "2026-10-18T03:30:00Z" })).toBe(true);
    // Sunday 01:00 in Tokyo's offset is Saturday 12:00 in Toronto.
    expect(ruleCovers(r, { ...use, start: "2026-10-18T01:00:00+09:00" })).toBe(true);
    // Sunday in Toronto.
    expect(ruleCovers(r, { ...use, start: "2026-10-18T12:00:00-04:00" })).toBe(false);
    const tokyo = claims({ weekdays: ["sun"], tz: "Asia/Tokyo" });
    expect(ruleCovers(tokyo, { ...use, start: "2026-10-17T12:00:00-04:00" })).toBe(true);
  });

  it("a start that does not parse covers nothing under weekdays", () => {
    const r = claims({ weekdays: ["sat"], tz: "America/Toronto" });
    expect(ruleCovers(r, { ...use, start: "2026-10-17T12:00:00" })).toBe(false);
  });

  it("organizers narrow to those principals; an unknown organizer is not covered", () => {
    const r = claims({ organizers: [issOf(other)] });
    expect(ruleCovers(r, { ...use, organizer: issOf(other) })).toBe(true);
    expect(ruleCovers(r, { ...use, organizer: issOf(agent) })).toBe(false);
    expect(ruleCovers(r, use)).toBe(false);
  });

  it("every stated field must match at once", () => {
    const r = claims({
      services: ["playdate"],
      weekdays: ["sat", "sun"],
      tz: "America/Toronto",
      organizers: [issOf(other)],
    });
    const all = { ...use, organizer: issOf(other) };
    expect(ruleCovers(r, all)).toBe(true);
    expect(ruleCovers(r, { ...all, serviceId: "coffee" })).toBe(false);
    expect(ruleCovers(r, { ...all, start: "2026-10-19T12:00:00-04:00" })).toBe(false);
    expect(ruleCovers(r, { ...all, organizer: issOf(person) })).toBe(false);
  });
});
