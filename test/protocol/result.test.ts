import { describe, expect, it } from "vitest";
import { childPointer, err, fieldError, ok } from "../../src/protocol/result.js";

describe("result", () => {
  it("builds ok and err values", () => {
    expect(ok(1)).toEqual({ ok: true, value: 1 });
    expect(err(fieldError("invalid", "/a", "bad"))).toEqual({
      ok: false,
      error: { code: "invalid", field: "/a", message: "bad" },
    });
  });
  it("escapes JSON pointer tokens (RFC 6901)", () => {
    expect(childPointer("", "a/b~c")).toBe("/a~1b~0c");
    expect(childPointer("/x", 0)).toBe("/x/0");
  });
});
