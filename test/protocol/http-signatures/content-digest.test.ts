import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  contentDigestSha256,
  parseContentDigest,
  verifyContentDigest,
} from "../../../src/protocol/http-signatures/content-digest.js";
import { encodeBase64 } from "../../../src/protocol/json/base64.js";
import { readFixtureJson } from "../../support/fixtures.js";

interface Case {
  id: string;
  input_utf8?: string;
  expected_byte_sequences?: Record<string, string>;
  field_line?: string;
  field_line_as_printed?: string;
  content_utf8?: string;
  response_head?: string[];
  body_utf8?: string;
}
const v = readFixtureJson<{ cases: Case[]; typos_in_rfc_text: Array<{ text: string }> }>(
  "vectors/rfc9530_content_digest.json",
);
const byId = (id: string): Case => {
  const c = v.cases.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no case ${id}`);
  return c;
};
const utf8 = (s: string) => new TextEncoder().encode(s);
const fieldValue = (line: string) => line.replace(/^[A-Za-z-]+: /, "").replace(/\\r\\n$/, "");

describe("RFC 9530 sample digest values (Appendix D)", () => {
  const sample = byId("appendix-sample-values");
  const body = utf8(sample.input_utf8 ?? "");
  const expected = sample.expected_byte_sequences ?? {};

  it('sha-256 of {"hello": "world"} (no LF)', () => {
    expect(contentDigestSha256(body)).toBe(`sha-256=${expected["sha-256"]}`);
  });

  it("sha-512 of the same bytes parses from the printed byte sequence and matches", () => {
    const parsed = parseContentDigest(`sha-512=${expected["sha-512"]}`);
    const sha512 = new Uint8Array(createHash("sha512").update(body).digest());
    expect(parsed).toEqual({ ok: true, value: new Map([["sha-512", sha512]]) });
  });

  it("every printed sample value is a strict byte sequence", () => {
    const line = Object.entries(expected)
      .map(([alg, value]) => `${alg}=${value}`)
      .join(", ");
    const parsed = parseContentDigest(line);
    expect(parsed.ok && [...parsed.value.keys()]).toEqual(Object.keys(expected));
  });
});

describe("RFC 9530 Appendix B and §2 examples (body is the JSON followed by LF)", () => {
  it.each(["B.1-full-representation", "B.2-no-representation-HEAD", "B.3-partial-content"])("%s", (id) => {
    const c = byId(id);
    const line = (c.response_head ?? []).find((l) => l.startsWith("Content-Digest: ")) ?? "";
    expect(contentDigestSha256(utf8(c.body_utf8 ?? ""))).toBe(fieldValue(line));
    expect(verifyContentDigest(fieldValue(line), utf8(c.body_utf8 ?? ""))).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it("§2 sha-512 value matches sha-512 of the JSON + LF", () => {
    const c = byId("sec2-content-digest-sha512");
    const parsed = parseContentDigest(fieldValue(c.field_line ?? ""));
    const want = createHash("sha512")
      .update(c.content_utf8 ?? "")
      .digest("base64");
    expect(parsed.ok && encodeBase64(parsed.value.get("sha-512") ?? new Uint8Array())).toBe(want);
  });

  it("the RFC 9421 test-request digest (18 bytes, no LF) matches its body", () => {
    const c = byId("rfc9421-test-request-content-digest");
    const parsed = parseContentDigest(fieldValue(c.field_line ?? ""));
    const want = createHash("sha512")
      .update(c.content_utf8 ?? "")
      .digest("base64");
    expect(parsed.ok && encodeBase64(parsed.value.get("sha-512") ?? new Uint8Array())).toBe(want);
    // ... but SchCP §3.2 needs sha-256: a sha-512-only header fails the profile.
    expect(verifyContentDigest(fieldValue(c.field_line ?? ""), utf8(c.content_utf8 ?? ""))).toMatchObject({
      ok: false,
      error: { code: "missing_sha256" },
    });
  });

  it("the non-reproducible two-member §2 value parses as a two-member dictionary", () => {
    const c = byId("sec2-content-digest-dictionary-NOT-REPRODUCIBLE");
    const parsed = parseContentDigest(fieldValue(c.field_line_as_printed ?? ""));
    expect(parsed.ok && [...parsed.value.entries()].map(([k, b]) => [k, b.length])).toEqual([
      ["sha-256", 32],
      ["sha-512", 64],
    ]);
    // Its sha-256 member matches no printed content, so verification against JSON+LF fails.
    expect(
      verifyContentDigest(fieldValue(c.field_line_as_printed ?? ""), utf8(c.content_utf8 ?? "")),
    ).toMatchObject({
      ok: false,
      error: { code: "digest_mismatch" },
    });
  });

  it.each(v.typos_in_rfc_text.map((t) => [t.text]))("refuses the Appendix B '==' misprint %s", (text) => {
    expect(parseContentDigest(fieldValue(text))).toMatchObject({
      ok: false,
      error: { field: "content-digest" },
    });
  });
});

describe("verifyContentDigest (SchCP §3.2)", () => {
  const body = utf8('{"service":"oil-change"}');
  const sha256 = contentDigestSha256(body);

  it("accepts the sha-256 member and ignores other well-formed members", () => {
    expect(verifyContentDigest(sha256, body).ok).toBe(true);
    expect(verifyContentDigest(`sha-512=:${encodeBase64(new Uint8Array(64))}:, ${sha256}`, body).ok).toBe(
      true,
    );
  });

  it.each([
    ["a digest of other bytes", contentDigestSha256(utf8("other")), "digest_mismatch"],
    [
      "a sha-512-only header",
      `sha-512=:${createHash("sha512").update(body).digest("base64")}:`,
      "missing_sha256",
    ],
    ["a repeated sha-256", `${sha256}, ${sha256}`, "invalid_content_digest"],
    ["a non-byte-sequence member", "sha-256=1", "invalid_content_digest"],
    ["an empty header", "", "invalid_content_digest"],
    ["a truncated digest", `sha-256=:${encodeBase64(new Uint8Array(31))}:`, "digest_mismatch"],
    ["unpadded base64", sha256.replace("=:", ":"), "invalid_structured_field"],
  ])("refuses %s", (_n, value, code) => {
    expect(verifyContentDigest(value, body)).toMatchObject({
      ok: false,
      error: { code, field: "content-digest" },
    });
  });
});
