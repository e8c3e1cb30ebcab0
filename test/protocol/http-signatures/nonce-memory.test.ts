import { describe, expect, it } from "vitest";
import { MemoryNonceMemory } from "../../../src/protocol/http-signatures/nonce-memory.js";

describe("MemoryNonceMemory (SchCP §3.2 replay window)", () => {
  it("is true the first time and false while the record lives", async () => {
    let now = 1000;
    const m = new MemoryNonceMemory(() => now);
    expect(await m.rememberIfNew("k", "n", 1301)).toBe(true);
    expect(await m.rememberIfNew("k", "n", 1301)).toBe(false);
    now = 1300;
    expect(await m.rememberIfNew("k", "n", 1601)).toBe(false);
  });

  it("forgets at expiresAtSec, when the signature can no longer verify", async () => {
    let now = 1000;
    const m = new MemoryNonceMemory(() => now);
    await m.rememberIfNew("k", "n", 1301);
    now = 1301;
    expect(await m.rememberIfNew("k", "n", 1602)).toBe(true);
  });

  it("keys by (keyid, nonce) without separator collisions", async () => {
    const m = new MemoryNonceMemory(() => 0);
    expect(await m.rememberIfNew("a", "b", 10)).toBe(true);
    expect(await m.rememberIfNew("b", "a", 10)).toBe(true);
    expect(await m.rememberIfNew("a\u0000", "b", 10)).toBe(true);
    expect(await m.rememberIfNew('a","b', "", 10)).toBe(true);
    expect(await m.rememberIfNew("a", '","b', 10)).toBe(true);
    expect(await m.rememberIfNew("a", "b", 10)).toBe(false);
  });

  it("sweeps expired records so memory stays bounded", async () => {
    let now = 0;
    const m = new MemoryNonceMemory(() => now, 4);
    for (let i = 0; i < 3; i++) await m.rememberIfNew("k", `n${i}`, 10);
    expect(m.size).toBe(3);
    now = 20;
    await m.rememberIfNew("k", "fresh", 30);
    expect(m.size).toBe(1);
  });
});
