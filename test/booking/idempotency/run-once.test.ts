/**
 * The core's one idempotency mechanism (docs/ARCHITECTURE.md, Idempotency): runOnce over the
 * store port, against the memory store (the entry decision OSBP's stores share) and against
 * the hold store's SchCP §9.1 records. What differs between the two is pinned here: whether a
 * different request is a conflict while the first still runs.
 */
import { describe, expect, it } from "vitest";
import {
  decideBegin,
  holdStoreIdempotency,
  MemoryIdempotencyStore,
  runOnce,
  type IdempotencyKey,
  type IdempotencyStore,
  type KeptResponse,
} from "../../../src/booking/idempotency/index.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const LEASE = 60_000;
const RETAIN = 3_600_000;
const TIMES = { leaseMs: LEASE, retentionMs: RETAIN };

class Clock {
  constructor(public t = T0) {}
  now(): number {
    return this.t;
  }
}

let n = 0;
const freshId = (): IdempotencyKey => ({ scope: "agent-1", key: `k-${++n}` });

/** A run that counts its calls, and can be held open until `finish`. */
function counted<T>(value: (calls: number) => T) {
  let calls = 0;
  let finish: () => void = () => undefined;
  return {
    calls: () => calls,
    run: () => Promise.resolve(value(++calls)),
    slow: () => {
      calls++;
      const at = calls;
      return new Promise<T>((resolve) => (finish = () => resolve(value(at))));
    },
    finish: () => finish(),
  };
}

interface Backend<A> {
  readonly name: string;
  store(): IdempotencyStore<A>;
  answer(n: number): A;
  /** Whether another fingerprint is a conflict while the first attempt still runs. */
  readonly conflictInFlight: boolean;
}

const memory: Backend<string> = {
  name: "memory (the entry decision of OSBP's stores)",
  store: () => new MemoryIdempotencyStore<string>(TIMES),
  answer: (i) => `answer ${i}`,
  conflictInFlight: true,
};

const holdStore: Backend<KeptResponse> = {
  name: "the hold store's §9.1 records",
  store: () => holdStoreIdempotency(new MemoryHoldStore(), TIMES),
  answer: (i) => ({ principal: "p-1", response: { status: 201, body: `{"n":${i}}` } }),
  conflictInFlight: false,
};

function mechanism<A>(backend: Backend<A>): void {
  describe(`runOnce over ${backend.name}`, () => {
    const keepAll = (clock: Clock) => ({ clock, keep: (a: A) => a });

    it("runs once; the same request gets the kept answer without running again", async () => {
      const store = backend.store();
      const clock = new Clock();
      const id = freshId();
      const op = counted((i) => backend.answer(i));
      const first = await runOnce(store, { id, fingerprint: "f1" }, op.run, keepAll(clock));
      clock.t += 1_000;
      const again = await runOnce(store, { id, fingerprint: "f1" }, op.run, keepAll(clock));
      expect(first).toEqual({ kind: "ran", result: backend.answer(1) });
      expect(again).toEqual({ kind: "replayed", answer: backend.answer(1) });
      expect(op.calls()).toBe(1);
      // Another scope with the same key is another operation.
      const other = { scope: "agent-2", key: id.key };
      expect((await runOnce(store, { id: other, fingerprint: "f1" }, op.run, keepAll(clock))).kind).toBe(
        "ran",
      );
    });

    it("another request under a settled key is a conflict and does not run", async () => {
      const store = backend.store();
      const clock = new Clock();
      const id = freshId();
      const op = counted((i) => backend.answer(i));
      await runOnce(store, { id, fingerprint: "f1" }, op.run, keepAll(clock));
      expect(await runOnce(store, { id, fingerprint: "f2" }, op.run, keepAll(clock))).toEqual({
        kind: "conflict",
      });
      expect(op.calls()).toBe(1);
    });

    it("a duplicate while the first runs is in_progress; another request then is per the store", async () => {
      const store = backend.store();
      const clock = new Clock();
      const id = freshId();
      const op = counted((i) => backend.answer(i));
      const first = runOnce(store, { id, fingerprint: "f1" }, op.slow, keepAll(clock));
      await new Promise((r) => setImmediate(r));
      expect(await runOnce(store, { id, fingerprint: "f1" }, op.run, keepAll(clock))).toEqual({
        kind: "in_progress",
      });
      expect(await runOnce(store, { id, fingerprint: "f2" }, op.run, keepAll(clock))).toEqual({
        kind: backend.conflictInFlight ? "conflict" : "in_progress",
      });
      op.finish();
      expect(await first).toEqual({ kind: "ran", result: backend.answer(1) });
      expect(op.calls()).toBe(1);
    });

    it("a crashed first attempt holds the key for the lease time, then the retry runs", async () => {
      const store = backend.store();
      const id = freshId();
      // The first attempt began and its process died: nothing settles or releases it.
      expect((await store.begin(id, "f1", T0)).kind).toBe("started");
      const op = counted((i) => backend.answer(i));
      const at = (t: number) => runOnce(store, { id, fingerprint: "f1" }, op.run, keepAll(new Clock(t)));
      expect(await at(T0 + LEASE - 1)).toEqual({ kind: "in_progress" });
      expect(await at(T0 + LEASE)).toEqual({ kind: "ran", result: backend.answer(1) });
      expect(await at(T0 + LEASE + 1)).toEqual({ kind: "replayed", answer: backend.answer(1) });
    });

    it("a result it is told not to keep leaves the key free for the same or another request", async () => {
      const store = backend.store();
      const clock = new Clock();
      const id = freshId();
      const op = counted((i) => backend.answer(i));
      const keepNone = { clock, keep: () => undefined };
      expect((await runOnce(store, { id, fingerprint: "f1" }, op.run, keepNone)).kind).toBe("ran");
      expect((await runOnce(store, { id, fingerprint: "f1" }, op.run, keepNone)).kind).toBe("ran");
      expect((await runOnce(store, { id, fingerprint: "f2" }, op.run, keepAll(clock))).kind).toBe("ran");
      expect(op.calls()).toBe(3);
    });

    it("a run that throws releases the lease and propagates", async () => {
      const store = backend.store();
      const clock = new Clock();
      const id = freshId();
      const boom = () => Promise.reject(new Error("upstream down"));
      await expect(runOnce(store, { id, fingerprint: "f1" }, boom, keepAll(clock))).rejects.toThrow(
        "upstream down",
      );
      const op = counted((i) => backend.answer(i));
      expect((await runOnce(store, { id, fingerprint: "f1" }, op.run, keepAll(clock))).kind).toBe("ran");
    });

    it("keeps the answer for the retention time from when it was kept (the clock read again)", async () => {
      const store = backend.store();
      const clock = new Clock();
      const id = freshId();
      const op = counted((i) => backend.answer(i));
      const late = () => {
        clock.t = T0 + 10_000;
        return op.run();
      };
      await runOnce(store, { id, fingerprint: "f1" }, late, keepAll(clock));
      const at = (t: number) => runOnce(store, { id, fingerprint: "f1" }, op.run, keepAll(new Clock(t)));
      expect((await at(T0 + 10_000 + RETAIN - 1)).kind).toBe("replayed");
      expect((await at(T0 + 10_000 + RETAIN)).kind).toBe("ran");
    });
  });
}

mechanism(memory);
mechanism(holdStore);

describe("runOnce: store failures after the run", () => {
  function failing(operation: "settle" | "release"): IdempotencyStore<string> {
    const inner = new MemoryIdempotencyStore<string>(TIMES);
    return {
      begin: (id, fingerprint, now) => inner.begin(id, fingerprint, now),
      settle: (a, answer, now) =>
        operation === "settle" ? Promise.reject(new Error("settle failed")) : inner.settle(a, answer, now),
      release: (a) =>
        operation === "release" ? Promise.reject(new Error("release failed")) : inner.release(a),
    };
  }

  it("propagate without onStoreError", async () => {
    const clock = new Clock();
    await expect(
      runOnce(failing("settle"), { id: freshId(), fingerprint: "f" }, () => Promise.resolve("a"), {
        clock,
        keep: (a) => a,
      }),
    ).rejects.toThrow("settle failed");
    // A release failing after a throw replaces the run's error, as before.
    await expect(
      runOnce(
        failing("release"),
        { id: freshId(), fingerprint: "f" },
        () => Promise.reject(new Error("run")),
        {
          clock,
          keep: (a: string) => a,
        },
      ),
    ).rejects.toThrow("release failed");
  });

  it("are reported to onStoreError, and the run's result or error stands", async () => {
    const clock = new Clock();
    const seen: string[] = [];
    const onStoreError = (operation: string, error: unknown) =>
      seen.push(`${operation}: ${(error as Error).message}`);
    expect(
      await runOnce(failing("settle"), { id: freshId(), fingerprint: "f" }, () => Promise.resolve("a"), {
        clock,
        keep: (a) => a,
        onStoreError,
      }),
    ).toEqual({ kind: "ran", result: "a" });
    expect(
      await runOnce(failing("release"), { id: freshId(), fingerprint: "f" }, () => Promise.resolve("a"), {
        clock,
        keep: () => undefined,
        onStoreError,
      }),
    ).toEqual({ kind: "ran", result: "a" });
    await expect(
      runOnce(
        failing("release"),
        { id: freshId(), fingerprint: "f" },
        () => Promise.reject(new Error("run")),
        {
          clock,
          keep: (a: string) => a,
          onStoreError,
        },
      ),
    ).rejects.toThrow("run");
    expect(seen).toEqual(["settle: settle failed", "release: release failed", "release: release failed"]);
  });
});

describe("decideBegin", () => {
  const started = { state: "started", fingerprint: "f1", until: T0 + 10 } as const;
  const settled = { state: "settled", fingerprint: "f1", answer: "a", until: T0 + 10 } as const;
  it("judges an entry at `now`: past its until it is absent", () => {
    expect(decideBegin(undefined, "f1", T0)).toEqual({ kind: "free" });
    expect(decideBegin(started, "f1", T0 + 10)).toEqual({ kind: "free" });
    expect(decideBegin(settled, "f2", T0 + 10)).toEqual({ kind: "free" });
    expect(decideBegin(started, "f1", T0)).toEqual({ kind: "in_progress" });
    expect(decideBegin(started, "f2", T0)).toEqual({ kind: "conflict" });
    expect(decideBegin(settled, "f1", T0)).toEqual({ kind: "replay", answer: "a" });
    expect(decideBegin(settled, "f2", T0)).toEqual({ kind: "conflict" });
  });
});
