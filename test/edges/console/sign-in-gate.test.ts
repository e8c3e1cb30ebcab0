/**
 * The sign-in gate (sign-in-gate.ts) on its own: per-origin share, places running, a bounded
 * queue, and everything past them answered "busy" at once; a failed check frees its place.
 */
import { expect, it } from "vitest";
import { SignInGate } from "../../../src/edges/console/sign-in-gate.js";

/** A check the test finishes by hand. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  let started = false;
  return {
    check: async () => {
      started = true;
      await done;
      return "checked";
    },
    finish: () => finish(),
    started: () => started,
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

it("runs `concurrent` at once, queues `queue` more, and answers the rest busy at once", async () => {
  const gate = new SignInGate({ perOrigin: 1, concurrent: 2, queue: 1 });
  const [a, b, c, d] = [held(), held(), held(), held()];
  const ra = gate.run("a", a.check);
  const rb = gate.run("b", b.check);
  const rc = gate.run("c", c.check);
  await tick();
  expect([a.started(), b.started(), c.started()]).toEqual([true, true, false]);
  expect(await gate.run("d", d.check)).toEqual({ ok: false, error: "busy" });
  // One origin's second check is busy while its first runs or waits.
  expect(await gate.run("a", () => Promise.resolve("again"))).toEqual({ ok: false, error: "busy" });
  expect(await gate.run("c", () => Promise.resolve("again"))).toEqual({ ok: false, error: "busy" });
  a.finish();
  expect(await ra).toEqual({ ok: true, value: "checked" });
  await tick();
  expect(c.started()).toBe(true);
  b.finish();
  c.finish();
  expect(await rb).toEqual({ ok: true, value: "checked" });
  expect(await rc).toEqual({ ok: true, value: "checked" });
  expect(await gate.run("a", () => Promise.resolve("later"))).toEqual({ ok: true, value: "later" });
});

it("a check that throws frees its places", async () => {
  const gate = new SignInGate({ perOrigin: 1, concurrent: 1, queue: 0 });
  await expect(gate.run("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  expect(await gate.run("a", () => Promise.resolve(1))).toEqual({ ok: true, value: 1 });
  expect(await gate.run("b", () => Promise.resolve(2))).toEqual({ ok: true, value: 2 });
});
