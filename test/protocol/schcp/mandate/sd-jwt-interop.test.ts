/**
 * SchCP §3.4 against an independent SD-JWT implementation: the OpenWallet Foundation's
 * @sd-jwt/core (RFC 9901). What the SDK issues and presents, @sd-jwt/core verifies (issuer
 * signature, disclosures, KB-JWT signature and sd_hash) and reads as the same claims; what
 * @sd-jwt/core issues and presents in the §3.4 shape, verifyMandate accepts.
 *
 * It is used here only as a cross-check: its verify skips the RFC 9901 §7.1 refusals (repeated
 * digests, wrong positions, duplicate names, unreferenced disclosures), checks a KB-JWT only when
 * given the nonce to expect (SchCP's agent chooses it), and never checks the KB-JWT's aud or iat,
 * so the gateway's verifier does not rest on it (sd-jwt/disclosures.ts).
 */
import { createHash, randomBytes, sign, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { SDJwtInstance } from "@sd-jwt/core";
import { describe, expect, it } from "vitest";
import {
  ed25519PublicKeyFromJwk,
  generateEd25519KeyPair,
  jwkThumbprint,
  principalUrn,
} from "../../../../src/protocol/jose/jwk.js";
import { verifyMandate } from "../../../../src/protocol/schcp/mandate/index.js";
import {
  issueSdJwtMandate,
  presentSdJwtMandate,
} from "../../../../src/protocol/schcp/mandate/sd-jwt/index.js";
import { HOST, NOW, agent, context } from "./helpers.js";

const OTHER = "queen-west-tires";
const principal = generateEd25519KeyPair();

const signer = (key: KeyObject) => (data: string) => sign(null, Buffer.from(data), key).toString("base64url");
const verifier = (key: KeyObject) => (data: string, sig: string) =>
  verify(null, Buffer.from(data), key, Buffer.from(sig, "base64url"));

function library(): SDJwtInstance<Record<string, unknown>> {
  return new SDJwtInstance({
    hasher: (data, alg) => {
      expect(alg).toBe("sha-256");
      return new Uint8Array(
        createHash("sha256")
          .update(typeof data === "string" ? data : Buffer.from(data))
          .digest(),
      );
    },
    saltGenerator: (n) => randomBytes(n).toString("base64url"),
    signAlg: "EdDSA",
    signer: signer(principal.privateKey),
    verifier: verifier(ed25519PublicKeyFromJwk(principal.publicJwk)),
    kbSignAlg: "EdDSA",
    kbSigner: signer(agent.privateKey),
    kbVerifier: verifier(ed25519PublicKeyFromJwk(agent.publicJwk)),
  });
}

describe("§3.4 interop with @sd-jwt/core (RFC 9901)", () => {
  it("§3.4: @sd-jwt/core verifies the SDK's presentation (signature, disclosures, KB-JWT, sd_hash) and reads this host's member", async () => {
    const issued = issueSdJwtMandate(
      {
        sub: "p",
        iat: NOW - 10,
        exp: NOW + 3600,
        jti: "m-interop",
        cnfJwk: agent.publicJwk,
        scope: ["hold"],
        hosts: { [HOST]: { max_bookings: 1 }, [OTHER]: {} },
      },
      principal,
    );
    const nonce = "n-interop-0123456789";
    const presented = presentSdJwtMandate(issued.sdJwt, {
      hostId: HOST,
      agentKey: agent,
      nowSec: NOW,
      nonce,
    });
    if (!presented.ok) throw new Error(presented.error.message);
    const result = await library().verify(presented.value, { keyBindingNonce: nonce, currentDate: NOW });
    const payload = result.payload as { aud: string[]; host_constraints: Record<string, unknown> };
    expect(payload.aud).toEqual([HOST]);
    expect(payload.host_constraints).toEqual({ [HOST]: { max_bookings: 1 } });
    expect(result.kb?.payload).toMatchObject({ aud: HOST, nonce, iat: NOW });
    // The issued SD-JWT, read whole by the library: every host, decoys gone.
    const all = (await library().getClaims(issued.sdJwt)) as { aud: string[] };
    expect([...all.aud].sort()).toEqual([HOST, OTHER].sort());
  });

  it("§3.4: verifyMandate accepts an SD-JWT VC mandate issued and presented by @sd-jwt/core", async () => {
    const lib = library();
    const sdJwt = await lib.issue(
      {
        iss: principalUrn(jwkThumbprint(principal.publicJwk)),
        sub: "p",
        aud: [HOST, OTHER],
        iat: NOW - 10,
        exp: NOW + 3600,
        jti: "m-by-library",
        cnf: { jwk: agent.publicJwk },
        scope: ["hold", "book"],
        constraints: { services: ["oil-change"] },
        host_constraints: { [HOST]: { max_price: { amount: "100.00", currency: "CAD" } }, [OTHER]: {} },
      },
      { aud: { _sd: [0, 1], _sd_decoy: 2 }, host_constraints: { _sd: [HOST, OTHER], _sd_decoy: 2 } } as never,
      { header: { typ: "dc+sd-jwt", jwk: principal.publicJwk } },
    );
    const presentation = await lib.present(
      sdJwt,
      { aud: { 0: true }, host_constraints: { [HOST]: true } },
      {
        kb: { payload: { aud: HOST, nonce: "n-library-0123456789", iat: NOW } },
      },
    );
    const chain = await verifyMandate(presentation, context({ acceptSdJwt: true }));
    expect(chain.ok, chain.ok ? "" : JSON.stringify(chain.error)).toBe(true);
    if (!chain.ok) return;
    expect(chain.value.root.claims.constraints).toEqual({
      services: ["oil-change"],
      max_price: { amount: "100.00", currency: "CAD" },
    });
  });
});
