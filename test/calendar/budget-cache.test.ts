/** What is kept per host across queries has a budget and is released when idle. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { BudgetCache } from "../../src/calendar/budget-cache.js";
import { workingIntervals, workingIntervalsCache } from "../../src/calendar/free.js";
import type { WeeklyHours } from "../../src/calendar/index.js";

afterEach(() => void vi.useRealTimers());

describe("BudgetCache", () => {
  it("lets the least recently used go past the budget", () => {
    let now = 0;
    const c = new BudgetCache<string, number[]>({
      maxWeight: 10,
      idleMs: 1000,
      weigh: (v) => v.length,
      clock: { now: () => now },
    });
    c.set("a", [1, 2, 3, 4]);
    c.set("b", [1, 2, 3, 4]);
    now = 1;
    expect(c.get("a")).toEqual([1, 2, 3, 4]); // a is now the more recent
    c.set("c", [1, 2, 3, 4]);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBeDefined();
    expect(c.size).toEqual({ entries: 2, weight: 8 });
    c.set(
      "huge",
      Array.from({ length: 11 }, () => 0),
    );
    expect(c.get("huge")).toBeUndefined();
  });

  it("releases entries idle for idleMs, whether or not they are asked for again", () => {
    let now = 0;
    const c = new BudgetCache<string, number>({
      maxWeight: 100,
      idleMs: 1000,
      weigh: () => 1,
      clock: { now: () => now },
    });
    c.set("a", 1);
    c.set("b", 2);
    now = 500;
    c.get("b");
    now = 1200;
    c.sweep();
    expect(c.size.entries).toBe(1);
    expect(c.get("a")).toBeUndefined();
    now = 1600;
    expect(c.get("b")).toBeUndefined();
    expect(c.size).toEqual({ entries: 0, weight: 0 });
  });
});

describe("working hours expansions per host", () => {
  it("are counted, bounded and released when the hosts go idle", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 5), toFake: ["Date", "setInterval", "clearInterval"] });
    workingIntervalsCache.clear();
    const window = { start: Date.UTC(2026, 0, 5), end: Date.UTC(2026, 1, 5) };
    // Each host has its own hours object, as parsed from its own configuration.
    const hosts = Array.from({ length: 200 }, (): WeeklyHours => [
      { day: 1, open: "09:00", close: "17:00" },
      { day: 3, open: "09:00", close: "17:00" },
    ]);
    for (const hours of hosts) workingIntervals(hours, "America/Toronto", window);
    const kept = workingIntervalsCache.size;
    expect(kept.entries).toBe(200);
    // Asked again: answered from the cache, nothing added.
    workingIntervals(hosts[0]!, "America/Toronto", window);
    expect(workingIntervalsCache.size.entries).toBe(200);
    // Ten idle minutes later the timer has let them go, with no query at all.
    vi.advanceTimersByTime(10 * 60_000 + 1);
    expect(workingIntervalsCache.size).toEqual({ entries: 0, weight: 0 });
  });
});
