/** Small readers for connector settings: each failure names the field it is about. */
import { childPointer, err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { isValidTimeZone } from "../../protocol/time/index.js";

export type SettingsError = FieldError<"invalid_setting">;

const bad = (field: string, message: string): SettingsError => fieldError("invalid_setting", field, message);

export class SettingsReader {
  readonly errors: SettingsError[] = [];

  constructor(
    private readonly value: Record<string, unknown>,
    private readonly base: string,
  ) {}

  static of(value: unknown, base: string): SettingsReader | SettingsError {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return bad(base, "settings must be an object");
    }
    return new SettingsReader(value as Record<string, unknown>, base);
  }

  field(name: string): string {
    return childPointer(this.base, name);
  }

  string(name: string, required: true, pattern?: RegExp, hint?: string): string;
  string(name: string, required: false, pattern?: RegExp, hint?: string): string | undefined;
  string(name: string, required: boolean, pattern?: RegExp, hint?: string): string | undefined {
    const v = this.value[name];
    if (v === undefined) {
      if (required) this.errors.push(bad(this.field(name), `${name} is required`));
      return undefined;
    }
    if (typeof v !== "string" || v.trim() === "" || (pattern !== undefined && !pattern.test(v))) {
      this.errors.push(bad(this.field(name), `${name} must be ${hint ?? "a non-empty string"}`));
      return undefined;
    }
    return v;
  }

  url(name: string): string | undefined {
    const v = this.string(name, true);
    if (v === undefined) return undefined;
    try {
      const u = new URL(v);
      if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("scheme");
      if (u.search !== "" || u.hash !== "") throw new Error("query");
      return v.replace(/\/$/, "");
    } catch {
      this.errors.push(bad(this.field(name), `${name} must be an http(s) URL without query or fragment`));
      return undefined;
    }
  }

  timeZone(name: string, required: boolean): string | undefined {
    const v = this.value[name];
    if (v === undefined && !required) return undefined;
    const s = required ? this.string(name, true) : this.string(name, false);
    if (s !== undefined && !isValidTimeZone(s)) {
      this.errors.push(bad(this.field(name), `${name} must be an IANA time zone such as "America/Santiago"`));
      return undefined;
    }
    return s;
  }

  positive(name: string, max: number): number | undefined {
    const v = this.value[name];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > max) {
      this.errors.push(bad(this.field(name), `${name} must be a number above 0 and at most ${max}`));
      return undefined;
    }
    return v;
  }

  raw(name: string): unknown {
    return this.value[name];
  }

  push(field: string, message: string): void {
    this.errors.push(bad(field, message));
  }

  done<T>(value: T): Result<T, SettingsError> {
    const first = this.errors[0];
    return first === undefined ? ok(value) : err(first);
  }
}

export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
