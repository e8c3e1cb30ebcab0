/**
 * Strict RFC 8259 JSON for signed and inbound protocol payloads (SchCP §3.1).
 *
 * Hand-written because JSON.parse silently keeps the last of two members with the same
 * name, so two parsers could read different claims from the same signed bytes; SchCP §3.1
 * makes such a payload invalid. Beyond RFC 8259 this parser also refuses, on purpose:
 * - a leading byte order mark (RFC 8259 §8.1: senders MUST NOT add one);
 * - invalid UTF-8 when given bytes, and lone surrogates in a string input;
 * - "\ud800"-style escapes that do not form a surrogate pair: the grammar allows them,
 *   but they name no Unicode character and parsers disagree on what they decode to;
 * - numbers that overflow to ±Infinity, and nesting deeper than MAX_JSON_DEPTH.
 * Names are compared after unescaping ("a" and "\u0061" are the same member). Objects are
 * plain objects; a member named "__proto__" becomes an own property, never the prototype.
 */
import { childPointer, err, fieldError, ok } from "../result.js";
import type { FieldError, Result } from "../result.js";

type StrictJsonErrorCode = "invalid_utf8" | "invalid_json" | "duplicate_member";
export type StrictJsonError = FieldError<StrictJsonErrorCode>;

/** Deep enough for every SchCP/OSBP document, shallow enough that recursion is safe. */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function parseStrictJson(input: Uint8Array | string, field = ""): Result<unknown, StrictJsonError> {
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    try {
      text = utf8.decode(input);
    } catch {
      return err(fieldError("invalid_utf8", field, "JSON text is not valid UTF-8"));
    }
  }
  if (text.startsWith("\uFEFF")) {
    return err(fieldError("invalid_json", field, "JSON text starts with a byte order mark"));
  }
  const parser = new Parser(text);
  try {
    parser.skipWhitespace();
    const value = parser.parseValue(field, 0);
    parser.skipWhitespace();
    if (parser.pos !== text.length) parser.fail(field, "unexpected data after the JSON value");
    return ok(value);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return err(e.error);
    throw e;
  }
}

/** Internal control flow only: never escapes parseStrictJson. */
class JsonSyntaxError extends Error {
  constructor(readonly error: StrictJsonError) {
    super(error.message);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ["true", true],
  ["false", false],
  ["null", null],
];

class Parser {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(field: string, message: string, code: StrictJsonErrorCode = "invalid_json"): never {
    throw new JsonSyntaxError(fieldError(code, field, `${message} (at offset ${this.pos})`));
  }

  skipWhitespace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else return;
    }
  }

  parseValue(field: string, depth: number): unknown {
    const c = this.text[this.pos];
    if (c === "{") return this.parseObject(field, depth + 1);
    if (c === "[") return this.parseArray(field, depth + 1);
    if (c === '"') return this.parseString(field);
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.parseNumber(field);
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail(field, c === undefined ? "unexpected end of JSON text" : "unexpected character");
  }

  private enter(field: string, depth: number): void {
    if (depth > MAX_JSON_DEPTH) this.fail(field, `JSON nesting deeper than ${MAX_JSON_DEPTH}`);
    this.pos++;
    this.skipWhitespace();
  }

  private parseObject(field: string, depth: number): Record<string, unknown> {
    this.enter(field, depth);
    const result: Record<string, unknown> = {};
    const seen = new Set<string>();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return result;
    }
    for (;;) {
      if (this.text[this.pos] !== '"') this.fail(field, "expected a member name");
      const name = this.parseString(field);
      const memberField = childPointer(field, name);
      if (seen.has(name)) this.fail(memberField, `duplicate member "${name}"`, "duplicate_member");
      seen.add(name);
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") this.fail(memberField, "expected ':' after a member name");
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(memberField, depth);
      // defineProperty so "__proto__" is an own member, not a prototype switch.
      Object.defineProperty(result, name, { value, enumerable: true, writable: true, configurable: true });
      this.skipWhitespace();
      const sep = this.text[this.pos];
      this.pos++;
      if (sep === "}") return result;
      if (sep !== ",") this.fail(field, "expected ',' or '}' in an object");
      this.skipWhitespace();
    }
  }

  private parseArray(field: string, depth: number): unknown[] {
    this.enter(field, depth);
    const result: unknown[] = [];
    if (this.text[this.pos] === "]") {
      this.pos++;
      return result;
    }
    for (;;) {
      result.push(this.parseValue(childPointer(field, result.length), depth));
      this.skipWhitespace();
      const sep = this.text[this.pos];
      this.pos++;
      if (sep === "]") return result;
      if (sep !== ",") this.fail(field, "expected ',' or ']' in an array");
      this.skipWhitespace();
    }
  }

  private parseNumber(field: string): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail(field, "invalid number");
    this.pos += match[0].length;
    const value = Number(match[0]);
    if (!Number.isFinite(value)) this.fail(field, "number out of range");
    return value;
  }

  parseString(field: string): string {
    this.pos++; // opening quote
    let out = "";
    let start = this.pos;
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (Number.isNaN(c)) this.fail(field, "unterminated string");
      if (c === 0x22) {
        out += this.text.slice(start, this.pos++);
        return out;
      }
      if (c < 0x20) this.fail(field, "unescaped control character in a string");
      if (c >= 0xd800 && c <= 0xdfff) {
        // Only reachable for string input: decoded bytes are always well formed.
        const next = this.text.charCodeAt(this.pos + 1);
        if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) this.fail(field, "lone surrogate in a string");
        this.pos += 2;
        continue;
      }
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(start, this.pos);
      out += this.parseEscape(field);
      start = this.pos;
    }
  }

  private parseEscape(field: string): string {
    const e = this.text[this.pos + 1];
    this.pos += 2;
    switch (e) {
      case '"':
      case "\\":
      case "/":
        return e;
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const unit = this.readHex4(field);
        if (unit >= 0xdc00 && unit <= 0xdfff) this.fail(field, "lone low surrogate escape");
        if (unit < 0xd800 || unit > 0xdbff) return String.fromCharCode(unit);
        if (this.text.startsWith("\\u", this.pos)) {
          this.pos += 2;
          const low = this.readHex4(field);
          if (low >= 0xdc00 && low <= 0xdfff) return String.fromCharCode(unit, low);
        }
        return this.fail(field, "lone high surrogate escape");
      }
      case undefined:
      default:
        return this.fail(field, "invalid escape in a string");
    }
  }

  private readHex4(field: string): number {
    const hex = this.text.slice(this.pos, this.pos + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail(field, "invalid \\u escape");
    this.pos += 4;
    return parseInt(hex, 16);
  }
}
