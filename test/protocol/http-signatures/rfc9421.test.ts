import { createPrivateKey, createPublicKey, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  readRfc9421Signature,
  verifyRfc9421Ed25519,
} from "../../../src/protocol/http-signatures/rfc9421-verify.js";
import { buildSignatureBase, componentValue } from "../../../src/protocol/http-signatures/signature-base.js";
import type { HttpMessageView } from "../../../src/protocol/http-signatures/signature-base.js";
import { encodeBase64 } from "../../../src/protocol/json/base64.js";
import { ed25519PublicKeyFromJwk } from "../../../src/protocol/jose/jwk.js";
import type { Ed25519PublicJwk } from "../../../src/protocol/jose/jwk.js";
import { readFixtureJson } from "../../support/fixtures.js";

type Headers = Array<[string, string]>;
interface B26 {
  key: { public_key_pem_spki: string; private_key_pem_pkcs8: string; jwk: Ed25519PublicJwk & { d: string } };
  request: { method: string; target_uri: string; headers: Headers };
  label: string;
  covered_components: string[];
  signature_base: string;
  signature_input_header: string;
  signature_header: string;
  signature_b64: string;
}
interface B4 {
  key: { public_key_pem_spki: string; jwk_public: Ed25519PublicJwk };
  signature_base_of_first_message: string;
  messages: Array<{ expected_valid: boolean; request_line: string; headers: Headers; prose_before: string }>;
}
const b26 = readFixtureJson<B26>("vectors/rfc9421_b26_ed25519.json");
const b4 = readFixtureJson<B4>("vectors/rfc9421_b4_transformations_ed25519.json");

const b26Message: HttpMessageView = {
  method: b26.request.method,
  targetUri: b26.request.target_uri,
  headers: [
    ...b26.request.headers,
    ["Signature-Input", b26.signature_input_header],
    ["Signature", b26.signature_header],
  ],
};

describe("RFC 9421 Appendix B.2.6 (ed25519)", () => {
  const params = b26.signature_input_header.slice(`${b26.label}=`.length);

  it("reproduces the signature base byte for byte", () => {
    expect(buildSignatureBase(b26.covered_components, params, b26Message)).toEqual({
      ok: true,
      value: b26.signature_base,
    });
  });

  it("reads and re-serialises @signature-params from Signature-Input", () => {
    const read = readRfc9421Signature(b26Message, b26.label);
    expect(read.ok && read.value.signatureParams).toBe(params);
    expect(read.ok && read.value.components).toEqual(b26.covered_components);
  });

  it("re-signing the base with the vector's private key reproduces the signature (Ed25519 is deterministic)", () => {
    const key = createPrivateKey(b26.key.private_key_pem_pkcs8);
    expect(encodeBase64(sign(null, Buffer.from(b26.signature_base), key))).toBe(b26.signature_b64);
  });

  it("verifies with the PEM key and with the JWK", () => {
    expect(verifyRfc9421Ed25519(b26Message, b26.label, createPublicKey(b26.key.public_key_pem_spki))).toEqual(
      {
        ok: true,
        value: true,
      },
    );
    const { kty, crv, x } = b26.key.jwk;
    expect(verifyRfc9421Ed25519(b26Message, b26.label, ed25519PublicKeyFromJwk({ kty, crv, x }))).toEqual({
      ok: true,
      value: true,
    });
  });

  it("does not verify once a covered header changes", () => {
    const changed = {
      ...b26Message,
      headers: b26Message.headers.map(([n, v]): [string, string] => [n, n === "Content-Length" ? "19" : v]),
    };
    expect(verifyRfc9421Ed25519(changed, b26.label, createPublicKey(b26.key.public_key_pem_spki))).toEqual({
      ok: true,
      value: false,
    });
  });

  it("errs (rather than false) for an absent label or a missing covered field", () => {
    const key = createPublicKey(b26.key.public_key_pem_spki);
    expect(verifyRfc9421Ed25519(b26Message, "other", key)).toMatchObject({
      ok: false,
      error: { code: "missing_signature" },
    });
    const noDate = { ...b26Message, headers: b26Message.headers.filter(([n]) => n !== "Date") };
    expect(verifyRfc9421Ed25519(noDate, b26.label, key)).toMatchObject({
      ok: false,
      error: { code: "missing_component", field: "date" },
    });
  });
});

/** B.4 gives request lines; the test reconstructs the target URI from Host (the vectors' own convention). */
function b4Message(m: B4["messages"][number]): HttpMessageView {
  const [method = "", target = ""] = m.request_line.split(" ");
  const host = m.headers.find(([n]) => n.toLowerCase() === "host")?.[1] ?? "";
  return { method, targetUri: `https://${host}${target}`, headers: m.headers };
}

describe("RFC 9421 Appendix B.4 (transformations)", () => {
  const key = createPublicKey(b4.key.public_key_pem_spki);

  it("builds the printed signature base for the first message", () => {
    const first = b4Message(b4.messages[0] as B4["messages"][number]);
    const read = readRfc9421Signature(first, "transform");
    if (!read.ok) throw new Error(read.error.message);
    expect(buildSignatureBase(read.value.components, read.value.signatureParams, first)).toEqual({
      ok: true,
      value: b4.signature_base_of_first_message,
    });
  });

  it.each(b4.messages.map((m, i) => [i + 1, m.expected_valid, m] as const))(
    "message %i verifies: %s",
    (_i, expected, m) => {
      expect(verifyRfc9421Ed25519(b4Message(m), "transform", key)).toEqual({ ok: true, value: expected });
      expect(
        verifyRfc9421Ed25519(b4Message(m), "transform", ed25519PublicKeyFromJwk(b4.key.jwk_public)),
      ).toEqual({
        ok: true,
        value: expected,
      });
    },
  );

  it("has four messages that verify and two that must not", () => {
    expect(b4.messages.map((m) => m.expected_valid)).toEqual([true, true, true, true, false, false]);
  });
});

describe("derived components (RFC 9421 §2.2)", () => {
  const msg: HttpMessageView = {
    method: "POST",
    targetUri: "https://WWW.Example.com:443/path/a%20b?x=1&y=2",
    headers: [
      ["X-Multi", " a "],
      ["x-multi", "b\t"],
      ["X-Empty", ""],
    ],
  };
  it.each([
    ["@method", "POST"],
    ["@target-uri", "https://WWW.Example.com:443/path/a%20b?x=1&y=2"],
    ["@authority", "www.example.com"],
    ["@scheme", "https"],
    ["@request-target", "/path/a%20b?x=1&y=2"],
    ["@path", "/path/a%20b"],
    ["@query", "?x=1&y=2"],
    ["x-multi", "a, b"],
    ["x-empty", ""],
  ])("%s = %j", (id, value) => {
    expect(componentValue(id, msg)).toEqual({ ok: true, value });
  });

  it("@query is '?' without a query, and @authority keeps a non-default port", () => {
    const m = { ...msg, targetUri: "http://example.com:8080/" };
    expect(componentValue("@query", m)).toEqual({ ok: true, value: "?" });
    expect(componentValue("@authority", m)).toEqual({ ok: true, value: "example.com:8080" });
  });

  it.each([
    ["an unknown derived component", ["@status"], "unsupported_component"],
    ["an upper-case field name", ["Date"], "unsupported_component"],
    ["a component with parameters", ['"x-multi";sf'], "unsupported_component"],
    ["a duplicate component", ["@method", "@method"], "duplicate_component"],
    ["an absent field", ["date"], "missing_component"],
  ])("refuses %s", (_n, components, code) => {
    expect(buildSignatureBase(components, "()", msg)).toMatchObject({ ok: false, error: { code } });
  });

  it("refuses a field value containing a line break", () => {
    const m = { ...msg, headers: [["x-bad", "a\nb"]] as Headers };
    expect(buildSignatureBase(["x-bad"], "()", m)).toMatchObject({
      ok: false,
      error: { code: "invalid_component" },
    });
  });
});
