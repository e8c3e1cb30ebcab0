import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { MemoryNoticeBook, RedisNoticeBook, type NoticeBook } from "../../src/booking/hosts/notices.js";
import { startTestRedis, uniquePrefix } from "../support/redis.js";

const t0 = Date.parse("2026-12-03T10:00:00Z");
const sighting = {
  vendor: "square",
  call: "POST /v2/bookings",
  deprecation: "@1767225600",
  sunset: "Wed, 30 Jun 2027 23:59:59 GMT",
};

async function exercise(book: NoticeBook) {
  await book.record("h1", sighting, t0);
  await book.record("h1", sighting, t0 + 60_000);
  await book.record(
    "h1",
    { vendor: "square", call: "GET /v2/bookings/{id}", sunset: "Wed, 30 Jun 2027 23:59:59 GMT" },
    t0,
  );
  await book.record("h2", sighting, t0);
  const h1 = await book.list("h1");
  expect(h1.map((n) => n.call)).toEqual(["GET /v2/bookings/{id}", "POST /v2/bookings"]);
  expect(h1[1]).toEqual({
    ...sighting,
    first_seen: "2026-12-03T10:00:00.000Z",
    last_seen: "2026-12-03T10:01:00.000Z",
  });
  expect(await book.list("h2")).toHaveLength(1);
  expect(await book.list("nobody")).toEqual([]);
}

describe("upstream retirement notices per host", () => {
  it("memory: one entry per vendor and call, first and last seen", () => exercise(new MemoryNoticeBook()));

  it("Redis: the same, shared by every process", async () => {
    const server = await startTestRedis();
    const redis = new Redis(server.url);
    const prefix = uniquePrefix("notices");
    try {
      await exercise(new RedisNoticeBook(redis, prefix));
      const other = new Redis(server.url);
      expect(await new RedisNoticeBook(other, prefix).list("h2")).toHaveLength(1);
      other.disconnect();
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await server.stop();
    }
  });
});
