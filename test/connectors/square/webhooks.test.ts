/**
 * Webhook primitives: the x-square-hmacsha256-signature check (HMAC-SHA256 of notification URL +
 * raw body, base64, constant-time), booking event parsing, and replay de-duplication.
 */
import { createHmac } from "node:crypto";
import { WebhooksHelper } from "square";
import { describe, expect, it } from "vitest";
import {
  parseSquareBookingEvent,
  verifySquareSignature,
  type SquareBookingChange,
} from "../../../src/connectors/square/index.js";
import { MemoryEventDeduplicator } from "../../../src/edges/inbound/square-webhooks.js";
import { readFixture } from "../../support/fixtures.js";

const KEY = "whsec-test-signature-key-1";
const URL_ = "https://gateway.example.com/webhooks/square/host-1";
const created = readFixture("square/webhook-booking-created.json");
const updated = readFixture("square/webhook-booking-updated.json");

const sign = (url: string, body: string, key = KEY) =>
  createHmac("sha256", key)
    .update(url + body)
    .digest("base64");

describe("verifySquareSignature", () => {
  it("accepts Square's signature, the same the SDK's helper computes", async () => {
    const signatureHeader = sign(URL_, created);
    expect(
      await WebhooksHelper.verifySignature({
        requestBody: created,
        signatureHeader,
        signatureKey: KEY,
        notificationUrl: URL_,
      }),
    ).toBe(true);
    expect(
      verifySquareSignature({ signatureKey: KEY, notificationUrl: URL_, rawBody: created, signatureHeader }),
    ).toBe(true);
    expect(
      verifySquareSignature({
        signatureKey: KEY,
        notificationUrl: URL_,
        rawBody: Buffer.from(created),
        signatureHeader,
      }),
    ).toBe(true);
  });

  it("refuses a bad signature, a tampered body or URL, the wrong key, a missing or malformed header", () => {
    const good = sign(URL_, created);
    const check = (over: Partial<Parameters<typeof verifySquareSignature>[0]>) =>
      verifySquareSignature({
        signatureKey: KEY,
        notificationUrl: URL_,
        rawBody: created,
        signatureHeader: good,
        ...over,
      });
    expect(check({})).toBe(true);
    expect(check({ rawBody: created.replace('"ACCEPTED"', '"DECLINED"') })).toBe(false);
    expect(check({ rawBody: `${created} ` })).toBe(false);
    expect(check({ notificationUrl: `${URL_}/` })).toBe(false);
    expect(check({ signatureKey: "another-key" })).toBe(false);
    expect(check({ signatureHeader: undefined })).toBe(false);
    expect(check({ signatureHeader: "" })).toBe(false);
    expect(check({ signatureHeader: "not base64 at all!" })).toBe(false);
    expect(check({ signatureHeader: sign(URL_, created).slice(0, 20) })).toBe(false);
    expect(
      check({
        signatureHeader: createHmac("sha1", KEY)
          .update(URL_ + created)
          .digest("base64"),
      }),
    ).toBe(false);
  });
});

describe("parseSquareBookingEvent", () => {
  it("booking.created and booking.updated become neutral changes", () => {
    expect(parseSquareBookingEvent(created)).toEqual({
      ok: true,
      value: {
        eventId: "2f8bbe2e-6a0f-3d8b-9a53-3f0e1d2c9b41",
        kind: "created",
        bookingId: "zkras0xv0xwswx",
        locationId: "L7M2SEJXJ3TQE",
        version: 1,
        status: "confirmed",
        start: Date.parse("2026-10-19T13:00:00Z"),
        end: Date.parse("2026-10-19T14:00:00Z"),
        serviceId: "GUN7HNQBH7ZRARYZN52E7O4B",
        resourceIds: ["TMXUrsBWWcHTt79t"],
        idempotencyKey: "maple:hold-7f3a",
        occurredAt: Date.parse("2026-10-18T16:02:12Z"),
      },
    });
    const u = parseSquareBookingEvent(Buffer.from(updated));
    expect(u.ok && u.value).toMatchObject({
      kind: "updated",
      version: 3,
      status: "cancelled",
      resourceIds: ["TMmXGjMHB3Q4R1sK"],
    });
    expect(u.ok && u.value?.idempotencyKey).toBeUndefined();
  });

  it("other events are null; malformed booking events name the field", () => {
    expect(parseSquareBookingEvent('{"type":"payment.created","event_id":"x","data":{}}')).toEqual({
      ok: true,
      value: null,
    });
    expect(parseSquareBookingEvent("{not json").ok).toBe(false);
    const noVersion = JSON.parse(created) as { data: { object: { booking: Record<string, unknown> } } };
    delete noVersion.data.object.booking["version"];
    const r = parseSquareBookingEvent(JSON.stringify(noVersion));
    expect(r.ok ? undefined : r.error.field).toBe("/data/object/booking/version");
  });
});

describe("replays", () => {
  /** What an integrator's receiver does: verify, parse, de-dup, queue (here: a list). */
  async function receive(
    dedup: MemoryEventDeduplicator,
    queue: SquareBookingChange[],
    rawBody: string,
    signatureHeader: string | undefined,
  ): Promise<number> {
    if (!verifySquareSignature({ signatureKey: KEY, notificationUrl: URL_, rawBody, signatureHeader }))
      return 401;
    const parsed = parseSquareBookingEvent(rawBody);
    if (!parsed.ok || parsed.value === null) return 200;
    if (await dedup.seen(parsed.value.eventId)) return 200;
    queue.push(parsed.value);
    return 200;
  }

  it("a redelivered event is answered 2xx and processed once; a forged one not at all", async () => {
    let now = Date.parse("2026-10-18T16:02:13Z");
    const dedup = new MemoryEventDeduplicator({ clock: { now: () => now } });
    const queue: SquareBookingChange[] = [];
    const sig = sign(URL_, created);
    expect(await receive(dedup, queue, created, sig)).toBe(200);
    expect(await receive(dedup, queue, created, sig)).toBe(200);
    now += 3_600_000;
    expect(await receive(dedup, queue, created, sig)).toBe(200);
    expect(await receive(dedup, queue, updated, sign(URL_, updated))).toBe(200);
    expect(
      await receive(dedup, queue, updated.replace('"version": 3', '"version": 4'), sign(URL_, updated)),
    ).toBe(401);
    expect(queue.map((c) => [c.eventId, c.version])).toEqual([
      ["2f8bbe2e-6a0f-3d8b-9a53-3f0e1d2c9b41", 1],
      ["9c1d4b7a-0e2f-3a61-8f4d-6b2e7c1a5d90", 3],
    ]);
  });

  it("the memory de-dup forgets after its TTL and keeps at most maxEntries", async () => {
    let now = 0;
    const dedup = new MemoryEventDeduplicator({ clock: { now: () => now }, ttlMs: 1000, maxEntries: 2 });
    expect(await dedup.seen("a")).toBe(false);
    expect(await dedup.seen("a")).toBe(true);
    now = 1000;
    expect(await dedup.seen("a")).toBe(false);
    expect(await dedup.seen("b")).toBe(false);
    expect(await dedup.seen("c")).toBe(false);
    expect(await dedup.seen("a")).toBe(false);
    expect(await dedup.seen("c")).toBe(true);
  });
});
