/**
 * The runtime's started list (src/gateway/runtime/started.ts): what a start started is closed
 * last-first, when the gateway closes and when a later step of the start fails.
 */
import { describe, expect, it } from "vitest";
import { startedList, startInOrder, type Closable } from "../../../src/gateway/runtime/started.js";

function recorder() {
  const closed: string[] = [];
  const thing = (name: string, fail?: Error): Closable => ({
    close: () => {
      closed.push(name);
      return fail === undefined ? Promise.resolve() : Promise.reject(fail);
    },
  });
  return { closed, thing };
}

describe("startedList", () => {
  it("closes what was added, the last added first, skipping undefined", async () => {
    const { closed, thing } = recorder();
    const started = startedList();
    const a = thing("a");
    expect(started.add(a)).toBe(a);
    expect(started.add(undefined)).toBeUndefined();
    started.add(thing("b"));
    started.add(thing("c"));
    await started.close();
    expect(closed).toEqual(["c", "b", "a"]);
  });

  it("closes once: a second close shares the first", async () => {
    const { closed, thing } = recorder();
    const started = startedList();
    started.add(thing("a"));
    const first = started.close();
    expect(started.close()).toBe(first);
    await first;
    await started.close();
    expect(closed).toEqual(["a"]);
  });

  it("tries every close when one fails, then throws that failure", async () => {
    const { closed, thing } = recorder();
    const started = startedList();
    const boom = new Error("b failed");
    started.add(thing("a"));
    started.add(thing("b", boom));
    started.add(thing("c"));
    await expect(started.close()).rejects.toBe(boom);
    expect(closed).toEqual(["c", "b", "a"]);
  });

  it("throws an AggregateError of every failure when several fail", async () => {
    const { thing } = recorder();
    const started = startedList();
    const one = new Error("one");
    const two = new Error("two");
    started.add(thing("a", one));
    started.add(thing("b", two));
    const e: unknown = await started.close().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AggregateError);
    expect((e as AggregateError).errors).toEqual([two, one]);
  });

  it("refuses to add once closed", async () => {
    const { thing } = recorder();
    const started = startedList();
    await started.close();
    expect(() => started.add(thing("late"))).toThrow(/closed/);
  });
});

describe("startInOrder", () => {
  it("leaves everything running when the start succeeds", async () => {
    const { closed, thing } = recorder();
    let list: { close(): Promise<void> } | undefined;
    const value = await startInOrder(async (started) => {
      started.add(thing("a"));
      list = started;
      return Promise.resolve(42);
    });
    expect(value).toBe(42);
    expect(closed).toEqual([]);
    await list?.close();
    expect(closed).toEqual(["a"]);
  });

  it("closes what was started, last first, and throws the start's own error", async () => {
    const { closed, thing } = recorder();
    const cause = new Error("redis unreachable");
    await expect(
      startInOrder(async (started) => {
        started.add(thing("infra"));
        started.add(thing("outbox"));
        await Promise.resolve();
        started.add(thing("workers"));
        throw cause;
      }),
    ).rejects.toBe(cause);
    expect(closed).toEqual(["workers", "outbox", "infra"]);
  });

  it("hands a close failing after a failed start to onCloseError, keeping the start's error", async () => {
    const { closed, thing } = recorder();
    const cause = new Error("console store unreachable");
    const closeFailure = new Error("quit failed");
    const reported: unknown[] = [];
    await expect(
      startInOrder(
        async (started) => {
          started.add(thing("a"));
          started.add(thing("b", closeFailure));
          await Promise.resolve();
          throw cause;
        },
        (e) => reported.push(e),
      ),
    ).rejects.toBe(cause);
    expect(closed).toEqual(["b", "a"]);
    expect(reported).toEqual([closeFailure]);
  });
});
