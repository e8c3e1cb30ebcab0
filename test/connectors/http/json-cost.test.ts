/**
 * Measuring a JSON answer before it is parsed (src/connectors/http/json-cost.ts): the count of
 * structural tokens, nesting and members per object that bound JSON.parse's time, with strings
 * (escaped quotes, brackets and commas inside them) skipped, and a large answer measured
 * without holding the event loop.
 */
import { describe, expect, it } from "vitest";
import { jsonCost, type JsonBudget } from "../../../src/connectors/http/json-cost.js";

const wide: JsonBudget = { maxTokens: 1e9, maxDepth: 1_000, maxKeys: 1e9 };
const tokens = async (text: string) => {
  const c = await jsonCost(text, wide);
  if (!c.ok) throw new Error(c.error);
  return c.value;
};

describe("jsonCost", () => {
  it("counts every value's structure: brackets, braces, commas and colons outside strings", async () => {
    expect(await tokens("1")).toBe(0);
    expect(await tokens("[]")).toBe(1);
    expect(await tokens("[1,2,3]")).toBe(3);
    expect(await tokens('{"a":1,"b":[true,null]}')).toBe(6);
    expect(await tokens("[[],[],[]]")).toBe(6);
  });

  it("skips strings whole, escaped quotes and backslashes included", async () => {
    expect(await tokens(JSON.stringify(["a,b:c{d}[e]", 'q"uo"te', "back\\slash\\", '\\"x']))).toBe(4);
    expect(await tokens(JSON.stringify({ '"k,:"': "v\\", k2: "\\\\" }))).toBe(4);
  });

  it("never throws on malformed text: it measures as far as the text goes (JSON.parse refuses it)", async () => {
    expect((await jsonCost('["unterminated', wide)).ok).toBe(true);
    expect((await jsonCost("]]]}}}", wide)).ok).toBe(true);
    expect((await jsonCost("", wide)).ok).toBe(true);
  });

  it("refuses past each bound: tokens, depth, members of one object", async () => {
    expect(await jsonCost("[1,2,3,4]", { ...wide, maxTokens: 3 })).toEqual({ ok: false, error: "tokens" });
    expect(await jsonCost("[[[[1]]]]", { ...wide, maxDepth: 3 })).toEqual({ ok: false, error: "depth" });
    expect(await jsonCost("[[[1]]]", { ...wide, maxDepth: 3 })).toMatchObject({ ok: true });
    const keys = (n: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
    expect(await jsonCost(keys(11), { ...wide, maxKeys: 10 })).toEqual({ ok: false, error: "keys" });
    expect(await jsonCost(keys(10), { ...wide, maxKeys: 10 })).toMatchObject({ ok: true });
    // Members are counted per object: many small objects are not one large one.
    expect(
      await jsonCost(JSON.stringify(Array(50).fill({ a: 1, b: 2 })), { ...wide, maxKeys: 2 }),
    ).toMatchObject({
      ok: true,
    });
    // Depth past what any counter array holds is refused, not overrun.
    expect(await jsonCost("[".repeat(100_000), { ...wide, maxDepth: 1e9 })).toEqual({
      ok: false,
      error: "depth",
    });
  });

  it("a large answer is measured in turns of the event loop, so a timer runs while it is", async () => {
    const text = `[${Array(600_000).fill("[]").join(",")}]`;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const cost = await jsonCost(text, wide);
    clearInterval(timer);
    expect(cost).toEqual({ ok: true, value: 1_200_000 });
    expect(ticks).toBeGreaterThan(3);
  });
});
