import { describe, expect, it } from "vitest";
import {
  parseDictionary,
  serializeInnerList,
  serializeItem,
} from "../../../src/protocol/http-signatures/structured-fields.js";
import type { DictionaryMember } from "../../../src/protocol/http-signatures/structured-fields.js";

function parse(value: string): DictionaryMember[] {
  const r = parseDictionary(value, "f");
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("parseDictionary (RFC 8941 §4.2.2, strict subset)", () => {
  it("parses an RFC 9421 Signature-Input member and re-serialises it exactly", () => {
    const value =
      'sig1=("@method" "@target-uri" "content-digest");created=1618884473;keyid="test-key-ed25519";alg="ed25519"';
    const [[key, member]] = parse(value) as [DictionaryMember];
    expect(key).toBe("sig1");
    expect(member.kind).toBe("inner-list");
    if (member.kind !== "inner-list") return;
    expect(member.items.map((i) => i.value)).toEqual([
      { type: "string", value: "@method" },
      { type: "string", value: "@target-uri" },
      { type: "string", value: "content-digest" },
    ]);
    expect(member.params).toEqual([
      ["created", { type: "integer", value: 1618884473 }],
      ["keyid", { type: "string", value: "test-key-ed25519" }],
      ["alg", { type: "string", value: "ed25519" }],
    ]);
    expect(`sig1=${serializeInnerList(member)}`).toBe(value);
  });

  it("keeps duplicate keys, in order, so a caller can see a second signature", () => {
    expect(parse("a=1, b=2, a=3").map(([k]) => k)).toEqual(["a", "b", "a"]);
  });

  it("parses every bare item type and serialises it back", () => {
    const members = parse('i=-42, d=1.5, s="a\\"b\\\\c", t=*tok/en:x, b=:AQID:, y=?1, n=?0, flag;p=1, e=()');
    const bare = members.map(([k, m]) => [k, m.kind === "item" ? serializeItem(m) : serializeInnerList(m)]);
    expect(bare).toEqual([
      ["i", "-42"],
      ["d", "1.5"],
      ["s", '"a\\"b\\\\c"'],
      ["t", "*tok/en:x"],
      ["b", ":AQID:"],
      ["y", "?1"],
      ["n", "?0"],
      ["flag", "?1;p=1"],
      ["e", "()"],
    ]);
  });

  it("allows SP/HTAB around commas and leading SP", () => {
    expect(parse("  a=1 ,\tb=2").map(([k]) => k)).toEqual(["a", "b"]);
  });

  it.each([
    ["a trailing comma", "a=1,"],
    ["an upper-case key", "Sig=1"],
    ["a key starting with a digit", "1a=1"],
    ["an unterminated string", 'a="x'],
    ["an invalid escape", 'a="\\n"'],
    ["a non-ASCII string", 'a="é"'],
    ["a 16-digit integer", "a=1234567890123456"],
    ["a decimal with 4 fraction digits", "a=1.2345"],
    ["a bare decimal point", "a=1."],
    ["an invalid boolean", "a=?2"],
    ["an unterminated inner list", 'a=("x"'],
    ["no space between inner list items", 'a=("x""y")'],
    ["unpadded byte sequence (strict)", "a=:AQ:"],
    ["'==' on 32 bytes (strict)", "a=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg==:"],
    ["an unterminated byte sequence", "a=:AQID"],
    ["garbage after a member", "a=1 b=2"],
    ["an empty key", "=1"],
  ])("refuses %s", (_n, value) => {
    expect(parseDictionary(value, "signature-input")).toMatchObject({
      ok: false,
      error: { code: "invalid_structured_field", field: "signature-input" },
    });
  });

  it("parses the empty field value as an empty dictionary", () => {
    expect(parse("")).toEqual([]);
  });
});
