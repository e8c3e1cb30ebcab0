/**
 * A small strict RFC 8941 Dictionary parser and serialiser: just what Signature-Input,
 * Signature (RFC 9421 §4) and Content-Digest (RFC 9530 §2) need.
 *
 * Hand-written rather than the `structured-headers` package for two reasons: RFC 8941
 * §4.2.2 makes a repeated dictionary key silently overwrite the first, and SchCP §3.2 must
 * see that a second `schcp=` signature was sent; and RFC 8941 §4.2.7 lets parsers accept
 * unpadded or non-canonical byte sequences, while this profile wants one spelling (the
 * strict decoder refuses RFC 9530's 45-character "==" misprints). So members come back as
 * an ordered list that keeps duplicates, and byte sequences go through decodeBase64Strict.
 */
import { decodeBase64Strict, encodeBase64 } from "../json/base64.js";
import { err, fieldError, ok } from "../result.js";
import type { FieldError, Result } from "../result.js";

type BareItem =
  | { readonly type: "integer"; readonly value: number }
  | { readonly type: "decimal"; readonly value: number }
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "token"; readonly value: string }
  | { readonly type: "bytes"; readonly value: Uint8Array }
  | { readonly type: "boolean"; readonly value: boolean };

type Parameters = ReadonlyArray<readonly [string, BareItem]>;
export interface Item {
  readonly kind: "item";
  readonly value: BareItem;
  readonly params: Parameters;
}
export interface InnerList {
  readonly kind: "inner-list";
  readonly items: readonly Item[];
  readonly params: Parameters;
}
export type DictionaryMember = readonly [key: string, value: Item | InnerList];

/** Parses a Dictionary field value; duplicate keys are kept, in order, for the caller to judge. */
export function parseDictionary(input: string, field: string): Result<DictionaryMember[]> {
  const p = new SfParser(input, field);
  try {
    return ok(p.dictionary());
  } catch (e) {
    if (e instanceof SfError) return err(e.error);
    throw e;
  }
}

class SfError extends Error {
  constructor(readonly error: FieldError) {
    super(error.message);
  }
}

const KEY = /[a-z*][a-z0-9_\-.*]*/y;
const TOKEN = /[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/y;
const NUMBER = /-?[0-9]+(\.[0-9]+)?/y;

class SfParser {
  private pos = 0;
  constructor(
    private readonly s: string,
    private readonly field: string,
  ) {}

  private fail(message: string): never {
    throw new SfError(
      fieldError("invalid_structured_field", this.field, `${message} (at offset ${this.pos})`),
    );
  }

  private skip(chars: string): void {
    while (this.pos < this.s.length && chars.includes(this.s[this.pos] as string)) this.pos++;
  }

  private match(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.s);
    if (m === null) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  dictionary(): DictionaryMember[] {
    const members: DictionaryMember[] = [];
    this.skip(" "); // RFC 8941 §4.2: leading SP is discarded
    while (this.pos < this.s.length) {
      const key = this.key();
      if (this.s[this.pos] === "=") {
        this.pos++;
        members.push([key, this.s[this.pos] === "(" ? this.innerList() : this.item()]);
      } else {
        members.push([key, { kind: "item", value: { type: "boolean", value: true }, params: this.params() }]);
      }
      this.skip(" \t");
      if (this.pos >= this.s.length) return members;
      if (this.s[this.pos] !== ",") this.fail("expected ',' between dictionary members");
      this.pos++;
      this.skip(" \t");
      if (this.pos >= this.s.length) this.fail("trailing ',' in a dictionary");
    }
    return members;
  }

  private key(): string {
    return this.match(KEY) ?? this.fail("expected a key");
  }

  private innerList(): InnerList {
    this.pos++; // "("
    const items: Item[] = [];
    for (;;) {
      this.skip(" ");
      if (this.s[this.pos] === ")") {
        this.pos++;
        return { kind: "inner-list", items, params: this.params() };
      }
      items.push(this.item());
      const c = this.s[this.pos];
      if (c !== " " && c !== ")") this.fail("expected ' ' or ')' in an inner list");
    }
  }

  private item(): Item {
    const value = this.bareItem();
    return { kind: "item", value, params: this.params() };
  }

  private params(): Array<[string, BareItem]> {
    const params: Array<[string, BareItem]> = [];
    while (this.s[this.pos] === ";") {
      this.pos++;
      this.skip(" ");
      const key = this.key();
      let value: BareItem = { type: "boolean", value: true };
      if (this.s[this.pos] === "=") {
        this.pos++;
        value = this.bareItem();
      }
      params.push([key, value]);
    }
    return params;
  }

  private bareItem(): BareItem {
    const c = this.s[this.pos];
    if (c === '"') return { type: "string", value: this.string() };
    if (c === ":") return { type: "bytes", value: this.bytes() };
    if (c === "?") {
      const b = this.s[this.pos + 1];
      if (b !== "0" && b !== "1") this.fail("invalid boolean");
      this.pos += 2;
      return { type: "boolean", value: b === "1" };
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    const token = this.match(TOKEN);
    if (token !== undefined) return { type: "token", value: token };
    return this.fail("expected a bare item");
  }

  private number(): BareItem {
    const start = this.pos;
    const text = this.match(NUMBER) ?? this.fail("invalid number");
    const [intPart = "", frac] = text.replace(/^-/, "").split(".");
    if (frac === undefined) {
      if (intPart.length > 15) this.fail("integer has more than 15 digits");
      return { type: "integer", value: Number(text) };
    }
    if (intPart.length > 12 || frac.length > 3) {
      this.pos = start;
      this.fail("decimal out of range");
    }
    return { type: "decimal", value: Number(text) };
  }

  private string(): string {
    this.pos++;
    let out = "";
    for (;;) {
      const c = this.s[this.pos++];
      if (c === undefined) this.fail("unterminated string");
      if (c === '"') return out;
      if (c === "\\") {
        const e = this.s[this.pos++];
        if (e !== '"' && e !== "\\") this.fail("invalid escape in a string");
        out += e;
        continue;
      }
      const code = c.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) this.fail("non-printable character in a string");
      out += c;
    }
  }

  private bytes(): Uint8Array {
    const end = this.s.indexOf(":", this.pos + 1);
    if (end < 0) this.fail("unterminated byte sequence");
    const decoded = decodeBase64Strict(this.s.slice(this.pos + 1, end), this.field);
    if (!decoded.ok) this.fail(`byte sequence: ${decoded.error.message}`);
    this.pos = end + 1;
    return decoded.value;
  }
}

/** RFC 8941 §4.1 serialisation, as RFC 9421 §2.3 builds "@signature-params". */
function serializeBareItem(item: BareItem): string {
  switch (item.type) {
    case "integer":
      return String(item.value);
    case "decimal":
      return Number.isInteger(item.value) ? `${item.value}.0` : String(item.value);
    case "string":
      return `"${item.value.replace(/[\\"]/g, (m) => `\\${m}`)}"`;
    case "token":
      return item.value;
    case "bytes":
      return `:${encodeBase64(item.value)}:`;
    case "boolean":
      return item.value ? "?1" : "?0";
  }
}

function serializeParams(params: Parameters): string {
  return params
    .map(([k, v]) => (v.type === "boolean" && v.value ? `;${k}` : `;${k}=${serializeBareItem(v)}`))
    .join("");
}

export function serializeItem(item: Item): string {
  return serializeBareItem(item.value) + serializeParams(item.params);
}

export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(" ")})${serializeParams(list.params)}`;
}
