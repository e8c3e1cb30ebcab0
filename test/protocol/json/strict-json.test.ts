import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, parseStrictJson } from "../../../src/protocol/json/strict-json.js";

const bytes = (...b: number[]) => new Uint8Array(b);
const utf8 = (s: string) => new TextEncoder().encode(s);

function errorOf(input: string | Uint8Array, field?: string) {
  const r = parseStrictJson(input, field);
  if (r.ok) throw new Error(`expected a refusal for ${String(input)}`);
  return r.error;
}

describe("parseStrictJson: duplicates (SchCP §3.1)", () => {
  it.each([
    ['{"a":1,"a":2}', "/a"],
    ['{"a":{"b":1,"c":2,"b":3}}', "/a/b"],
    ['{"x":[{"k":1},{"k":1,"k":2}]}', "/x/1/k"],
    ['{"a":1,"\\u0061":2}', "/a"],
    ['{"\\u00e9":1,"é":2}', "/é"],
    ['{"a/b":{"~":1,"\\u007e":2}}', "/a~1b/~0"],
    ['{"__proto__":1,"__proto__":2}', "/__proto__"],
  ])("%s is refused at %s", (text, pointer) => {
    expect(errorOf(text)).toMatchObject({ code: "duplicate_member", field: pointer });
  });

  it("prefixes the given field to the pointer", () => {
    expect(errorOf('{"h":{"alg":1,"alg":2}}', "schcp-mandate/header")).toMatchObject({
      field: "schcp-mandate/header/h/alg",
    });
  });

  it("property: a duplicated member name anywhere is refused", () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), fc.jsonValue(), (name, a, b) => {
        const text = `{"outer":{${JSON.stringify(name)}:${JSON.stringify(a)},${JSON.stringify(name)}:${JSON.stringify(b)}}}`;
        const r = parseStrictJson(text);
        return !r.ok && r.error.code === "duplicate_member";
      }),
    );
  });
});

describe("parseStrictJson: agrees with JSON.parse on valid JSON", () => {
  it("property: any JSON.stringify output parses to the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const r = parseStrictJson(utf8(text));
        return r.ok && JSON.stringify(r.value) === text;
      }),
    );
  });

  it.each([
    ["1792000000.0", 1792000000],
    ["1792000000", 1792000000],
    ["-0.5e2", -50],
    ["1E+2", 100],
    [' \t\n\r{ "a" : [ 1 , true , null , "x" ] } ', { a: [1, true, null, "x"] }],
    ['"\\ud83d\\ude00 \\" \\\\ \\/ \\b\\f\\n\\r\\t"', '\u{1F600} " \\ / \b\f\n\r\t'],
    ['"\u{1F600}"', "\u{1F600}"],
  ])("%s", (text, expected) => {
    expect(parseStrictJson(text)).toEqual({ ok: true, value: expected });
  });
});

describe("parseStrictJson: refusals", () => {
  it.each([
    ["trailing comma in an object", '{"a":1,}'],
    ["trailing comma in an array", "[1,2,]"],
    ["NaN", '{"a":NaN}'],
    ["Infinity", "Infinity"],
    ["overflowing number", "1e400"],
    ["line comment", '{"a":1 // c\n}'],
    ["block comment", '{/* c */"a":1}'],
    ["single quotes", "{'a':1}"],
    ["leading zero", "01"],
    ["leading plus", "+1"],
    ["bare decimal point", "1."],
    ["unquoted name", "{a:1}"],
    ["raw control character", '"a\u0001b"'],
    ["invalid escape", '"\\x41"'],
    ["lone high surrogate escape", '"\\ud800"'],
    ["lone low surrogate escape", '"\\udc00"'],
    ["reversed surrogate escapes", '"\\udc00\\ud800"'],
    ["high surrogate then non-surrogate escape", '"\\ud800\\u0041"'],
    ["lone surrogate in a string input", '"\ud800"'],
    ["two values", "1 2"],
    ["empty input", ""],
    ["only whitespace", "  "],
    ["unterminated", '{"a":'],
    ["non-JSON whitespace", "\u00a0{}"],
  ])("%s", (_name, text) => {
    expect(errorOf(text).code).toBe("invalid_json");
  });

  it("refuses a leading BOM, as text and as bytes (RFC 8259 §8.1)", () => {
    expect(errorOf("\uFEFF{}").code).toBe("invalid_json");
    expect(errorOf(bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d)).code).toBe("invalid_json");
  });

  it.each([
    ["a lone continuation byte", bytes(0x22, 0x80, 0x22)],
    ["a truncated sequence", bytes(0x22, 0xc3, 0x22)],
    ["an overlong encoding", bytes(0x22, 0xc0, 0xaf, 0x22)],
    ["an encoded surrogate", bytes(0x22, 0xed, 0xa0, 0x80, 0x22)],
    ["0xff", bytes(0x7b, 0xff, 0x7d)],
  ])("refuses invalid UTF-8: %s", (_name, input) => {
    expect(errorOf(input, "/body")).toMatchObject({ code: "invalid_utf8", field: "/body" });
  });

  it("names the member whose value is malformed", () => {
    expect(errorOf('{"a":{"b":[1,tru]}}')).toMatchObject({ code: "invalid_json", field: "/a/b/1" });
  });
});

describe("parseStrictJson: nesting depth", () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    const nested = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(parseStrictJson(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(errorOf(nested(MAX_JSON_DEPTH + 1)).code).toBe("invalid_json");
    expect(errorOf('{"a":'.repeat(MAX_JSON_DEPTH + 1) + "1" + "}".repeat(MAX_JSON_DEPTH + 1)).code).toBe(
      "invalid_json",
    );
  });

  it("refuses very deep input without overflowing the stack", () => {
    expect(errorOf("[".repeat(100_000)).code).toBe("invalid_json");
  });
});

describe("parseStrictJson: __proto__", () => {
  it("makes a __proto__ member an own property and never sets the prototype", () => {
    const r = parseStrictJson('{"__proto__":{"polluted":true},"a":1}');
    if (!r.ok) throw new Error("expected ok");
    const value = r.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
