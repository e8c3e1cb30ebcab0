import { describe, expect, it } from "vitest";
import { changeOffer } from "../../../src/edges/schcp/change-offer.js";
import { reschedule } from "../../../src/edges/schcp/reschedule.js";
import { getBooking } from "../../../src/edges/schcp/get.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import { decodeCompactJws } from "../../../src/protocol/jose/index.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { verifyReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import type { OfferClaims } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  APPROVAL,
  HoldRefused,
  INSTANT,
  MINUTE,
  SLOT,
  callerFor,
  discoveryKeys,
  makeHost,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  testCreateHold,
  unwrap,
} from "../bookings/world.js";
import type { World } from "../bookings/world.js";

async function booked(hostId = INSTANT) {
  const world = makeWorld([makeHost("closed-shop", "Closed Shop", { closedMandate: "always" })]);
  const host = world.host(hostId);
  const party = newParty();
  const caller = await callerFor(world, party, { hostId });
  const hold = await placeTestHold(world, host, caller, { resource: "bay-1" });
  const confirmer =
    hostId === "closed-shop"
      ? await callerFor(world, party, {
          hostId,
          scope: ["book"],
          constraints: { offer_sha256: hold.offerSha256 },
        })
      : caller;
  const r = unwrap(
    await confirmHold(world.deps, hostId, confirmer, hold.record.holdId, {
      idempotency_key: "c",
      offer_sha256: hold.offerSha256,
    }),
  );
  const bookingId = r.body.booking.booking_id;
  const engine = testCreateHold(world);
  const ask = (start: number, sequence = 0, c = caller) =>
    changeOffer(world.deps, engine, hostId, c, bookingId, {
      idempotency_key: "o",
      sequence,
      start: new Date(start).toISOString(),
    });
  const accept = (hash: string, sequence = 0, c = caller) =>
    reschedule(world.deps, hostId, c, bookingId, { idempotency_key: "r", sequence, offer_sha256: hash });
  return { world, host, party, caller, hold, bookingId, originalHash: hold.offerSha256, ask, accept };
}

const claimsOf = (offer: string): OfferClaims => {
  const d = decodeCompactJws(offer, "offer");
  if (!d.ok) throw new Error("bad offer");
  return d.value.payload as unknown as OfferClaims;
};

/** The hold behind an open proposal, from the stored booking state. */
async function proposalHoldId(world: World, bookingId: string, proposalId: string): Promise<string> {
  const loaded = await loadBooking(world.store, INSTANT, bookingId);
  const p = loaded?.state.proposal;
  if (p?.proposalId !== proposalId) throw new Error("no such proposal");
  return p.holdId;
}

describe("change-offer (SchCP §5.7 step 1)", () => {
  it("holds the new time and answers a proposal whose offer is a change naming the booking and prev", async () => {
    const { world, caller, bookingId, originalHash, ask } = await booked();
    const r = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    expect(validateSchcp("ChangeOfferResponse", r).ok).toBe(true);
    expect(r.proposal).toMatchObject({
      by: "guest",
      start: "2030-01-08T12:00:00-05:00",
      end: "2030-01-08T12:45:00-05:00",
    });
    const claims = claimsOf(r.proposal.offer);
    expect(claims).toMatchObject({
      kind: "change",
      booking_id: bookingId,
      prev: originalHash,
      retention: "P365D",
    });
    // The booking keeps its time and sequence; the open offer shows as its proposal.
    const got = unwrap(await getBooking(world.deps, INSTANT, caller, bookingId));
    expect(got.booking).toMatchObject({
      start: "2030-01-08T10:00:00-05:00",
      sequence: 0,
      offer_sha256: originalHash,
    });
    expect(got.booking.proposal?.proposal_id).toBe(r.proposal.proposal_id);
  });

  it("409 STALE_SEQUENCE for another sequence; needs reschedule in scope", async () => {
    const { world, party, ask } = await booked();
    refusalOf(await ask(SLOT + 60 * MINUTE, 3), "STALE_SEQUENCE", "stale_sequence");
    const noResched = await callerFor(world, party, { scope: ["cancel"] });
    refusalOf(await ask(SLOT + 60 * MINUTE, 0, noResched), "MANDATE_SCOPE", "not_in_scope");
  });

  it("may overlap the booking's own time (same bay, 30 minutes later), and nothing else", async () => {
    const { world, host, ask } = await booked();
    // Someone else takes bay-2 for the whole morning: only bay-1, the booking's own, is left.
    const other = await callerFor(world, newParty());
    await placeTestHold(world, host, other, { start: SLOT, resource: "bay-2" });
    await placeTestHold(world, host, other, { start: SLOT + 60 * MINUTE, resource: "bay-2" });
    const r = unwrap(await ask(SLOT + 30 * MINUTE));
    expect(r.proposal.start).toBe("2030-01-08T10:30:00-05:00");
    // Another hold over the same time finds nothing free.
    await expect(placeTestHold(world, host, other, { start: SLOT + 30 * MINUTE })).rejects.toThrow(
      HoldRefused,
    );
  });

  it("asking again releases the previous change offer (at most one open)", async () => {
    const { world, bookingId, ask } = await booked();
    const first = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    const firstHold = await proposalHoldId(world, bookingId, first.proposal.proposal_id);
    const second = unwrap(await ask(SLOT + 3 * 60 * MINUTE));
    expect(second.proposal.proposal_id).not.toBe(first.proposal.proposal_id);
    expect((await world.store.getHold(INSTANT, firstHold, world.clock.now()))?.state).toBe("released");
  });
});

describe("reschedule (SchCP §5.7 step 2)", () => {
  it("409 STALE_SEQUENCE and 409 CONTRACT_MISMATCH naming the open change offer", async () => {
    const { ask, accept, originalHash } = await booked();
    const offer = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    const hash = offerSha256(offer.proposal.offer);
    refusalOf(await accept(hash, 1), "STALE_SEQUENCE");
    const e = refusalOf(await accept(originalHash), "CONTRACT_MISMATCH", "contract_mismatch");
    expect(e.details).toEqual({ offer_sha256: hash });
  });

  it("swaps atomically: new time, sequence + 1, the change offer as contract, a new receipt, old time freed", async () => {
    const { world, host, caller, bookingId, ask, accept } = await booked();
    const offer = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    const hash = offerSha256(offer.proposal.offer);
    const holdId = await proposalHoldId(world, bookingId, offer.proposal.proposal_id);
    const r = unwrap(await accept(hash));
    expect(r.booking).toMatchObject({
      start: "2030-01-08T12:00:00-05:00",
      sequence: 1,
      offer_sha256: hash,
      status: "confirmed",
    });
    expect(r.booking.proposal).toBeUndefined();
    expect(r.booking.event.sequence).toBe(1);
    expect(r.offer).toBe(offer.proposal.offer);
    expect(validateSchcp("BookingResponse", r).ok).toBe(true);
    const receipt = await verifyReceipt(r.receipt, discoveryKeys(host), {
      offerSha256: hash,
      mandateJti: caller.mandate?.root.claims.jti,
      bookingId,
    });
    expect(receipt.ok).toBe(true);
    expect([...host.connector.appointments.values()][0]?.start).toBe(SLOT + 2 * 60 * MINUTE);
    // The old time on bay-1 is free for someone else.
    await placeTestHold(world, host, await callerFor(world, newParty()), { start: SLOT, resource: "bay-1" });
    // The change's hold is consumed by the booking.
    expect((await world.store.getHold(INSTANT, holdId, world.clock.now()))?.state).toBe("booked");
  });

  it("slot taken upstream: refused, the booking intact at its old time", async () => {
    const { world, host, caller, bookingId, ask, accept, originalHash } = await booked();
    const offer = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    host.connector.fail("move", "slot_taken");
    refusalOf(await accept(offerSha256(offer.proposal.offer)), "SLOT_UNAVAILABLE", "slot_taken");
    const got = unwrap(await getBooking(world.deps, INSTANT, caller, bookingId));
    expect(got.booking).toMatchObject({
      start: "2030-01-08T10:00:00-05:00",
      sequence: 0,
      offer_sha256: originalHash,
    });
    expect((await world.store.getBooking(INSTANT, bookingId))?.interval.start).toBe(SLOT);
  });

  it("a lapsed change offer cannot be accepted", async () => {
    const { world, ask, accept } = await booked();
    const offer = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    world.clock.advance(11 * MINUTE);
    refusalOf(await accept(offerSha256(offer.proposal.offer)), "INVALID_STATE");
  });

  it("closed_mandate always: the change offer needs the principal's own approval", async () => {
    const { world, party, ask, accept } = await booked("closed-shop");
    const offer = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    const hash = offerSha256(offer.proposal.offer);
    refusalOf(await accept(hash), "OFFER_APPROVAL_REQUIRED", "closed_approval_required");
    const closed = await callerFor(world, party, {
      hostId: "closed-shop",
      scope: ["reschedule"],
      constraints: { offer_sha256: hash },
    });
    expect(unwrap(await accept(hash, 0, closed)).booking.sequence).toBe(1);
  });

  it("at a host_approval host (step 3): the booking unchanged with the move awaiting the host", async () => {
    const world0 = await booked(APPROVAL);
    const { world, caller, bookingId, ask, accept, originalHash } = world0;
    // A pending_host booking cannot be moved by the guest; once approved it can.
    refusalOf(await ask(SLOT + 2 * 60 * MINUTE), "INVALID_STATE");
    const { approveBooking } = await import("../../../src/booking/operator/approve.js");
    unwrap(await approveBooking(world.deps, APPROVAL, bookingId));
    const offer = unwrap(await ask(SLOT + 2 * 60 * MINUTE));
    const hash = offerSha256(offer.proposal.offer);
    const r = unwrap(await accept(hash));
    expect(r.booking).toMatchObject({
      start: "2030-01-08T10:00:00-05:00",
      sequence: 0,
      offer_sha256: originalHash,
    });
    expect(r.booking.proposal).toMatchObject({ awaiting_host: true, offer: offer.proposal.offer });
    expect(r.booking.proposal?.consent?.mandate).toBe(caller.mandate?.root.claims.jti);
    const again = unwrap(await accept(hash));
    expect(again.booking).toEqual(r.booking);
  });
});
