import { describe, expect, it } from "vitest";
import { agentKeyFromJwk, createAgentKey, exportAgentKeyJwk } from "../../src/agent/index.js";
import { jwkThumbprint } from "../../src/protocol/jose/index.js";

describe("agent keys (SchCP §3.2)", () => {
  it("names a fresh key by its RFC 7638 thumbprint", () => {
    const key = createAgentKey();
    expect(key.thumbprint).toBe(jwkThumbprint(key.publicJwk));
    expect(key.publicJwk).toEqual({ kty: "OKP", crv: "Ed25519", x: expect.any(String) as string });
    expect(createAgentKey().thumbprint).not.toBe(key.thumbprint);
  });

  it("round-trips through a stored private JWK", () => {
    const key = createAgentKey();
    const jwk = exportAgentKeyJwk(key);
    const back = agentKeyFromJwk(JSON.parse(JSON.stringify(jwk)));
    expect(back.ok && back.value.thumbprint).toBe(key.thumbprint);
    const withKid = agentKeyFromJwk({ ...jwk, kid: "agent-1" });
    expect(withKid.ok).toBe(true);
  });

  it.each([
    ["not an object", "k", ""],
    ["no d", { kty: "OKP", crv: "Ed25519", x: "AAAA" }, "/d"],
    ["d too short", { kty: "OKP", crv: "Ed25519", x: "AAAA", d: "AAAA" }, "/d"],
    ["wrong kty", { ...exportAgentKeyJwk(createAgentKey()), kty: "EC" }, "/kty"],
    ["an unknown member", { ...exportAgentKeyJwk(createAgentKey()), use: "enc" }, "/use"],
  ])("refuses %s, naming the field", (_label, jwk, field) => {
    const r = agentKeyFromJwk(jwk);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe(field);
  });

  it("refuses a d that is not the private half of x", () => {
    const a = exportAgentKeyJwk(createAgentKey());
    const b = exportAgentKeyJwk(createAgentKey());
    const r = agentKeyFromJwk({ ...a, d: b.d });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: "key_mismatch", field: "/x" });
  });
});
