import { describe, expect, it } from "vitest";
import { decodeCompactJws } from "../../../../src/protocol/jose/jws.js";
import { delegateMandate, issueMandate } from "../../../../src/protocol/schcp/mandate/index.js";
import { agent, childClaims, issOf, principal, rootClaims, subAgent } from "./helpers.js";

function decode(compact: string) {
  const d = decodeCompactJws(compact, "m");
  if (!d.ok) throw new Error(d.error.message);
  return d.value;
}

describe("issueMandate and delegateMandate", () => {
  it("a root gets iss from the principal key's thumbprint, principal_jwk, and the mandate header", async () => {
    const d = decode(await issueMandate(rootClaims(), principal));
    expect(d.header).toEqual({ alg: "EdDSA", typ: "schcp-mandate+jwt" });
    expect(d.payload).toMatchObject({
      iss: issOf(principal),
      principal_jwk: principal.publicJwk,
      jti: "m-root",
    });
  });

  it("a child copies iss and sub from its parent and carries it exactly, signed by the agent", async () => {
    const parent = await issueMandate(rootClaims({ sub: "pseudo-1" }), principal);
    const d = decode(await delegateMandate(parent, childClaims(), agent));
    expect(d.payload).toMatchObject({
      iss: issOf(principal),
      sub: "pseudo-1",
      issuer_jwk: agent.publicJwk,
      parent,
    });
    expect(d.payload).not.toHaveProperty("principal_jwk");
  });

  it("delegating from something that is not a mandate throws (the caller's own parent)", async () => {
    await expect(delegateMandate("not.a.jws", childClaims(), subAgent)).rejects.toThrow(/parent/);
  });
});
