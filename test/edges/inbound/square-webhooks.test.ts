/**
 * POST /webhooks/square/{hostId} (src/edges/inbound/square-webhooks.ts) on a real gateway with
 * Redis, whose Square host talks to a loopback fake of Square (test/e2e/support/fake-square.ts):
 * a booking made over SchCP, then changed in "Square's own tools" (the fake), then notified.
 *
 * - a bad signature (wrong key, tampered body, a URL other than PUBLIC_ORIGIN + path, none)
 *   is 401 and nothing is done;
 * - a cancellation in Square cancels the gateway booking (the operator's host cancel: the
 *   guest's receipt reads cancelled);
 * - a replayed event is worked once (Redis SET NX de-dup);
 * - a move in Square (new start, another team member) moves the gateway booking through the
 *   core (src/booking/operator/upstream-move.ts): its busy time in the hold store, the SchCP
 *   GET (new time, sequence + 1, a new receipt), the guest's booking.change_approved webhook;
 *   a replay changes nothing; a move onto another gateway booking's time is still recorded,
 *   logged SQUARE MOVE CONFLICT and shown in the operator's view.
 *
 * Square's RetrieveBooking answers come from the loopback fake, in the shape of
 * fixtures/square/booking.json (fixtures/square/SOURCES.md names the reference pages).
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt, type DiscoveredHost } from "../../../src/agent/index.js";
import { RedisEventDeduplicator } from "../../../src/edges/inbound/square-webhooks.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { readFixture } from "../../support/fixtures.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import {
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  operator,
  type E2eAgent,
} from "../../e2e/support/agents.js";
import {
  FakeSquareServer,
  SQUARE_AVERY,
  SQUARE_HAIRCUT,
  SQUARE_JORDAN,
  SQUARE_LOCATION_ID,
} from "../../e2e/support/fake-square.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";
import { CALLBACK_ORIGIN, startWebhookSink, type WebhookSink } from "../../e2e/support/webhooks.js";

const HOST = "maple-square";
const TOKEN = "EAAAl-webhook-test-token-0123456789";
const SIGNATURE_KEY = "whsec-e2e-signature-key-1";

const square = new FakeSquareServer(TOKEN);
let sink: WebhookSink;
let redis: TestRedis;
let prefix: string;
let gw: E2eGateway;

beforeAll(async () => {
  redis = await startTestRedis();
  prefix = uniquePrefix("sqwh");
  await square.start();
  sink = await startWebhookSink();
  gw = await startGateway({
    redisUrl: redis.url,
    redisKeyPrefix: prefix,
    runtime: { workers: false, webhookFetch: sink.transport },
    config: {
      hosts: [
        {
          id: HOST,
          name: "Maple Street Studio",
          timezone: "America/Toronto",
          connector: {
            type: "square",
            settings: {
              environment: "sandbox",
              locationId: SQUARE_LOCATION_ID,
              version: "2026-08-20",
              accessToken: TOKEN,
              baseUrl: square.origin,
              webhookSignatureKey: SIGNATURE_KEY,
            },
          },
          policies: { confirmation: "instant", retention: "P365D" },
          services: [],
        },
      ],
    },
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await square.close();
  await sink?.close();
  if (redis !== undefined) {
    const { Redis } = await import("ioredis");
    const admin = new Redis(redis.url);
    await dropPrefix(admin, prefix);
    admin.disconnect();
    await redis.stop();
  }
}, 60_000);

const sign = (url: string, body: string, key = SIGNATURE_KEY) =>
  createHmac("sha256", key)
    .update(url + body)
    .digest("base64");

function notificationUrl(hostId = HOST): string {
  return `${gw.origin}/webhooks/square/${hostId}`;
}

async function post(body: string, signature: string | undefined, hostId = HOST): Promise<Response> {
  return fetch(notificationUrl(hostId), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(signature !== undefined && { "x-square-hmacsha256-signature": signature }),
    },
    body,
  });
}

interface Made {
  readonly agent: E2eAgent;
  readonly host: DiscoveredHost;
  readonly bookingId: string;
  readonly mandate: string;
  readonly upstreamId: string;
  readonly start: number;
}

/** A booking made over SchCP; its Square id is the fake's newest booking. */
async function book(fromDays: number): Promise<Made> {
  const agent = newAgent(gw);
  const host = await discover(agent, gw, HOST);
  const [slot] = await freeSlots(agent, gw, host, SQUARE_HAIRCUT, { fromDays, toDays: fromDays + 7 });
  const made = await holdAndBook(agent, host, SQUARE_HAIRCUT, slot!.start);
  const upstreamId = [...square.bookings.keys()].at(-1)!;
  expect(Date.parse(String(square.bookings.get(upstreamId)?.["start_at"]))).toBe(Date.parse(slot!.start));
  return {
    agent,
    host,
    bookingId: made.booking.booking.booking_id,
    mandate: made.mandate.compact,
    upstreamId,
    start: Date.parse(slot!.start),
  };
}

async function statusOf(m: Made): Promise<string> {
  const r = must(await m.agent.client.getBooking(m.host, m.bookingId, { mandate: m.mandate }), "get booking");
  return r.body.booking.status;
}

const logged = (text: string) => gw.logs.filter((l) => l.message.includes(text));

describe("POST /webhooks/square/{hostId}", { timeout: 120_000 }, () => {
  it("refuses a bad signature with 401 and does nothing", async () => {
    const m = await book(2);
    square.sellerCancels(m.upstreamId);
    const body = square.webhookFor(m.upstreamId);
    const bad: Array<[string, string | undefined, string?]> = [
      ["wrong key", sign(notificationUrl(), body, "another-key")],
      ["tampered body", sign(notificationUrl(), body.replace("CANCELLED", "ACCEPTED"))],
      ["URL other than the public one", sign(`http://localhost:1/webhooks/square/${HOST}`, body)],
      ["no signature", undefined],
      ["garbage", "not base64!"],
    ];
    for (const [what, signature] of bad) {
      const res = await post(body, signature);
      expect(res.status, what).toBe(401);
    }
    await gw.runtime.squareWebhooks!.idle();
    expect(await statusOf(m)).toBe("confirmed");
    expect(logged("cancelled in Square, cancelled here")).toHaveLength(0);
    // A host that is not a Square host with a key has no receiver at all.
    expect((await post(body, sign(notificationUrl("nobody"), body), "nobody")).status).toBe(404);
  });

  it("a cancellation in Square cancels the gateway booking; the replay is worked once", async () => {
    const m = await book(3);
    expect(await statusOf(m)).toBe("confirmed");
    square.sellerCancels(m.upstreamId);
    const body = square.webhookFor(m.upstreamId);
    const first = await post(body, sign(notificationUrl(), body));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true });
    await gw.runtime.squareWebhooks!.idle();
    expect(await statusOf(m)).toBe("cancelled");
    const again = await post(body, sign(notificationUrl(), body));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    await gw.runtime.squareWebhooks!.idle();
    expect(logged("cancelled in Square, cancelled here")).toHaveLength(1);
  });

  it("answers 200 and ignores events it has no use for (another type, another location)", async () => {
    const other = JSON.stringify({ type: "customer.created", event_id: "evt-other-1", data: {} });
    expect((await post(other, sign(notificationUrl(), other))).status).toBe(200);
    const m = await book(5);
    square.sellerCancels(m.upstreamId);
    const elsewhere = square.webhookFor(m.upstreamId).replaceAll(SQUARE_LOCATION_ID, "LOTHERLOCATION1");
    const res = await post(elsewhere, sign(notificationUrl(), elsewhere));
    expect(await res.json()).toMatchObject({ ignored: "another location" });
    await gw.runtime.squareWebhooks!.idle();
    expect(await statusOf(m)).toBe("confirmed");
  });
});

interface Guest extends Made {
  /** The receipt the confirm answered. */
  readonly receipt: string;
  readonly teamMember: string;
}

/** A booking made over SchCP with a callback_url, so the guest's webhooks reach the sink. */
async function bookWithCallback(fromDays: number): Promise<Guest> {
  const agent = newAgent(gw);
  const host = await discover(agent, gw, HOST);
  const [slot] = await freeSlots(agent, gw, host, SQUARE_HAIRCUT, { fromDays, toDays: fromDays + 7 });
  const mandate = await openMandate(agent, host.hostId);
  const callback_url = `${CALLBACK_ORIGIN}/hooks/${agent.key.thumbprint}`;
  const hold = must(
    await agent.client.hold(
      host,
      { service_id: SQUARE_HAIRCUT, start: slot!.start, callback_url },
      { mandate: mandate.compact },
    ),
    "hold",
  );
  const confirmed = must(
    await agent.client.confirm(
      host,
      hold.body.hold_id,
      { offer_sha256: offerSha256(hold.body.offer) },
      { mandate: mandate.compact },
    ),
    "confirm",
  );
  const upstreamId = [...square.bookings.keys()].at(-1)!;
  return {
    agent,
    host,
    bookingId: confirmed.body.booking.booking_id,
    mandate: mandate.compact,
    upstreamId,
    start: Date.parse(slot!.start),
    receipt: confirmed.body.receipt,
    teamMember: teamOf(upstreamId),
  };
}

type Segment = Record<string, unknown>;
const segmentsOf = (upstreamId: string) =>
  square.bookings.get(upstreamId)!["appointment_segments"] as Segment[];
const teamOf = (upstreamId: string) => String(segmentsOf(upstreamId)[0]!["team_member_id"]);

/** The seller gives the booking to another team member (and maybe another time) in Square. */
function sellerReassigns(upstreamId: string, teamMember: string, start?: number): void {
  const b = square.bookings.get(upstreamId)!;
  for (const seg of segmentsOf(upstreamId)) seg["team_member_id"] = teamMember;
  if (start !== undefined) b["start_at"] = new Date(start).toISOString().replace(/\.\d{3}Z$/, "Z");
  b["version"] = Number(b["version"]) + 1;
}

async function notify(upstreamId: string): Promise<string> {
  const body = square.webhookFor(upstreamId);
  const res = await post(body, sign(notificationUrl(), body));
  expect(await res.json()).toEqual({ ok: true });
  await gw.runtime.squareWebhooks!.idle();
  return body;
}

/** Whether the gateway's hold store has `resource` busy at [start, start + 1 min). */
async function busy(resource: string, start: number): Promise<boolean> {
  const occ = await gw.runtime.store.listOccupancy(
    HOST,
    [resource],
    { start, end: start + 60_000 },
    gw.clock.now(),
  );
  return (occ.get(resource) ?? []).length > 0;
}

async function schcpRead(g: Guest) {
  const r = must(await g.agent.client.getBooking(g.host, g.bookingId, { mandate: g.mandate }), "get");
  const verified = must(await verifyBookingReceipt(r.body, g.host, { bookingId: g.bookingId }), "receipt");
  return { booking: verified.booking, receipt: r.body.receipt };
}

const other = (member: string) => (member === SQUARE_AVERY ? SQUARE_JORDAN : SQUARE_AVERY);

describe(
  "a booking moved in Square's own tools (Square is the system of record)",
  { timeout: 120_000 },
  () => {
    it("moves the gateway booking, its busy time and its receipt; the guest is told; a replay changes nothing", async () => {
      const g = await bookWithCallback(6);
      const later = g.start + 60 * 60_000;
      expect(await busy(g.teamMember, g.start)).toBe(true);
      expect(await busy(g.teamMember, later)).toBe(false);

      square.sellerMoves(g.upstreamId, later);
      const body = await notify(g.upstreamId);
      expect(logged("booking moved in Square, moved here")).toHaveLength(1);
      expect(logged("UNRESOLVED")).toHaveLength(0);

      // The hold store: the old time is free again, the new one taken, on the same team member.
      const record = await gw.runtime.store.getBooking(HOST, g.bookingId);
      expect(record?.interval.start).toBe(later);
      expect(record?.allocations.map((a) => a.resourceId)).toEqual([g.teamMember]);
      expect(await busy(g.teamMember, g.start)).toBe(false);
      expect(await busy(g.teamMember, later)).toBe(true);

      // SchCP: the new time, sequence + 1, a new receipt that verifies.
      const read = await schcpRead(g);
      expect(Date.parse(read.booking.start)).toBe(later);
      expect(read.booking).toMatchObject({ status: "confirmed", sequence: 1 });
      expect(read.receipt).not.toBe(g.receipt);

      // The guest's webhook (§5.8), signed and delivered, carries that receipt.
      const { event } = await sink.waitFor(
        (e) => e.type === "booking.change_approved" && e.booking?.booking_id === g.bookingId,
      );
      expect(event.receipt).toBe(read.receipt);
      expect(Date.parse(event.booking!.start)).toBe(later);

      // The same notification again, another event for the same version, and an older version.
      expect(await (await post(body, sign(notificationUrl(), body))).json()).toEqual({
        ok: true,
        duplicate: true,
      });
      await notify(g.upstreamId);
      const older = JSON.parse(square.webhookFor(g.upstreamId)) as {
        data: { object: { booking: { version: number; start_at: string } } };
      };
      older.data.object.booking.version = 1;
      older.data.object.booking.start_at = new Date(g.start).toISOString();
      const olderBody = JSON.stringify(older);
      await post(olderBody, sign(notificationUrl(), olderBody));
      await gw.runtime.squareWebhooks!.idle();
      const again = await schcpRead(g);
      expect(again.receipt).toBe(read.receipt);
      expect(again.booking.sequence).toBe(1);
      expect(logged("booking moved in Square, moved here")).toHaveLength(1);
      expect(sink.deliveries.filter((d) => d.url.endsWith(g.agent.key.thumbprint))).toHaveLength(1);
    });

    it("another team member at the same time: the busy time moves to them", async () => {
      const g = await bookWithCallback(7);
      const to = other(g.teamMember);
      sellerReassigns(g.upstreamId, to);
      await notify(g.upstreamId);
      const record = await gw.runtime.store.getBooking(HOST, g.bookingId);
      expect(record?.allocations.map((a) => a.resourceId)).toEqual([to]);
      expect(await busy(g.teamMember, g.start)).toBe(false);
      expect(await busy(to, g.start)).toBe(true);
      const listed = (await operator(gw, HOST, "/bookings")).json as {
        bookings: Array<{ booking: { booking_id: string; resources: string[] } }>;
      };
      const mine = listed.bookings.find((b) => b.booking.booking_id === g.bookingId);
      expect(mine?.booking.resources).toEqual([to]);
      expect(Date.parse((await schcpRead(g)).booking.start)).toBe(g.start);
    });

    it("onto another gateway booking's time: recorded at Square's time, logged SQUARE MOVE CONFLICT, shown to the operator", async () => {
      const a = await bookWithCallback(8);
      const b = await bookWithCallback(8);
      const target = Date.parse(String(square.bookings.get(b.upstreamId)!["start_at"]));
      sellerReassigns(a.upstreamId, b.teamMember, target);
      await notify(a.upstreamId);

      const conflict = logged("SQUARE MOVE CONFLICT");
      expect(conflict).toHaveLength(1);
      expect(conflict[0]?.fields).toMatchObject({
        booking_id: a.bookingId,
        upstream_id: a.upstreamId,
        conflicts_with: b.bookingId,
      });
      // Never lost: a is at Square's time, holding nothing; b keeps its team member's time.
      const moved = await gw.runtime.store.getBooking(HOST, a.bookingId);
      expect(moved?.state).toBe("active");
      expect(moved?.interval.start).toBe(target);
      expect(moved?.allocations).toEqual([]);
      expect((await gw.runtime.store.getBooking(HOST, b.bookingId))?.allocations).toEqual([
        { resourceId: b.teamMember, units: 1 },
      ]);
      expect(await busy(b.teamMember, target)).toBe(true);
      const read = await schcpRead(a);
      expect(read.booking.status).toBe("confirmed");
      expect(Date.parse(read.booking.start)).toBe(target);

      const listed = (await operator(gw, HOST, "/bookings")).json as {
        bookings: Array<{ booking: { booking_id: string; attention?: Record<string, unknown> } }>;
      };
      const shown = listed.bookings.find((x) => x.booking.booking_id === a.bookingId)?.booking;
      expect(shown?.attention).toMatchObject({
        reason: "upstream_move_conflict",
        conflicts_with: [b.bookingId],
      });
      expect(
        listed.bookings.find((x) => x.booking.booking_id === b.bookingId)?.booking.attention,
      ).toBeUndefined();
    });
  },
);

describe("RedisEventDeduplicator", () => {
  it("SET NX with a TTL under the gateway's prefix: the first sighting is new, the next ones are not", async () => {
    const { Redis } = await import("ioredis");
    const client = new Redis(redis.url);
    try {
      const own = `${prefix}dedup-unit:`;
      const dedup = new RedisEventDeduplicator(client, own, 60_000);
      expect(await dedup.seen("evt-1")).toBe(false);
      expect(await dedup.seen("evt-1")).toBe(true);
      expect(await dedup.seen("evt-2")).toBe(false);
      const ttl = await client.pttl(`${own}square:webhook-event:evt-1`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      client.disconnect();
    }
  });
});

describe("without Redis", { timeout: 60_000 }, () => {
  it("de-duplicates in process memory", async () => {
    const memory = await startGateway({
      runtime: { workers: false },
      config: {
        hosts: [
          {
            id: "memory-square",
            name: "Maple Street Studio",
            timezone: "America/Toronto",
            connector: {
              type: "square",
              settings: {
                environment: "sandbox",
                locationId: SQUARE_LOCATION_ID,
                version: "2026-08-20",
                accessToken: TOKEN,
                baseUrl: square.origin,
                webhookSignatureKey: SIGNATURE_KEY,
              },
            },
            services: [],
          },
        ],
      },
    });
    try {
      const url = `${memory.origin}/webhooks/square/memory-square`;
      const body = JSON.stringify({ type: "customer.created", event_id: "evt-memory-1", data: {} });
      const other = readFixture("square/webhook-booking-updated.json");
      const send = async (b: string) =>
        (
          await fetch(url, {
            method: "POST",
            headers: { "x-square-hmacsha256-signature": sign(url, b) },
            body: b,
          })
        ).json();
      expect(await send(body)).toMatchObject({ ignored: "not a booking event" });
      expect(await send(other)).toEqual({ ok: true });
      expect(await send(other)).toEqual({ ok: true, duplicate: true });
      await memory.runtime.squareWebhooks!.idle();
    } finally {
      await memory.close();
    }
  });
});
