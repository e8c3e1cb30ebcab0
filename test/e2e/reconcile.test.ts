/**
 * End to end: the two-phase confirm when things break between the upstream create and the
 * gateway's record (a crash there ends with exactly one upstream booking
 * after reconciliation). The agent works over HTTP; the crash is simulated in-process, on the
 * real runtime: the store's completeConfirm fails once, as if the process died right after
 * the platform said yes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import type { SyntheticConnector } from "../../src/connectors/synthetic/index.js";
import type { GatewayStore } from "../../src/holds/port.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { discover, freeSlots, must, newAgent, openMandate, operator, refusalOf } from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

let gw: E2eGateway;
beforeAll(async () => {
  gw = await startGateway({ runtime: { workers: { sweepMs: 200, reconcileMs: 100, approvalsMs: 1000 } } });
});
afterAll(async () => {
  await gw?.close();
});

const HOST = "maple-street-auto";
const connector = () => gw.runtime.hosts.get(HOST)!.connector as SyntheticConnector;

/** Upstream appointments covering [start, end): each takes one bay and one technician. */
async function upstreamAppointments(start: string, end: string): Promise<number> {
  const all = ["bay-1", "bay-2", "tech-alex", "tech-sam", "tech-priya"];
  const busy = await connector().readBusy({ start: Date.parse(start), end: Date.parse(end) }, all);
  if (!busy.ok) throw new Error(busy.error.message);
  // This slot's appointments only. Each test books a week apart (heldSlot's fromDays): the
  // first free slots of nearby days can fall on the same morning after a weekend.
  return busy.value.busy.filter(
    (b) => b.resourceId.startsWith("bay-") && b.interval.start === Date.parse(start),
  ).length;
}

/** Counts createBooking calls from now on (a fault rule whose predicate never matches). */
function countCreates(): () => number {
  let n = 0;
  connector().faults.add({
    operation: "createBooking",
    fault: "unavailable",
    times: Infinity,
    when: () => {
      n += 1;
      return false;
    },
  });
  return () => n;
}

/**
 * The hold is fenced while confirming and cannot lapse; once its lease (30 s) ends, the
 * reconciler asks the platform by the hold's idempotency key and records what it finds.
 */
async function settle(agent: E2eAgent, host: DiscoveredHost, holdId: string, mandate: string): Promise<void> {
  gw.clock.advance(31_000);
  const deadline = Date.now() + 8000;
  for (;;) {
    const held = must(await agent.client.getHold(host, holdId, { mandate }), "hold");
    if (held.body.status === "confirmed") return;
    if (Date.now() > deadline)
      throw new Error(`hold still ${held.body.status} after reconciliation had time to run`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function heldSlot(fromDays: number) {
  const agent = newAgent(gw);
  const maple = await discover(agent, gw, HOST);
  const [slot] = await freeSlots(agent, gw, maple, "oil-change", { fromDays });
  const m = await openMandate(agent, HOST, { ttlSec: 6 * 3600 });
  const hold = must(
    await agent.client.hold(maple, { service_id: "oil-change", start: slot!.start }, { mandate: m.compact }),
    "hold",
  );
  return { agent, maple, slot: slot!, m, hold: hold.body, hash: offerSha256(hold.body.offer) };
}

describe("two-phase confirm under failure (§5.3, reconciliation)", () => {
  it("asks the platform by idempotency key when its answer is lost after it booked: 201, one upstream booking", async () => {
    const { agent, maple, slot, m, hold, hash } = await heldSlot(2);
    const creates = countCreates();
    connector().faults.add({ operation: "createBooking", fault: "unavailable", afterCommit: true });
    const r = must(
      await agent.client.confirm(maple, hold.hold_id, { offer_sha256: hash }, { mandate: m.compact }),
      "confirm",
    );
    expect(r.status).toBe(201);
    must(await verifyBookingReceipt(r.body, maple, { offerSha256: hash, mandateJti: m.jti }), "receipt");
    expect(creates()).toBe(1);
    expect(await upstreamAppointments(slot.start, slot.end!)).toBe(1);
  });

  it("leaves an unsettled confirm to reconciliation when the platform cannot be asked either (503, then booked)", async () => {
    const { agent, maple, slot, m, hold, hash } = await heldSlot(9);
    const creates = countCreates();
    connector().faults.add({ operation: "createBooking", fault: "unavailable", afterCommit: true });
    connector().faults.add({ operation: "findBookingByIdempotencyKey", fault: "unavailable" });
    const body = { offer_sha256: hash, idempotency_key: "lost-twice" };
    expect(
      refusalOf(await agent.client.confirm(maple, hold.hold_id, body, { mandate: m.compact })),
    ).toMatchObject({
      status: 503,
      code: "UPSTREAM_UNAVAILABLE",
    });
    await settle(agent, maple, hold.hold_id, m.compact);
    expect(creates()).toBe(1);
    expect(await upstreamAppointments(slot.start, slot.end!)).toBe(1);
    // 5xx is not stored (§9.1): the retry runs again and finds the booking made, creating nothing.
    const retry = await agent.client.confirm(maple, hold.hold_id, body, { mandate: m.compact });
    expect(retry.ok).toBe(true);
    if (retry.ok) must(await verifyBookingReceipt(retry.value.body, maple, { offerSha256: hash }), "receipt");
    expect(creates()).toBe(1);
  });

  it("settles a confirm that crashed between the upstream create and the record: reconciliation, never a second create", async () => {
    const { agent, maple, slot, m, hold, hash } = await heldSlot(16);
    const store: GatewayStore = gw.runtime.store;
    const real = store.completeConfirm.bind(store);
    let crashed = 0;
    store.completeConfirm = (...args: Parameters<GatewayStore["completeConfirm"]>) => {
      if (crashed++ === 0) return Promise.reject(new Error("simulated crash before the local record"));
      return real(...args);
    };
    const creates = countCreates();
    try {
      const body = { offer_sha256: hash, idempotency_key: "crash" };
      const r = await agent.client.confirm(maple, hold.hold_id, body, { mandate: m.compact });
      expect(r.ok).toBe(false);
      expect(creates()).toBe(1);
      expect(await upstreamAppointments(slot.start, slot.end!)).toBe(1);
      await settle(agent, maple, hold.hold_id, m.compact);
      expect(creates()).toBe(1);
      expect(await upstreamAppointments(slot.start, slot.end!)).toBe(1);

      // The operator's neutral view names no offer: the booking is the one at the held start.
      const list = await operator(gw, HOST, "/bookings");
      const mine = (list.json as { bookings: { booking: { start: string } }[] }).bookings.filter(
        (b) => Date.parse(b.booking.start) === Date.parse(slot.start),
      );
      expect(mine).toHaveLength(1);

      // The agent retries its confirm: nothing is created again, and the answer is the
      // booking reconciliation recorded, so the agent learns its booking id.
      const retry = await agent.client.confirm(maple, hold.hold_id, body, { mandate: m.compact });
      expect(retry.ok).toBe(true);
      if (retry.ok) {
        must(await verifyBookingReceipt(retry.value.body, maple, { offerSha256: hash }), "receipt");
      }
      expect(creates()).toBe(1);
    } finally {
      store.completeConfirm = real;
    }
  });
});
