/**
 * SchCP §3.3 "One consent, several hosts": shared booking limits claimed at the principal's key
 * app before the confirm, given back only when this call made them, and given back once when a
 * booking will not happen (cancelled by the guest or the host, declined, expired); a booking that
 * went ahead keeps its unit.
 */
import { describe, expect, it } from "vitest";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { cancelBooking } from "../../../src/edges/schcp/cancel.js";
import { schcpEdgeWith } from "../../../src/edges/schcp/edge.js";
import type { SchcpClaimAnswer, SchcpEdgeOptions, SchcpKeyApps } from "../../../src/edges/schcp/key-app.js";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import { declineBooking } from "../../../src/booking/operator/decline.js";
import { hostCancelBooking } from "../../../src/booking/operator/host-cancel.js";
import { markAttendance } from "../../../src/booking/operator/attendance.js";
import { expireOverdue } from "../../../src/booking/operator/deadlines.js";
import { jwkThumbprint } from "../../../src/protocol/jose/index.js";
import { issueMandate, verifyMandate } from "../../../src/protocol/schcp/mandate/index.js";
import type { MandateConstraints } from "../../../src/protocol/schcp/types.js";
import {
  APPROVAL,
  HOUR,
  INSTANT,
  SLOT,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  unwrap,
  type World,
} from "../../booking/bookings/world.js";

const STATUS = "https://keyapp.example/status/m-shared";

/** A key app that answers each claim as told, recording every call in order. */
function fakeKeyApps(answer: SchcpClaimAnswer = "claimed", giveBackAnswers = true) {
  const calls: string[] = [];
  const keyApps: SchcpKeyApps = {
    claim(url, id) {
      calls.push(`POST ${url}/claims ${id}`);
      return Promise.resolve(answer);
    },
    giveBack(url, id) {
      calls.push(`DELETE ${url}/claims/${id}`);
      return Promise.resolve(giveBackAnswers);
    },
    giveBackLater(job) {
      calls.push(`LATER ${job.statusUrl} ${job.claimId}`);
      return Promise.resolve();
    },
  };
  return { keyApps, calls };
}

function worldWith(options: SchcpEdgeOptions): World {
  const world = makeWorld();
  (world.deps as { edges: unknown }).edges = { schcp: schcpEdgeWith(options) };
  return world;
}

async function sharedCaller(
  world: World,
  hostId: string,
  opts: { status?: string | null; constraints?: MandateConstraints } = {},
): Promise<SchcpCaller> {
  const party = newParty();
  const agentKey = jwkThumbprint(party.agent.publicJwk);
  const nowSec = Math.floor(world.clock.now() / 1000);
  const status = opts.status === null ? undefined : (opts.status ?? STATUS);
  const compact = await issueMandate(
    {
      sub: "guest",
      aud: [INSTANT, APPROVAL],
      iat: nowSec - 10,
      exp: nowSec + 30 * 86_400,
      jti: "m-shared",
      cnf: { jkt: agentKey },
      scope: ["hold", "book", "cancel", "reschedule"],
      constraints: opts.constraints ?? { max_bookings: 1, shared_limit: true },
      consent: { mode: "human_present" },
      ...(status !== undefined && { status }),
    },
    party.principal,
  );
  const chain = await verifyMandate(compact, { hostId, nowSec, requestKeyThumbprint: agentKey });
  if (!chain.ok) throw new Error(JSON.stringify(chain.error));
  return { agentKey, mandate: chain.value };
}

async function setup(answer: SchcpClaimAnswer = "claimed", hostId = INSTANT, giveBackAnswers = true) {
  const { keyApps, calls } = fakeKeyApps(answer, giveBackAnswers);
  const options = { keyApps };
  const world = worldWith(options);
  const host = world.host(hostId);
  const caller = await sharedCaller(world, hostId);
  const hold = await placeTestHold(world, host, caller);
  const claimId = `${hostId}/${hold.record.holdId}`;
  const confirm = () =>
    confirmHold(
      world.deps,
      hostId,
      caller,
      hold.record.holdId,
      { idempotency_key: "k1", offer_sha256: hold.offerSha256 },
      options,
    );
  return { world, host, caller, hold, claimId, confirm, calls, options };
}

describe("§3.3 shared booking limits at confirm", () => {
  it("§3.3 201 claimed: POST {status}/claims with claim_id {host id}/{hold id}, then booked; the booking keeps its claim", async () => {
    const { world, claimId, confirm, calls } = await setup("claimed");
    const r = unwrap(await confirm());
    expect(r.status).toBe(201);
    expect(calls).toEqual([`POST ${STATUS}/claims ${claimId}`]);
    const stored = await loadBooking(world.store, INSTANT, r.body.booking.booking_id);
    expect(stored?.state.limitClaims).toEqual([{ edge: "schcp", keeper: STATUS, id: claimId }]);
  });

  it("§3.3 200 already held (a retried confirm): booked, and the claim is the booking's", async () => {
    const { world, claimId, confirm } = await setup("already_held");
    const r = unwrap(await confirm());
    const stored = await loadBooking(world.store, INSTANT, r.body.booking.booking_id);
    expect(stored?.state.limitClaims).toEqual([{ edge: "schcp", keeper: STATUS, id: claimId }]);
  });

  for (const answer of ["none_left", "refused", "no_answer"] as const) {
    it(`§3.3 a key app answering ${answer} refuses the confirm: 403 MANDATE_LIMIT shared_limit_reached, no booking`, async () => {
      const { world, host, hold, confirm } = await setup(answer);
      const e = refusalOf(await confirm(), "MANDATE_LIMIT", "shared_limit_reached");
      expect(e.basis).toEqual({ constraint: "shared_limit" });
      expect(host.connector.appointments.size).toBe(0);
      expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe("held");
    });
  }

  it("§3.3 a link with a shared limit but no status URL refuses the confirm, asking no key app", async () => {
    const { keyApps, calls } = fakeKeyApps();
    const world = worldWith({ keyApps });
    const caller = await sharedCaller(world, INSTANT, { status: null });
    const hold = await placeTestHold(world, world.host(), caller);
    const r = await confirmHold(
      world.deps,
      INSTANT,
      caller,
      hold.record.holdId,
      { idempotency_key: "k", offer_sha256: hold.offerSha256 },
      { keyApps },
    );
    refusalOf(r, "MANDATE_LIMIT", "shared_limit_reached");
    expect(calls).toEqual([]);
    expect(world.host().connector.appointments.size).toBe(0);
  });

  it("§3.3 without a key-app client the gateway cannot vouch for the unit: refused", async () => {
    const world = makeWorld();
    const caller = await sharedCaller(world, INSTANT);
    const hold = await placeTestHold(world, world.host(), caller);
    const r = await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
      idempotency_key: "k",
      offer_sha256: hold.offerSha256,
    });
    refusalOf(r, "MANDATE_LIMIT", "shared_limit_reached");
  });

  it("§3.3 a confirm that fails gives back the claim it made in this call (201), once", async () => {
    const { host, claimId, confirm, calls } = await setup("claimed");
    host.connector.fail("create", "slot_taken");
    refusalOf(await confirm(), "SLOT_UNAVAILABLE", "slot_taken");
    expect(calls).toEqual([`POST ${STATUS}/claims ${claimId}`, `DELETE ${STATUS}/claims/${claimId}`]);
  });

  it("§3.3 a confirm that fails does not give back a 200 claim: it belongs to whichever call made it", async () => {
    const { host, claimId, confirm, calls } = await setup("already_held");
    host.connector.fail("create", "slot_taken");
    refusalOf(await confirm(), "SLOT_UNAVAILABLE", "slot_taken");
    expect(calls).toEqual([`POST ${STATUS}/claims ${claimId}`]);
  });

  it("§3.3 a confirm left for reconciliation (the upstream may have booked) keeps its claim", async () => {
    const { world, host, hold, confirm, calls } = await setup("claimed");
    host.connector.fail("create", "timeout");
    host.connector.fail("find", "timeout");
    expect((await confirm()).ok).toBe(false);
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe(
      "confirming",
    );
    expect(calls.filter((c) => c.startsWith("DELETE"))).toEqual([]);
  });

  it("§3.3 a give-back the key app does not answer is queued for the background retries", async () => {
    const { host, claimId, confirm, calls } = await setup("claimed", INSTANT, false);
    host.connector.fail("create", "slot_taken");
    refusalOf(await confirm(), "SLOT_UNAVAILABLE", "slot_taken");
    expect(calls.slice(1)).toEqual([`DELETE ${STATUS}/claims/${claimId}`, `LATER ${STATUS} ${claimId}`]);
  });
});

describe("§3.3 a booking that will not happen gives its unit back", () => {
  it("§3.3 a guest's cancel gives the unit back before it answers, once", async () => {
    const { world, caller, claimId, confirm, calls } = await setup("claimed");
    const bookingId = unwrap(await confirm()).body.booking.booking_id;
    calls.length = 0;
    const cancel = () => cancelBooking(world.deps, INSTANT, caller, bookingId, { idempotency_key: "c1" });
    unwrap(await cancel());
    // Awaited inside the cancel: the DELETE is recorded by the time the cancel has answered.
    expect(calls).toEqual([`DELETE ${STATUS}/claims/${claimId}`]);
    unwrap(await cancel());
    expect(calls).toHaveLength(1);
  });

  it("§3.3 a key app that does not answer never stops the cancel: the give-back is queued", async () => {
    const { world, caller, claimId, confirm, calls } = await setup("claimed", INSTANT, false);
    const bookingId = unwrap(await confirm()).body.booking.booking_id;
    calls.length = 0;
    const r = unwrap(await cancelBooking(world.deps, INSTANT, caller, bookingId, { idempotency_key: "c" }));
    expect(r.booking.status).toBe("cancelled");
    expect(calls).toEqual([`DELETE ${STATUS}/claims/${claimId}`, `LATER ${STATUS} ${claimId}`]);
  });

  it("§3.3 a host's cancel gives the unit back", async () => {
    const { world, claimId, confirm, calls } = await setup("claimed");
    const bookingId = unwrap(await confirm()).body.booking.booking_id;
    calls.length = 0;
    unwrap(await hostCancelBooking(world.deps, INSTANT, bookingId, {}));
    expect(calls).toEqual([`DELETE ${STATUS}/claims/${claimId}`]);
  });

  it("§3.3 a declined booking gives the unit back", async () => {
    const { world, claimId, confirm, calls } = await setup("claimed", APPROVAL);
    const bookingId = unwrap(await confirm()).body.booking.booking_id;
    calls.length = 0;
    unwrap(await declineBooking(world.deps, APPROVAL, bookingId, {}));
    expect(calls).toEqual([`DELETE ${STATUS}/claims/${claimId}`]);
  });

  it("§3.3 an expired booking gives the unit back", async () => {
    const { world, claimId, confirm, calls } = await setup("claimed", APPROVAL);
    const bookingId = unwrap(await confirm()).body.booking.booking_id;
    calls.length = 0;
    world.clock.advance(2 * HOUR);
    expect((await expireOverdue(world.deps, APPROVAL)).expired).toEqual([bookingId]);
    expect(calls).toEqual([`DELETE ${STATUS}/claims/${claimId}`]);
  });

  for (const status of ["completed", "no_show"] as const) {
    it(`§3.3 a booking marked ${status} went ahead and keeps its unit`, async () => {
      const { world, confirm, calls } = await setup("claimed");
      const bookingId = unwrap(await confirm()).body.booking.booking_id;
      calls.length = 0;
      world.clock.t = SLOT + 2 * HOUR;
      unwrap(await markAttendance(world.deps, INSTANT, bookingId, { status }));
      expect(calls).toEqual([]);
    });
  }
});
