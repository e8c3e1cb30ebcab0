import { describe, expect, it } from "vitest";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { getBooking } from "../../../src/edges/schcp/get.js";
import { reconcileStuckConfirms } from "../../../src/booking/reconcile/reconcile.js";
import { verifyReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import type { GatewayStore } from "../../../src/holds/port.js";
import {
  INSTANT,
  MINUTE,
  callerFor,
  discoveryKeys,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  unwrap,
} from "../bookings/world.js";

/** The store as a process that dies right after the upstream create would leave it. */
function crashingOnComplete(store: GatewayStore): GatewayStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "completeConfirm") return () => Promise.reject(new Error("process crashed"));
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

async function stuckConfirm() {
  const world = makeWorld();
  const host = world.host();
  const caller = await callerFor(world, newParty());
  const hold = await placeTestHold(world, host, caller);
  const crashing = { ...world.deps, store: crashingOnComplete(world.store) };
  await expect(
    confirmHold(crashing, INSTANT, caller, hold.record.holdId, {
      idempotency_key: "k",
      offer_sha256: hold.offerSha256,
    }),
  ).rejects.toThrow("process crashed");
  expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe(
    "confirming",
  );
  return { world, host, caller, hold };
}

describe("reconcileStuckConfirms (a crash between the upstream create and the local record)", () => {
  it("finds the upstream booking by key and records it, with exactly one upstream create", async () => {
    const { world, host, caller, hold } = await stuckConfirm();
    // Within the lease nothing is claimed.
    expect((await reconcileStuckConfirms(world.deps, INSTANT)).recorded).toEqual([]);
    world.clock.advance(31_000);
    const report = await reconcileStuckConfirms(world.deps, INSTANT);
    expect(report.recorded).toHaveLength(1);
    expect(host.connector.calls.create).toBe(1);
    expect(host.connector.appointments.size).toBe(1);
    const bookingId = report.recorded[0] ?? "";
    const got = unwrap(await getBooking(world.deps, INSTANT, caller, bookingId));
    expect(got.booking.status).toBe("confirmed");
    // The receipt names the mandate the confirm used, as the confirm would have.
    const receipt = await verifyReceipt(got.receipt, discoveryKeys(host), {
      mandateJti: caller.mandate?.root.claims.jti,
      offerSha256: hold.offerSha256,
    });
    expect(receipt.ok).toBe(true);
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe("booked");
    // A second run finds nothing more to do.
    expect(await reconcileStuckConfirms(world.deps, INSTANT)).toEqual({
      recorded: [],
      returned: [],
      left: [],
    });
  });

  it("nothing upstream: the hold goes back to held, and the agent can confirm it again", async () => {
    const world = makeWorld();
    const host = world.host();
    const caller = await callerFor(world, newParty());
    const hold = await placeTestHold(world, host, caller);
    host.connector.fail("create", "timeout");
    host.connector.fail("find", "unavailable");
    refusalOf(
      await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
        idempotency_key: "k",
        offer_sha256: hold.offerSha256,
      }),
      "UPSTREAM_UNAVAILABLE",
    );
    world.clock.advance(31_000);
    const report = await reconcileStuckConfirms(world.deps, INSTANT);
    expect(report.returned).toEqual([hold.record.holdId]);
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe("held");
    expect(host.connector.calls.create).toBe(1);
  });

  it("nothing upstream and the hold's own expiry passed: released", async () => {
    const world = makeWorld();
    const host = world.host();
    const caller = await callerFor(world, newParty());
    const hold = await placeTestHold(world, host, caller);
    host.connector.fail("create", "timeout");
    host.connector.fail("find", "timeout");
    await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
      idempotency_key: "k",
      offer_sha256: hold.offerSha256,
    });
    world.clock.advance(11 * MINUTE);
    const report = await reconcileStuckConfirms(world.deps, INSTANT);
    expect(report.returned).toEqual([hold.record.holdId]);
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe(
      "released",
    );
  });

  it("upstream unreachable: left confirming for the next run, and never a create", async () => {
    const { world, host, hold } = await stuckConfirm();
    world.clock.advance(31_000);
    host.connector.fail("find", "unavailable");
    expect((await reconcileStuckConfirms(world.deps, INSTANT)).left).toEqual([hold.record.holdId]);
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe(
      "confirming",
    );
    world.clock.advance(31_000);
    expect((await reconcileStuckConfirms(world.deps, INSTANT)).recorded).toHaveLength(1);
    expect(host.connector.calls.create).toBe(1);
  });

  it("hands the connector the create as it was asked, so a platform without a key lookup can recognise it (ports/bookings.ts)", async () => {
    const { world, host, hold } = await stuckConfirm();
    world.clock.advance(31_000);
    await reconcileStuckConfirms(world.deps, INSTANT);
    expect(host.connector.findAttempts).toHaveLength(1);
    expect(host.connector.findAttempts[0]).toEqual({
      idempotencyKey: `${INSTANT}:${hold.record.holdId}`,
      serviceId: "oil-change",
      start: hold.record.interval.start,
      end: hold.payload.contract.end,
      resourceIds: hold.record.allocations.map((a) => a.resourceId),
      partySize: 1,
      tentative: false,
    });
  });

  it("a create whose answer was lost is looked up with the same attempt it sent", async () => {
    const world = makeWorld();
    const host = world.host();
    const caller = await callerFor(world, newParty());
    const hold = await placeTestHold(world, host, caller);
    host.connector.fail("create", "timeout");
    await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
      idempotency_key: "k",
      offer_sha256: hold.offerSha256,
    });
    expect(host.connector.findAttempts).toHaveLength(1);
    expect(host.connector.findAttempts[0]).toMatchObject({
      idempotencyKey: `${INSTANT}:${hold.record.holdId}`,
      start: hold.record.interval.start,
    });
  });
});
