/** The in-process calendar catch-up at start: a few hosts at a time, its progress logged. */
import { describe, expect, it } from "vitest";
import { memoryCalendarSyncQueue } from "../../src/jobs/calendar-sync/queue.js";

function logger() {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const push = (message: string, fields?: Record<string, unknown>) => void lines.push({ message, fields });
  return { lines, info: push, warn: push, error: push };
}

describe("memoryCalendarSyncQueue catch-up", () => {
  it("syncs every host at start, never more than `concurrency` at once, and logs how far it got", async () => {
    const log = logger();
    let active = 0;
    let most = 0;
    const done: string[] = [];
    const schedules = Array.from({ length: 40 }, (_, i) => ({ hostId: `h${i}`, everyMs: 3_600_000 }));
    let finished!: () => void;
    const all = new Promise<void>((r) => (finished = r));
    const queue = memoryCalendarSyncQueue(
      schedules,
      async (hostId) => {
        active++;
        most = Math.max(most, active);
        await new Promise((r) => setTimeout(r, 2));
        active--;
        done.push(hostId);
        if (done.length === schedules.length) finished();
      },
      log,
      { concurrency: 4 },
    );
    await all;
    await new Promise((r) => setTimeout(r, 5));
    await queue.close();
    expect(done).toHaveLength(40);
    expect(most).toBe(4);
    const progress = log.lines.filter((l) => l.message === "calendar catch-up");
    expect(progress.map((l) => l.fields?.synced)).toEqual([4, 8, 12, 16, 20, 24, 28, 32, 36, 40]);
    expect(progress.at(-1)?.fields).toMatchObject({ hosts: 40, concurrency: 4 });
  });

  it("does not hold a request behind the catch-up", async () => {
    const log = logger();
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const queue = memoryCalendarSyncQueue(
      [{ hostId: "slow", everyMs: 3_600_000 }],
      async (hostId) => {
        started.push(hostId);
        if (hostId === "slow") await gate;
      },
      log,
      { concurrency: 1 },
    );
    await queue.request("pushed", "push");
    expect(started).toEqual(["slow", "pushed"]);
    release();
    await queue.close();
  });
});
