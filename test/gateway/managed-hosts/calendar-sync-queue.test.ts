/**
 * The calendar sync queue takes hosts while it runs (a calendar host activated from the
 * console) and lets them go (deactivated): in process, and on BullMQ (real Redis).
 */
import { randomBytes } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import {
  bullmqCalendarSyncQueue,
  CALENDAR_SYNC_QUEUE,
  memoryCalendarSyncQueue,
} from "../../../src/jobs/calendar-sync/queue.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const until = async (ok: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return ok();
};

describe("calendar sync queue: hosts added and removed while it runs", () => {
  it("in process: an added host syncs at once and on its schedule; a removed one stops", async () => {
    const runs: string[] = [];
    const q = memoryCalendarSyncQueue([], (hostId) => Promise.resolve(void runs.push(hostId)), quiet);
    try {
      await q.add({ hostId: "ana", everyMs: 30 });
      expect(await until(() => runs.filter((h) => h === "ana").length >= 3)).toBe(true);
      await q.remove("ana");
      await new Promise((r) => setTimeout(r, 20));
      const after = runs.length;
      await new Promise((r) => setTimeout(r, 120));
      expect(runs.length).toBe(after);
    } finally {
      await q.close();
    }
  });

  it("BullMQ: an added host gets a scheduler and runs; a removed one's scheduler is gone", async () => {
    const prefix = `{test:calsync:${randomBytes(6).toString("hex")}}`;
    const runs: string[] = [];
    const q = bullmqCalendarSyncQueue(
      { redisUrl: REDIS_URL, prefix },
      [],
      (hostId) => Promise.resolve(void runs.push(hostId)),
      quiet,
    );
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const inspect = new Queue(CALENDAR_SYNC_QUEUE, { connection, prefix });
    try {
      await q.add({ hostId: "ana", everyMs: 60_000 });
      expect(await until(() => runs.includes("ana"))).toBe(true);
      expect((await inspect.getJobSchedulers()).map((s) => s.key)).toEqual(["calendar:ana"]);
      await q.remove("ana");
      expect(await inspect.getJobSchedulers()).toEqual([]);
    } finally {
      await q.close();
      await inspect.obliterate({ force: true });
      await inspect.close();
      connection.disconnect();
    }
  });
});
