/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access -- JSON bodies read loosely in assertions */
/**
 * The public booking pool (src/booking/public-pool) on every edge, on a real gateway, against
 * the in-memory store and against Redis: a host that approves each booking (Harbourview
 * Dental) is flooded with anonymous bookings under invented e-mails.
 *
 * - A2A: 100 book_session calls from 100 network origins, in parallel, each a free hour: 12
 *   (the default max_per_host) pend, the other 88 are 429 RATE_LIMITED with Retry-After, and
 *   the host still has free time that the business itself (its X-Org-Api-Key) books. From
 *   one origin only 4 (max_per_origin) get through. A declined booking frees its place.
 * - Cross-edge: with the pool full from A2A, OSBP booking.create is rate_limited (retryable),
 *   and SchCP (a newcomer's mandate, SchCP §7.2) is 429 HOLD_LIMIT new_guest_pool_full.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCoreAdapter, type CoreAdapter } from "../../src/edges/osbp/adapter/index.js";
import { MemoryIdempotencyStore } from "../../src/edges/osbp/idempotency/memory.js";
import { extractApprovalToken, type BookingCreateInput } from "../../src/protocol/osbp/index.js";
import { formatInstant, instantToWallClock } from "../../src/protocol/time/index.js";
import type { IntentCall, IntentOutcome } from "../../src/edges/a2a/port.js";
import { discover, newAgent, openMandate, refusalOf } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";

const HOST = "harbourview-dental";
const TZ = "America/Vancouver";
const HOUR = 3_600_000;
const DAY = 86_400_000;
const PER_HOST = 12;
const PER_ORIGIN = 4;

const pad = (n: number) => String(n).padStart(2, "0");

/** Free hours of hygienist hyg-1 (non-overlapping), from two days ahead. */
async function freeHours(gw: E2eGateway, n: number): Promise<number[]> {
  const now = gw.clock.now();
  const open = await gw.runtime.service.openings(
    HOST,
    { agentKey: "probe" },
    {
      serviceId: "cleaning",
      range: { start: now + 2 * DAY, end: now + 28 * DAY },
      partySize: 1,
      resourceId: "hyg-1",
    },
  );
  if (!open.ok) throw new Error(open.error.message);
  const out: number[] = [];
  for (const o of open.value) {
    if (out.length === n) break;
    const last = out[out.length - 1];
    if (last === undefined || o.start >= last + HOUR) out.push(o.start);
  }
  if (out.length < n) throw new Error(`only ${out.length} free hours`);
  return out;
}

function book(
  gw: E2eGateway,
  start: number,
  i: number,
  origin: string,
  apiKey?: string,
): Promise<IntentOutcome> {
  const call: IntentCall = {
    hostId: HOST,
    intent: "book_session",
    origin,
    params: {
      clientEmail: `invented-${i}-${origin.replace(/\W/g, "")}@example.com`,
      serviceId: "cleaning",
      providerId: "hyg-1",
      scheduledAt: new Date(start).toISOString(),
    },
    ...(apiKey !== undefined && { apiKey }),
  };
  return (gw.runtime.a2a ?? expect.fail("no A2A intents")).run(call);
}

function osbpAdapter(gw: E2eGateway): CoreAdapter {
  const host = gw.runtime.service.host(HOST);
  if (host === undefined) throw new Error("no host");
  return createCoreAdapter({
    core: gw.runtime.service,
    hostId: HOST,
    platform: host.connector.platform,
    idempotency: new MemoryIdempotencyStore(),
    clock: gw.clock,
    logger: { warn: () => undefined, error: () => undefined },
  });
}

/** booking.create through the approval gate (OSBP final confirmation), as an agent does it. */
async function osbpBook(adapter: CoreAdapter, start: number, n: number) {
  const wall = instantToWallClock(start, TZ);
  const date = `${wall.year}-${pad(wall.month)}-${pad(wall.day)}`;
  const input: BookingCreateInput = {
    mandate: {
      id: `mnd_flood_${n}`,
      expires_at: new Date(start + 30 * DAY).toISOString().replace(/\.\d{3}Z$/, "Z"),
      allowed_actions: ["booking.create"],
      organization_id: HOST,
      earliest_start: `${date}T00:00:00`,
      latest_end: `${date}T23:59:00`,
      max_price: { amount_minor: 20_000, currency: "CAD" },
    },
    idempotency_key: `idem_flood_${n}`,
    service_id: "cleaning",
    schedule_id: HOST,
    provider_id: "hyg-1",
    date,
    time: `${pad(wall.hour)}:${pad(wall.minute)}`,
    customer: { display_name: `Flood ${n}`, email: `osbp-${n}@example.com`, phone: "+16045550100" },
  };
  const first = await adapter.createBooking(input);
  if (first.ok || first.problem.code !== "requires_user_confirmation") return first;
  const token = extractApprovalToken(first.problem.message);
  if (token === undefined) throw new Error(`no approval token in ${first.problem.message}`);
  return adapter.createBooking({ ...input, approval: { confirmed: true, token } });
}

const stores: Array<[string, boolean]> = [
  ["memory", false],
  ["redis", true],
];

describe.each(stores)("public booking pool (%s store)", (_name, useRedis) => {
  let redis: TestRedis | undefined;
  let gw: E2eGateway;
  let hours: number[];
  let hostKey: string;

  beforeAll(async () => {
    if (useRedis) redis = await startTestRedis();
    gw = await startGateway(
      redis === undefined ? {} : { redisUrl: redis.url, redisKeyPrefix: uniquePrefix("pubpool") },
    );
    hours = await freeHours(gw, 130);
    hostKey = await gw.runtime.a2aKeys.issue(HOST);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await redis?.stop();
  });

  it("100 anonymous A2A bookings from 100 origins: 12 pend, 88 are refused 429 with Retry-After; the business can still book", async () => {
    const calls = hours.slice(0, 100).map((start, i) => () => book(gw, start, i, `198.51.100.${i}`));
    // All at once: nothing gets past the cap (the hold store's own caps on live holds, §7.2,
    // may refuse some of them sooner; those are 429 too)...
    const first = await Promise.all(calls.map((c) => c()));
    const refusedFirst = first.flatMap((o, i) => (o.httpStatus === 201 ? [] : [i]));
    expect(first.filter((o) => o.httpStatus === 201).length).toBeLessThanOrEqual(PER_HOST);
    // ...and those refused try again one by one: the pool alone decides, 12 in all.
    const second = [];
    for (const i of refusedFirst) second.push(await calls[i]!());
    const outs = [...first.filter((o) => o.httpStatus === 201), ...second];
    const booked = outs.filter((o) => o.httpStatus === 201);
    const refused = outs.filter((o) => o.httpStatus === 429);
    expect(booked).toHaveLength(PER_HOST);
    expect(refused).toHaveLength(100 - PER_HOST);
    for (const o of booked) expect((o.body.session as any).status).toBe("pendiente_confirmacion");
    for (const o of refused) {
      expect(o.body).toMatchObject({ code: "RATE_LIMITED" });
      expect(o.retryAfterSec).toBeGreaterThanOrEqual(1);
      expect(o.retryAfterSec).toBeLessThanOrEqual(60);
    }
    // The flood took 12 hours of the host's time, no more: the rest is free, and the business
    // itself (its own key) books it.
    const listed = await gw.runtime.service.listBookings(HOST);
    expect(listed.ok && listed.value.filter((b) => b.status === "pending_host")).toHaveLength(PER_HOST);
    const own = await book(gw, hours[100]!, 100, "198.51.100.200", hostKey);
    expect(own.httpStatus, JSON.stringify(own.body)).toBe(201);
    // A wrong key is refused, not read as no key.
    const forged = await book(gw, hours[101]!, 101, "198.51.100.201", "gk_forged");
    expect(forged.httpStatus).toBe(401);
  });

  it("the pool is the same from OSBP (rate_limited, retryable) and SchCP (HOLD_LIMIT new_guest_pool_full, §7.2)", async () => {
    const osbp = await osbpBook(osbpAdapter(gw), hours[102]!, 1);
    expect(osbp.ok).toBe(false);
    if (!osbp.ok) {
      expect(osbp.problem.code).toBe("rate_limited");
      expect(osbp.problem.retryable).toBe(true);
    }

    const agent = newAgent(gw);
    const host = await discover(agent, gw, HOST);
    const m = await openMandate(agent, HOST);
    const r = await agent.client.hold(
      host,
      { service_id: "cleaning", start: formatInstant(hours[103]!, TZ) },
      { mandate: m.compact },
    );
    const refusal = refusalOf(r);
    expect(refusal.status).toBe(429);
    expect(refusal.code).toBe("HOLD_LIMIT");
    expect(refusal.reason).toBe("new_guest_pool_full");
    expect(refusal.basis).toMatchObject({ policy: "public_booking.max_per_host", limit: PER_HOST });
    expect(refusal.retry?.after).toMatch(/^PT(\d+M)?(\d+S)?$/);
  });

  it("a declined booking frees its place, and the next newcomer books", async () => {
    const listed = await gw.runtime.service.listBookings(HOST);
    if (!listed.ok) throw new Error("list");
    // One of the flood's (not the business's own booking, which holds no place).
    const flood = new Set(hours.slice(0, 100));
    const pending = listed.value.find((b) => b.status === "pending_host" && flood.has(b.start));
    expect(pending).toBeDefined();
    const declined = await gw.runtime.service.decline(HOST, pending!.bookingId, { message: "not today" });
    expect(declined.ok).toBe(true);
    const next = await book(gw, hours[104]!, 104, "198.51.100.104");
    expect(next.httpStatus, JSON.stringify(next.body)).toBe(201);
    const again = await book(gw, hours[105]!, 105, "198.51.100.105");
    expect(again.httpStatus).toBe(429);
  });

  it("from one network origin only max_per_origin bookings hold places", async () => {
    // Free the host's pool: the flood's bookings are declined by the host.
    const listed = await gw.runtime.service.listBookings(HOST);
    if (!listed.ok) throw new Error("list");
    for (const b of listed.value.filter((x) => x.status === "pending_host"))
      expect((await gw.runtime.service.decline(HOST, b.bookingId, {})).ok).toBe(true);
    const outs = [];
    for (const [i, start] of hours.slice(106, 116).entries())
      outs.push(await book(gw, start, 106 + i, "203.0.113.7"));
    expect(outs.filter((o) => o.httpStatus === 201)).toHaveLength(PER_ORIGIN);
    expect(outs.filter((o) => o.httpStatus === 429)).toHaveLength(10 - PER_ORIGIN);
    // Another origin still books.
    expect((await book(gw, hours[116]!, 116, "203.0.113.8")).httpStatus).toBe(201);
  });

  it("over HTTP the refusal is 429 with a Retry-After header (A2A §Rate Limits)", async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (const [i, start] of hours.slice(117, 117 + PER_ORIGIN + 1).entries()) {
      last = await fetch(`${gw.origin}/api/servicialo/${HOST}/book`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          clientEmail: `loopback-${i}@example.com`,
          serviceId: "cleaning",
          providerId: "hyg-1",
          scheduledAt: new Date(start).toISOString(),
        }),
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array<number>(PER_ORIGIN).fill(201), 429]);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await last?.json()).toMatchObject({ code: "RATE_LIMITED" });
  });
});
