/**
 * Approver messages are capped per host and window (src/booking/approval/notify.ts): 36
 * pending bookings in one hour send 5 links and one digest, not 36 messages; the next hour
 * sends links again; another host has its own budget. The count is shared across processes
 * through Redis (two budgets on one server count as one).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MemoryNoticeBudget,
  notifyApprover,
  RedisNoticeBudget,
  type NoticeBudget,
  type OutgoingMessage,
} from "../../../src/booking/approval/notify.js";
import { openRedis, type RedisClient } from "../../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-12-07T10:05:00Z");
let redis: TestRedis;
const clients: RedisClient[] = [];
const prefix = uniquePrefix("notice");

beforeAll(async () => {
  redis = await startTestRedis();
}, 60_000);
afterAll(async () => {
  if (clients[0] !== undefined) await dropPrefix(clients[0], prefix);
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

const notice = (hostId: string, i: number) => ({
  hostId,
  hostName: "Ada's tutoring",
  approver: { email: "ada@example.com" },
  bookingId: `evt_${i}`,
  serviceName: "Lesson",
  start: Date.parse("2026-12-07T10:00:00Z"),
  end: Date.parse("2026-12-07T11:00:00Z"),
  timeZone: "Europe/London",
  answerBy: T0 + 2 * HOUR,
});

const budgets: Array<[string, () => [NoticeBudget, NoticeBudget]]> = [
  [
    "memory",
    () => {
      const b = new MemoryNoticeBudget();
      return [b, b];
    },
  ],
  [
    "redis (two processes)",
    () => {
      const p = `${prefix}${Math.random().toString(36).slice(2)}:`;
      const one = openRedis(redis.url);
      const two = openRedis(redis.url);
      clients.push(one, two);
      return [new RedisNoticeBudget(one, p), new RedisNoticeBudget(two, p)];
    },
  ],
];

describe.each(budgets)("approver messages per host and hour (%s)", (_kind, make) => {
  it("36 requests in an hour: 5 links and one digest; the next hour sends links again", async () => {
    const [a, b] = make();
    const sent: OutgoingMessage[] = [];
    let now = T0;
    const deps = (budget: NoticeBudget) => ({
      secret: new Uint8Array(32).fill(7),
      origin: "https://gw.example/",
      send: (m: OutgoingMessage) => sent.push(m),
      budget,
      clock: { now: () => now },
    });
    const outcomes = await Promise.all(
      Array.from({ length: 36 }, (_, i) => notifyApprover(deps(i % 2 ? a : b), notice("tutor", i))),
    );
    expect(outcomes.filter((o) => o.outcome === "sent")).toHaveLength(5);
    expect(outcomes.filter((o) => o.outcome === "digest")).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === "folded")).toHaveLength(30);
    expect(sent).toHaveLength(6);
    const digest = sent.find((m) => m.key.startsWith("approval-digest:"));
    expect(digest?.text).toContain("https://gw.example/console");
    expect(digest?.text).toContain("5 every 60 minutes");
    // Every link sent is for one booking; the digest carries none.
    expect(sent.filter((m) => m.text.includes("/approve/"))).toHaveLength(5);

    // Another host has its own budget.
    expect((await notifyApprover(deps(a), notice("clinic", 99))).outcome).toBe("sent");
    // The next hour: links again.
    now = T0 + HOUR;
    expect((await notifyApprover(deps(b), notice("tutor", 100))).outcome).toBe("sent");
  });
});

it("without a budget every request is messaged (the behaviour before the cap)", async () => {
  const sent: OutgoingMessage[] = [];
  const deps = {
    secret: new Uint8Array(32),
    origin: "https://gw.example",
    send: (m: OutgoingMessage) => sent.push(m),
  };
  for (let i = 0; i < 8; i++) await notifyApprover(deps, notice("tutor", i));
  expect(sent).toHaveLength(8);
});
