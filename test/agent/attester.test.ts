/** The agent SDK's Attester (SchCP §7.5) and KeyApp's attestations (§3.3 root mandates, at most four). */
import { describe, expect, it } from "vitest";
import { Attester, KeyApp, createAgentKey } from "../../src/agent/index.js";
import { decodeCompactJws } from "../../src/protocol/jose/index.js";
import { checkAttestation } from "../../src/protocol/schcp/attestation/index.js";
import { validateSchcp } from "../../src/protocol/schcp/validate.js";

const NOW_MS = 1_792_000_000_000;
const clock = { now: () => NOW_MS };

describe("Attester (§7.5)", () => {
  it("signs {iss, sub, iat, exp, assurance} as a compact JWS, typ schcp-attestation+jwt, EdDSA, with its kid", async () => {
    const attester = new Attester({ id: "phonecheck.example", kid: "pc-1", clock });
    const principal = new KeyApp({ principalKey: createAgentKey() }).principal;
    const att = await attester.attest({ principal, assurance: "unique_phone", ttlSec: 600 });
    const decoded = decodeCompactJws(att, "");
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(decoded.value.header).toEqual({ alg: "EdDSA", typ: "schcp-attestation+jwt", kid: "pc-1" });
    expect(decoded.value.payload).toEqual({
      iss: "phonecheck.example",
      sub: principal,
      iat: NOW_MS / 1000,
      exp: NOW_MS / 1000 + 600,
      assurance: "unique_phone",
    });
    expect(validateSchcp("AttestationClaims", decoded.value.payload).ok).toBe(true);
    // trustEntry() is what a host lists, and a host listing it honours the attestation.
    const entry = attester.trustEntry("PhoneCheck");
    expect(entry).toEqual({
      id: "phonecheck.example",
      name: "PhoneCheck",
      keys: [{ ...attester.key.publicJwk, kid: "pc-1" }],
    });
    const trusted = [{ id: entry.id, keys: [attester.key.publicJwk] }];
    expect(await checkAttestation(att, { principal, trusted, nowSec: NOW_MS / 1000 })).toMatchObject({
      honoured: true,
    });
  });
});

describe("KeyApp attestations (§3.3)", () => {
  const principalKey = createAgentKey();
  const agent = createAgentKey();

  it("carries the key app's attestations in every root mandate, and a request's own instead", async () => {
    const attester = new Attester({ id: "phonecheck.example", clock });
    const app = new KeyApp({ principalKey, clock });
    const att = await attester.attest({ principal: app.principal, assurance: "unique_phone" });
    const withIt = new KeyApp({ principalKey, clock, attestations: [att] });
    const m = await withIt.issueMandate({ agent, audience: "maple-street-auto", scope: ["hold"] });
    expect(m.claims.attestations).toEqual([att]);
    const without = await withIt.issueMandate({
      agent,
      audience: "maple-street-auto",
      scope: ["hold"],
      attestations: [],
    });
    expect(without.claims.attestations).toBeUndefined();
    const decoded = decodeCompactJws(m.compact, "");
    expect(decoded.ok && validateSchcp("MandateClaims", decoded.value.payload).ok).toBe(true);
  });

  it("refuses more than four (root mandates only, at most four)", async () => {
    const five = Array.from({ length: 5 }, () => "a.b.c");
    expect(() => new KeyApp({ principalKey, attestations: five })).toThrow(RangeError);
    const app = new KeyApp({ principalKey });
    await expect(
      app.issueMandate({ agent, audience: "maple-street-auto", scope: ["hold"], attestations: five }),
    ).rejects.toThrow(RangeError);
  });
});
