import { describe, expect, it } from "vitest";
import {
  decodeAgentKeyHeader,
  encodeAgentKeyHeader,
} from "../../../src/protocol/http-signatures/agent-key.js";
import { encodeBase64Url } from "../../../src/protocol/json/base64.js";
import { generateEd25519KeyPair } from "../../../src/protocol/jose/jwk.js";

const { publicJwk } = generateEd25519KeyPair();
const header = (json: string) => encodeBase64Url(new TextEncoder().encode(json));

describe("SchCP-Agent-Key (SchCP §3.2)", () => {
  it("round-trips, with and without kid", () => {
    expect(decodeAgentKeyHeader(encodeAgentKeyHeader(publicJwk))).toEqual({ ok: true, value: publicJwk });
    const withKid = { ...publicJwk, kid: "agent-1" };
    expect(decodeAgentKeyHeader(encodeAgentKeyHeader(withKid))).toEqual({ ok: true, value: withKid });
  });

  it("accepts members in any order", () => {
    const json = `{"x":"${publicJwk.x}","kid":"a","kty":"OKP","crv":"Ed25519"}`;
    expect(decodeAgentKeyHeader(header(json))).toMatchObject({ ok: true, value: { ...publicJwk, kid: "a" } });
  });

  it("never sends extra members it was given", () => {
    const wide = { ...publicJwk, d: "secret", use: "sig" } as typeof publicJwk;
    expect(decodeAgentKeyHeader(encodeAgentKeyHeader(wide))).toEqual({ ok: true, value: publicJwk });
  });

  it.each([
    ["d", header(JSON.stringify({ ...publicJwk, d: "AA" })), "private_key", "schcp-agent-key/d"],
    [
      "an unknown member",
      header(JSON.stringify({ ...publicJwk, alg: "EdDSA" })),
      "unknown_member",
      "schcp-agent-key/alg",
    ],
    [
      "a duplicate member",
      header(`{"kty":"OKP","kty":"OKP","crv":"Ed25519","x":"${publicJwk.x}"}`),
      "duplicate_member",
      "schcp-agent-key/kty",
    ],
    [
      "invalid UTF-8",
      encodeBase64Url(new Uint8Array([0x7b, 0x22, 0xc3, 0x22, 0x3a, 0x31, 0x7d])),
      "invalid_utf8",
      "schcp-agent-key",
    ],
    ["padding", `${header(JSON.stringify(publicJwk))}==`, "invalid_base64url", "schcp-agent-key"],
    [
      "standard base64",
      Buffer.from(JSON.stringify(publicJwk)).toString("base64"),
      "invalid_base64url",
      "schcp-agent-key",
    ],
    ["a JSON array", header(`[${JSON.stringify(publicJwk)}]`), "invalid_type", "schcp-agent-key"],
    ["not JSON", header("kty=OKP"), "invalid_json", "schcp-agent-key"],
    [
      "an X25519 key",
      header(JSON.stringify({ ...publicJwk, crv: "X25519" })),
      "invalid_value",
      "schcp-agent-key/crv",
    ],
  ])("refuses %s", (_n, value, code, field) => {
    expect(decodeAgentKeyHeader(value)).toMatchObject({ ok: false, error: { code, field } });
  });
});
