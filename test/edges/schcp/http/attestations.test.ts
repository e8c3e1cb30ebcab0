/**
 * SchCP §7.5 attestations at the edge: the host honours one only if iss is listed in its
 * trust.attesters, the signature verifies against that attester's keys, sub equals the
 * mandate's principal and iat ≤ now < exp; "anything else is ignored, never rejected". Each
 * ignore case shows both halves: the mandate is still accepted, and the caller gets no attester.
 * Attestations are read from the root mandate only (§3.3).
 */
import { describe, expect, it } from "vitest";
import type { HostRuntime } from "../../../../src/booking/api.js";
import { resolveCaller } from "../../../../src/edges/schcp/http/auth.js";
import { generateEd25519KeyPair } from "../../../../src/protocol/jose/jwk.js";
import type { VerifiedRequest } from "../../../../src/protocol/http-signatures/index.js";
import {
  ATTESTATION_TYP,
  checkAttestation,
  signAttestation,
} from "../../../../src/protocol/schcp/attestation/index.js";
import type { IgnoredReason } from "../../../../src/protocol/schcp/attestation/index.js";
import {
  HOST,
  NOW,
  agent,
  forgeRaw,
  b64u,
  issOf,
  issueChild,
  issueRoot,
  otherPrincipal,
  principal,
  subAgent,
  thumb,
} from "../../../protocol/schcp/mandate/helpers.js";

const ATTESTER = "phonecheck.example";
const attesterKey = generateEd25519KeyPair();
const oldAttesterKey = generateEd25519KeyPair();
const otherAttesterKey = generateEd25519KeyPair();

function host(trusted = true): HostRuntime {
  const trust = {
    attesters: [
      { id: ATTESTER, name: "PhoneCheck", keys: [oldAttesterKey.publicJwk, attesterKey.publicJwk] },
      { id: "idcheck.example", keys: [otherAttesterKey.publicJwk] },
    ],
  };
  return {
    config: {
      id: HOST,
      policies: { allowWildcardAudience: false },
      ...(trusted && { trust }),
    },
  } as unknown as HostRuntime;
}

const claims = (over: Record<string, unknown> = {}) => ({
  iss: ATTESTER,
  sub: issOf(principal),
  iat: NOW - 60,
  exp: NOW + 86_400,
  assurance: "unique_phone",
  ...over,
});

const attest = (over: Record<string, unknown> = {}, key = attesterKey) =>
  signAttestation(claims(over), key.privateKey);

function request(mandate: string, keyid = thumb(agent)): VerifiedRequest {
  return { keyid, agentJwk: agent.publicJwk, created: NOW, nonce: "n", mandate };
}

async function callerFor(mandate: string, opts: { keyid?: string; trusted?: boolean } = {}) {
  const r = await resolveCaller(request(mandate, opts.keyid), host(opts.trusted), NOW * 1000, true);
  expect(r.ok, r.ok ? "" : JSON.stringify(r.error)).toBe(true);
  if (!r.ok) throw new Error("the mandate was refused");
  return r.value;
}

const ctx = { principal: issOf(principal), nowSec: NOW, trusted: host().config.trust!.attesters };

describe("§7.5 an honoured attestation sets the caller's attester", () => {
  it("a listed attester's attestation about this principal, valid now, is honoured", async () => {
    const caller = await callerFor(await issueRoot({ attestations: [await attest()] }));
    expect(caller.attester).toBe(ATTESTER);
    expect(caller.mandate?.principal).toBe(issOf(principal));
  });

  it("any of the attester's listed keys verifies it (key rotation)", async () => {
    const att = await attest({}, oldAttesterKey);
    expect((await callerFor(await issueRoot({ attestations: [att] }))).attester).toBe(ATTESTER);
  });

  it("the first honoured attestation of the root is the one used; ignored ones before it are skipped", async () => {
    const bad = await attest({ sub: issOf(otherPrincipal) });
    const second = await signAttestation(claims({ iss: "idcheck.example" }), otherAttesterKey.privateKey);
    const third = await attest();
    const caller = await callerFor(await issueRoot({ attestations: [bad, second, third] }));
    expect(caller.attester).toBe("idcheck.example");
  });

  it("iat equal to now is honoured (iat ≤ now), and exp one second ahead too", async () => {
    const att = await attest({ iat: NOW, exp: NOW + 1 });
    expect((await callerFor(await issueRoot({ attestations: [att] }))).attester).toBe(ATTESTER);
  });
});

interface IgnoreRow {
  readonly name: string;
  readonly reason: IgnoredReason;
  readonly attestation: () => Promise<string>;
}

/** Every way an attestation fails §7.5's conditions: ignored, the mandate still accepted. */
const ignoredRows: IgnoreRow[] = [
  {
    name: "an iss not listed in the host's trust.attesters",
    reason: "untrusted_attester",
    attestation: () => attest({ iss: "cheapcheck.example" }),
  },
  {
    name: "a signature that does not verify against the attester's keys",
    reason: "bad_signature",
    attestation: () => attest({}, generateEd25519KeyPair()),
  },
  {
    name: "a signature by another trusted attester's key (keys are per attester)",
    reason: "bad_signature",
    attestation: () => attest({}, otherAttesterKey),
  },
  {
    name: "a sub that is not the mandate's principal",
    reason: "wrong_subject",
    attestation: () => attest({ sub: issOf(otherPrincipal) }),
  },
  {
    name: "an expired one (now ≥ exp, no skew)",
    reason: "expired",
    attestation: () => attest({ iat: NOW - 100, exp: NOW }),
  },
  {
    name: "one not yet valid (iat > now, no skew)",
    reason: "not_yet_valid",
    attestation: () => attest({ iat: NOW + 1 }),
  },
  {
    name: "a wrong typ (a mandate's)",
    reason: "wrong_typ",
    attestation: () =>
      signAttestation(claims(), attesterKey.privateKey, {
        header: { alg: "EdDSA", typ: "schcp-mandate+jwt" },
      }),
  },
  {
    name: "no typ at all",
    reason: "wrong_typ",
    attestation: () => signAttestation(claims(), attesterKey.privateKey, { header: { alg: "EdDSA" } }),
  },
  {
    name: "a non-EdDSA alg (ES256 in the header)",
    reason: "not_a_jws",
    attestation: () =>
      forgeRaw(
        JSON.stringify({ alg: "ES256", typ: ATTESTATION_TYP }),
        new TextEncoder().encode(JSON.stringify(claims())),
        attesterKey,
      ),
  },
  {
    name: 'alg "none" (with a signature segment, so the mandate schema\'s CompactJws pattern holds)',
    reason: "not_a_jws",
    attestation: () =>
      Promise.resolve(
        `${b64u(JSON.stringify({ alg: "none", typ: ATTESTATION_TYP }))}.${b64u(JSON.stringify(claims()))}.${b64u("x".repeat(64))}`,
      ),
  },
  {
    name: "claims failing the AttestationClaims schema (no assurance)",
    reason: "invalid_claims",
    attestation: () => attest({ assurance: undefined }),
  },
];

describe("§7.5 anything else is ignored, never rejected", () => {
  it.each(ignoredRows)("$name: the mandate is accepted and the caller gets no attester", async (row) => {
    const att = await row.attestation();
    expect(await checkAttestation(att, ctx)).toEqual({ honoured: false, reason: row.reason });
    const caller = await callerFor(await issueRoot({ attestations: [att] }));
    expect(caller.mandate).toBeDefined();
    expect(caller.attester).toBeUndefined();
  });

  it("a host that trusts no attester honours none (behaves as in v0.1)", async () => {
    const caller = await callerFor(await issueRoot({ attestations: [await attest()] }), { trusted: false });
    expect(caller.mandate).toBeDefined();
    expect(caller.attester).toBeUndefined();
  });

  it("§3.3 on a child link: a valid attestation there is ignored (read from the root only), the chain accepted", async () => {
    const att = await attest();
    const child = await issueChild({ attestations: [att] });
    const caller = await callerFor(child, { keyid: thumb(subAgent) });
    expect(caller.mandate?.links).toHaveLength(2);
    expect(caller.attester).toBeUndefined();
  });

  it("§3.3 a root's attestation still counts under a child that carries none", async () => {
    const root = await issueRoot({ attestations: [await attest()] });
    const caller = await callerFor(await issueChild({}, root), { keyid: thumb(subAgent) });
    expect(caller.attester).toBe(ATTESTER);
  });
});
