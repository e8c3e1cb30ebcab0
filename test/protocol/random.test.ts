import { describe, expect, it } from "vitest";
import { randomToken } from "../../src/protocol/random.js";

describe("randomToken", () => {
  it("gives base64url tokens of the asked length, never the same twice, across pool refills", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const t = randomToken(16);
      expect(t).toMatch(/^[A-Za-z0-9_-]{22}$/);
      seen.add(t);
    }
    expect(seen.size).toBe(2000);
    expect(randomToken(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("is not all zeros (the pool is filled before use)", () => {
    expect(Buffer.from(randomToken(64), "base64url").some((b) => b !== 0)).toBe(true);
  });

  it("refuses a size it cannot give", () => {
    expect(() => randomToken(0)).toThrow(RangeError);
    expect(() => randomToken(4097)).toThrow(RangeError);
  });
});
