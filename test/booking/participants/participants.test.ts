/**
 * SchCP §5.10 participants, rule by rule, on the core and the SchCP use cases with the memory
 * store (the end-to-end on Redis is test/e2e/participants.test.ts).
 */
import { describe, expect, it } from "vitest";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { getBooking } from "../../../src/edges/schcp/get.js";
import { cancelBooking } from "../../../src/edges/schcp/cancel.js";
import { respond } from "../../../src/edges/schcp/respond.js";
import { changeOffer } from "../../../src/edges/schcp/change-offer.js";
import { reschedule } from "../../../src/edges/schcp/reschedule.js";
import { expireOverdue } from "../../../src/booking/operator/deadlines.js";
import { approveBooking } from "../../../src/booking/operator/approve.js";
import { counterBooking } from "../../../src/booking/operator/counter.js";
import { proposalResponse } from "../../../src/edges/schcp/proposal-response.js";
import { loadBooking, saveBooking } from "../../../src/booking/bookings/store.js";
import { ok } from "../../../src/protocol/result.js";
import { bookingIndexEntry } from "../../../src/booking/bookings/index-entry.js";
import { confirmByOf, reask } from "../../../src/booking/participants/rules.js";
import { tooSoonForParticipants } from "../../../src/booking/changes/apply-move.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import type { BookingState } from "../../../src/booking/bookings/state.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { principalUrn, jwkThumbprint } from "../../../src/protocol/jose/index.js";
import type { ConfirmRequest } from "../../../src/protocol/schcp/types.js";
import {
  HOUR,
  INSTANT,
  MINUTE,
  SLOT,
  callerFor,
  makeHost,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  testCreateHold,
  unwrap,
  type Party,
  type World,
} from "../bookings/world.js";

const TENTATIVE = "tentative-host";
const HOOK = "https://agent.example/hooks/schcp";
const principalOf = (p: Party) => principalUrn(jwkThumbprint(p.principal.publicJwk));

function world(): World {
  return makeWorld([
    makeHost(TENTATIVE, "Tentative Garage", {
      tentative: { maxConfirmWithin: "PT24H", maxConfirmWithinMs: 24 * HOUR },
    }),
  ]);
}

async function book(w: World, participants: ConfirmRequest["participants"], hostId = TENTATIVE) {
  const booker = newParty();
  const caller = await callerFor(w, booker, { hostId });
  const hold = await placeTestHold(w, w.host(hostId), caller, { callbackUrl: HOOK, resource: "bay-1" });
  const r = await confirmHold(w.deps, hostId, caller, hold.record.holdId, {
    idempotency_key: "c",
    offer_sha256: hold.offerSha256,
    ...(participants !== undefined && { participants }),
  });
  return { booker, caller, hold, r };
}

async function answer(w: World, who: Party, bookingId: string, accept: boolean, hash: string, opts = {}) {
  const caller = await callerFor(w, who, { hostId: TENTATIVE, scope: ["cancel"], ...opts });
  return respond(w.deps, TENTATIVE, caller, bookingId, { idempotency_key: "r", accept, offer_sha256: hash });
}

const state = async (w: World, id: string): Promise<BookingState> =>
  (await loadBooking(w.store, TENTATIVE, id))!.state;

describe("§5.10 confirm_by", () => {
  it("is now plus the shorter of confirm_within and max_confirm_within, or the start if that comes first", () => {
    expect(confirmByOf(2 * HOUR, 24 * HOUR, 100 * HOUR, 0)).toBe(2 * HOUR);
    expect(confirmByOf(48 * HOUR, 24 * HOUR, 100 * HOUR, 0)).toBe(24 * HOUR);
    expect(confirmByOf(undefined, 24 * HOUR, 100 * HOUR, 0)).toBe(24 * HOUR);
    expect(confirmByOf(2 * HOUR, 24 * HOUR, HOUR, 0)).toBe(HOUR);
  });
});

describe("§5.10 required and named-only participants at confirm", () => {
  it("a required participant makes the booking tentative (202); the named-only one is not_required; the deadline is on the due index", async () => {
    const w = world();
    const brother = newParty();
    const { r } = await book(w, [
      { who: principalOf(brother), role: "invitee", confirm_within: "PT2H" },
      { name: "Mira", role: "attendee", relationship: "child" },
    ]);
    const made = unwrap(r);
    expect(made.status).toBe(202);
    expect(made.body.booking.status).toBe("tentative");
    const s = await state(w, made.body.booking.booking_id);
    expect(s.participants?.map((p) => p.status)).toEqual(["pending", "not_required"]);
    expect(s.participants?.[0]?.confirmBy).toBe(w.clock.now() + 2 * HOUR);
    expect(s.participants?.[0]?.default).toBe("release");
    expect(bookingIndexEntry(s).deadline).toBe(w.clock.now() + 2 * HOUR);
  });

  it("a named-only participant alone leaves the booking confirmed (201), even at a host without policies.tentative", async () => {
    const w = world();
    const { r } = await book(w, [{ name: "Mira", role: "attendee" }], INSTANT);
    const made = unwrap(r);
    expect(made.status).toBe(201);
    expect(made.body.booking.participants).toEqual([
      { name: "Mira", role: "attendee", status: "not_required" },
    ]);
  });

  it("a host without policies.tentative refuses required participants with 501 UNSUPPORTED", async () => {
    const w = world();
    const { r } = await book(w, [{ who: principalOf(newParty()), role: "invitee" }], INSTANT);
    refusalOf(r, "UNSUPPORTED");
  });
});

describe("§5.10 answering", () => {
  it("the last required acceptance confirms (sequence + 1); the booker earns its credit only then (Locks)", async () => {
    const w = world();
    const a = newParty();
    const b = newParty();
    const { r, caller, hold } = await book(w, [
      { who: principalOf(a), role: "invitee" },
      { who: principalOf(b), role: "attendee" },
    ]);
    const id = unwrap(r).body.booking.booking_id;
    const agent = { kind: "agent" as const, id: caller.agentKey };
    expect((await w.store.reputation(agent, w.clock.now())).confirmed).toBe(0);
    const first = unwrap(await answer(w, a, id, true, hold.offerSha256));
    expect(first.booking.status).toBe("tentative");
    const last = unwrap(await answer(w, b, id, true, hold.offerSha256));
    expect(last.booking).toMatchObject({ status: "confirmed", sequence: 1 });
    expect((await w.store.reputation(agent, w.clock.now())).confirmed).toBeGreaterThan(0);
    // booking.response for each answer, then booking.confirmed.
    const types = w.outbox.events.map((e) => (e.event as { type: string }).type);
    expect(types).toEqual(["booking.response", "booking.response", "booking.confirmed"]);
  });

  it("a hash other than the booking's current offer_sha256 is 409 CONTRACT_MISMATCH", async () => {
    const w = world();
    const a = newParty();
    const { r } = await book(w, [{ who: principalOf(a), role: "invitee" }]);
    refusalOf(
      await answer(w, a, unwrap(r).body.booking.booking_id, true, "A".repeat(43)),
      "CONTRACT_MISMATCH",
    );
  });

  it("the answering mandate's constraints apply: a closed mandate over another offer, a max_price below the total", async () => {
    const w = world();
    const a = newParty();
    const { r, hold } = await book(w, [{ who: principalOf(a), role: "invitee" }]);
    const id = unwrap(r).body.booking.booking_id;
    refusalOf(
      await answer(w, a, id, true, hold.offerSha256, { constraints: { offer_sha256: `${"B".repeat(42)}A` } }),
      "MANDATE_LIMIT",
      "offer_mismatch",
    );
    refusalOf(
      await answer(w, a, id, true, hold.offerSha256, {
        constraints: { max_price: { amount: "1.00", currency: "CAD" } },
      }),
      "MANDATE_LIMIT",
      "over_max_price",
    );
    // A closed mandate over the booking's own contract answers.
    unwrap(
      await answer(w, a, id, true, hold.offerSha256, { constraints: { offer_sha256: hold.offerSha256 } }),
    );
  });

  it("someone who is not a required participant is not found; a participant reads the booking with the contract as offer (§5.5)", async () => {
    const w = world();
    const a = newParty();
    const { r, hold } = await book(w, [{ who: principalOf(a), role: "invitee" }]);
    const id = unwrap(r).body.booking.booking_id;
    refusalOf(await answer(w, newParty(), id, true, hold.offerSha256), "NOT_FOUND");
    const reader = await callerFor(w, a, { hostId: TENTATIVE, scope: ["cancel"] });
    const read = unwrap(await getBooking(w.deps, TENTATIVE, reader, id));
    expect(offerSha256(read.offer!)).toBe(hold.offerSha256);
  });

  it("a decline: declined, participant_declined, time freed, counts like a released hold; the decliner can no longer read it", async () => {
    const w = world();
    const a = newParty();
    const { r, hold, caller } = await book(w, [{ who: principalOf(a), role: "invitee" }]);
    const id = unwrap(r).body.booking.booking_id;
    const out = unwrap(await answer(w, a, id, false, hold.offerSha256));
    expect(out.booking.status).toBe("declined");
    expect(out.booking.refusal).toMatchObject({ code: "DECLINED", reason: "participant_declined" });
    expect((await w.store.getBooking(TENTATIVE, id))?.state).toBe("released");
    const rep = await w.store.reputation({ kind: "agent", id: caller.agentKey }, w.clock.now());
    expect(rep.released).toBeGreaterThan(0);
    expect(rep.confirmed).toBe(0);
    const reader = await callerFor(w, a, { hostId: TENTATIVE, scope: ["cancel"] });
    refusalOf(await getBooking(w.deps, TENTATIVE, reader, id), "NOT_FOUND");
  });

  it("§5.6 §5.10 a tentative booking is cancelled by the guest like any booking, frees the time, and counts like a released hold", async () => {
    const w = world();
    const { r, caller } = await book(w, [{ who: principalOf(newParty()), role: "invitee" }]);
    const id = unwrap(r).body.booking.booking_id;
    expect(unwrap(r).body.booking.status).toBe("tentative");
    const out = unwrap(await cancelBooking(w.deps, TENTATIVE, caller, id, { idempotency_key: "x" }));
    expect(out.booking).toMatchObject({ status: "cancelled", sequence: 1 });
    expect((await w.store.getBooking(TENTATIVE, id))?.state).toBe("released");
    const rep = await w.store.reputation({ kind: "agent", id: caller.agentKey }, w.clock.now());
    expect(rep.released).toBeGreaterThan(0);
    expect(rep.confirmed).toBe(0);
  });
});

describe("§5.10 deadlines", () => {
  it("silence with default release: expired, participant_did_not_answer, time freed, counts like an expired hold", async () => {
    const w = world();
    const a = newParty();
    const { r, caller } = await book(w, [{ who: principalOf(a), role: "invitee", confirm_within: "PT1H" }]);
    const id = unwrap(r).body.booking.booking_id;
    w.clock.advance(HOUR);
    expect((await expireOverdue(w.deps, TENTATIVE)).participantsLapsed).toEqual([id]);
    const s = await state(w, id);
    expect(s.status).toBe("expired");
    expect(s.refusal?.reason).toBe("participant_did_not_answer");
    expect((await w.store.getBooking(TENTATIVE, id))?.state).toBe("released");
    expect(
      (await w.store.reputation({ kind: "agent", id: caller.agentKey }, w.clock.now())).expired,
    ).toBeGreaterThan(0);
  });

  it("silence with default keep: the answer is no longer awaited and the booking becomes confirmed", async () => {
    const w = world();
    const a = newParty();
    const { r } = await book(w, [
      { who: principalOf(a), role: "invitee", confirm_within: "PT1H", default: "keep" },
    ]);
    const id = unwrap(r).body.booking.booking_id;
    w.clock.advance(HOUR);
    await expireOverdue(w.deps, TENTATIVE);
    expect((await state(w, id)).status).toBe("confirmed");
  });
});

describe("§5.10 changes re-ask", () => {
  it("accepting a change returns the booking to tentative with each participant pending again and a fresh deadline", async () => {
    const w = world();
    const a = newParty();
    const { r, caller, hold } = await book(w, [
      { who: principalOf(a), role: "invitee", confirm_within: "PT1H" },
    ]);
    const id = unwrap(r).body.booking.booking_id;
    unwrap(await answer(w, a, id, true, hold.offerSha256));
    expect((await state(w, id)).status).toBe("confirmed");
    w.clock.advance(10 * MINUTE);
    const o = unwrap(
      await changeOffer(w.deps, testCreateHold(w), TENTATIVE, caller, id, {
        idempotency_key: "o",
        sequence: 1,
        start: "2030-01-08T12:00:00-05:00",
      }),
    );
    const moved = unwrap(
      await reschedule(w.deps, TENTATIVE, caller, id, {
        idempotency_key: "m",
        sequence: 1,
        offer_sha256: offerSha256(o.proposal.offer),
      }),
    );
    expect(moved.booking.status).toBe("tentative");
    const s = await state(w, id);
    expect(s.participants?.[0]).toMatchObject({ status: "pending", confirmBy: w.clock.now() + HOUR });
  });

  it("a change to a start already passed is refused: OUTSIDE_BOOKING_WINDOW too_soon, asking and accepting", async () => {
    const w = world();
    const a = newParty();
    const { r } = await book(w, [{ who: principalOf(a), role: "invitee" }]);
    const s = await state(w, unwrap(r).body.booking.booking_id);
    const refusal = tooSoonForParticipants(s, w.clock.now() - MINUTE, w.clock.now());
    expect(refusal).toMatchObject({ code: "outside_booking_window", reason: "too_soon" });
    expect(tooSoonForParticipants(s, w.clock.now() + HOUR, w.clock.now())).toBeUndefined();
    // reask re-asks each required participant from the new start.
    const again = reask(s, s.contract, SLOT, 24 * HOUR, w.clock.now());
    expect(again?.[0]).toMatchObject({ status: "pending", confirmBy: w.clock.now() + 24 * HOUR });
  });
});

describe("§5.10 reconfirmation", () => {
  const reconfirm = { before: "PT24H", beforeMs: 24 * HOUR, default: "release" as const };

  /** Every day 07:00–20:00 with SLOT listed free, so the hold engine can place a hold there. */
  function openAtSlot(host: ReturnType<World["host"]>) {
    host.connector.openStarts = [SLOT];
    for (const r of host.runtime.catalog.resources)
      (r as { hours: unknown }).hours = [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day,
        open: "07:00",
        close: "20:00",
      }));
  }
  const offerPayload = (jws: string) =>
    JSON.parse(Buffer.from(jws.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;

  it("§5.2 §5.10 the signed offer of a hold at a host with policies.reconfirm states reconfirm {before, default}; absent without it", async () => {
    const RECONFIRMING = "reconfirming-garage";
    const w = makeWorld([makeHost(RECONFIRMING, "Reconfirming Garage", { reconfirm })]);
    for (const id of [RECONFIRMING, INSTANT]) openAtSlot(w.host(id));
    const hold = async (hostId: string) => {
      const caller = await callerFor(w, newParty(), { hostId });
      return unwrap(
        await placeHold(w.deps, hostId, caller, {
          idempotency_key: "h",
          service_id: "oil-change",
          start: formatInstant(SLOT, "America/Toronto"),
        }),
      );
    };
    const stated = offerPayload((await hold(RECONFIRMING)).offer);
    expect(stated["reconfirm"]).toEqual({ before: "PT24H", default: "release" });
    const plain = offerPayload((await hold(INSTANT)).offer);
    expect(plain).not.toHaveProperty("reconfirm");
  });

  it("a change recomputes the booker's deadline from the new start, and adds one a move makes due", () => {
    const booker = {
      who: "urn:b",
      role: "booker" as const,
      confirmBy: 5 * HOUR,
      default: "release" as const,
      status: "pending" as const,
    };
    const s = { status: "confirmed", principal: "urn:b", participants: [booker] } as unknown as BookingState;
    expect(reask(s, { reconfirm } as never, 100 * HOUR, undefined, 0)).toEqual([
      { ...booker, confirmBy: 76 * HOUR },
    ]);
    const none = { status: "confirmed", principal: "urn:b" } as unknown as BookingState;
    expect(reask(none, { reconfirm } as never, 100 * HOUR, undefined, 0)).toEqual([
      { ...booker, confirmBy: 76 * HOUR },
    ]);
    // Due already: nothing to reconfirm.
    expect(reask(none, { reconfirm } as never, 10 * HOUR, undefined, 0)).toBeUndefined();
  });

  it("a booking whose start has passed is never released for a missed reconfirmation", async () => {
    const w = world();
    const { r } = await book(w, undefined);
    const id = unwrap(r).body.booking.booking_id;
    const host = w.host(TENTATIVE).runtime;
    const s = await state(w, id);
    unwrap(
      await saveBooking(
        w.deps,
        host,
        id,
        (x) =>
          ok({
            ...x,
            participants: [
              {
                who: x.principal,
                role: "booker",
                confirmBy: x.start - HOUR,
                default: "release",
                status: "pending",
              },
            ],
          }),
        w.clock.now(),
      ),
    );
    w.clock.advance(s.start - w.clock.now() + MINUTE);
    expect((await expireOverdue(w.deps, TENTATIVE)).participantsLapsed).toEqual([id]);
    const after = await state(w, id);
    expect(after.status).toBe("confirmed");
    expect(after.participants?.[0]?.confirmBy).toBeUndefined();
  });
});

describe("§5.10 Locks: tentative bookings count against the caps like holds", () => {
  it("an agent at its cap with a tentative booking is refused the next hold (HOLD_LIMIT agent_limit)", async () => {
    const w = makeWorld([
      makeHost(TENTATIVE, "Tentative Garage", {
        tentative: { maxConfirmWithin: "PT24H", maxConfirmWithinMs: 24 * HOUR },
        holds: {
          maxTtlMs: 10 * MINUTE,
          maxActivePerAgent: 1,
          requiresMandate: true,
          maxActiveUnproven: 8,
          maxActivePerAttester: 8,
        },
      }),
    ]);
    const booker = newParty();
    const caller = await callerFor(w, booker, { hostId: TENTATIVE });
    const hold = await placeTestHold(w, w.host(TENTATIVE), caller, { resource: "bay-1" });
    unwrap(
      await confirmHold(w.deps, TENTATIVE, caller, hold.record.holdId, {
        idempotency_key: "c",
        offer_sha256: hold.offerSha256,
        participants: [{ who: principalOf(newParty()), role: "invitee" }],
      }),
    );
    const next = await placeHold(w.deps, TENTATIVE, caller, {
      idempotency_key: "h2",
      service_id: "oil-change",
      start: formatInstant(SLOT + 2 * HOUR, "America/Toronto"),
    });
    refusalOf(next, "HOLD_LIMIT", "agent_limit");
  });
});

describe("§5.10 Locks: two racing holds for the agent's last unit", () => {
  it("§5.10 an agent with a tentative booking and one unit left sends two holds at once: exactly one is placed, the other is HOLD_LIMIT agent_limit", async () => {
    const w = makeWorld([
      makeHost(TENTATIVE, "Tentative Garage", {
        tentative: { maxConfirmWithin: "PT24H", maxConfirmWithinMs: 24 * HOUR },
        holds: {
          maxTtlMs: 10 * MINUTE,
          maxActivePerAgent: 2,
          requiresMandate: true,
          maxActiveUnproven: 8,
          maxActivePerAttester: 8,
        },
      }),
    ]);
    // Both times free upstream and inside the bays' hours, so only the cap decides.
    const host = w.host(TENTATIVE);
    host.connector.openStarts = [SLOT + 2 * HOUR, SLOT + 3 * HOUR];
    for (const res of host.runtime.catalog.resources)
      (res as { hours: unknown }).hours = [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day,
        open: "07:00",
        close: "20:00",
      }));
    const caller = await callerFor(w, newParty(), { hostId: TENTATIVE });
    const hold = await placeTestHold(w, host, caller, { resource: "bay-1" });
    const r = unwrap(
      await confirmHold(w.deps, TENTATIVE, caller, hold.record.holdId, {
        idempotency_key: "c",
        offer_sha256: hold.offerSha256,
        participants: [{ who: principalOf(newParty()), role: "invitee" }],
      }),
    );
    expect(r.body.booking.status).toBe("tentative");
    const attempt = (key: string, hours: number) =>
      placeHold(w.deps, TENTATIVE, caller, {
        idempotency_key: key,
        service_id: "oil-change",
        start: formatInstant(SLOT + hours * HOUR, "America/Toronto"),
      });
    const results = await Promise.all([attempt("h2", 2), attempt("h3", 3)]);
    expect(results.filter((x) => x.ok)).toHaveLength(1);
    refusalOf(
      results.find((x) => !x.ok)!,
      "HOLD_LIMIT",
      "agent_limit",
    );
  });
});

describe("§5.10 at a host that approves bookings (host_approval with policies.tentative)", () => {
  const APPROVING = "approving-tentative-garage";
  function approvingWorld(): World {
    return makeWorld([
      makeHost(APPROVING, "Approving Tentative Garage", {
        confirmation: "host_approval",
        tentative: { maxConfirmWithin: "PT24H", maxConfirmWithinMs: 24 * HOUR },
      }),
    ]);
  }
  const answerAt = async (w: World, who: Party, id: string, hash: string) =>
    respond(w.deps, APPROVING, await callerFor(w, who, { hostId: APPROVING, scope: ["cancel"] }), id, {
      idempotency_key: "r",
      accept: true,
      offer_sha256: hash,
    });
  const stateAt = async (w: World, id: string) => (await loadBooking(w.store, APPROVING, id))!.state;

  it("§5.10 the host's approval makes a booking whose required participant has not accepted tentative; their acceptance confirms it", async () => {
    const w = approvingWorld();
    const a = newParty();
    const { r, hold } = await book(w, [{ who: principalOf(a), role: "invitee" }], APPROVING);
    const made = unwrap(r);
    expect(made.status).toBe(202);
    expect(made.body.booking.status).toBe("pending_host");
    const id = made.body.booking.booking_id;
    const approved = unwrap(await approveBooking(w.deps, APPROVING, id));
    expect(approved.status).toBe("tentative");
    expect((await stateAt(w, id)).participants?.[0]?.status).toBe("pending");
    const accepted = unwrap(await answerAt(w, a, id, hold.offerSha256));
    expect(accepted.booking).toMatchObject({ status: "confirmed", answer: { by: "host" } });
  });

  it("§5.8 §5.10 the host's approval that leaves the booking tentative is sent to the booker as booking.response, its booking tentative with the participant pending (never booking.confirmed)", async () => {
    const w = approvingWorld();
    const a = newParty();
    const { r } = await book(w, [{ who: principalOf(a), role: "invitee" }], APPROVING);
    const id = unwrap(r).body.booking.booking_id;
    const before = w.outbox.events.length;
    unwrap(await approveBooking(w.deps, APPROVING, id));
    const sent = w.outbox.events.slice(before).map((e) => e.event as Record<string, unknown>);
    expect(sent.map((e) => e["type"])).toEqual(["booking.response"]);
    expect(sent[0]?.["booking"]).toMatchObject({
      booking_id: id,
      status: "tentative",
      answer: { by: "host" },
      participants: [{ who: principalOf(a), status: "pending" }],
    });
    expect(typeof sent[0]?.["receipt"]).toBe("string");
  });

  it("§5.10 the host's approval confirms at once when every required participant accepted while it was pending", async () => {
    const w = approvingWorld();
    const a = newParty();
    const { r, hold } = await book(w, [{ who: principalOf(a), role: "invitee" }], APPROVING);
    const id = unwrap(r).body.booking.booking_id;
    const early = unwrap(await answerAt(w, a, id, hold.offerSha256));
    expect(early.booking.status).toBe("pending_host");
    expect(unwrap(await approveBooking(w.deps, APPROVING, id)).status).toBe("confirmed");
  });

  it("§5.11 §5.10 accepting the host's counter on a pending booking whose participant already accepted returns it to tentative, the participant pending again", async () => {
    const w = approvingWorld();
    const a = newParty();
    const { r, hold, caller } = await book(w, [{ who: principalOf(a), role: "invitee" }], APPROVING);
    const id = unwrap(r).body.booking.booking_id;
    unwrap(await answerAt(w, a, id, hold.offerSha256));
    expect((await stateAt(w, id)).participants?.[0]?.status).toBe("accepted");

    w.clock.advance(10 * MINUTE);
    const newStart = "2030-01-08T12:00:00-05:00";
    unwrap(await counterBooking(w.deps, testCreateHold(w), APPROVING, id, { start: newStart }));
    const proposal = unwrap(await getBooking(w.deps, APPROVING, caller, id)).booking.proposal;
    if (proposal === undefined) throw new Error("no counter");
    const accepted = unwrap(
      await proposalResponse(w.deps, APPROVING, caller, id, {
        idempotency_key: "p",
        proposal_id: proposal.proposal_id,
        accept: true,
        sequence: 0,
        offer_sha256: offerSha256(proposal.offer),
      }),
    );
    expect(accepted.booking).toMatchObject({
      status: "tentative",
      start: newStart,
      sequence: 1,
      answer: { by: "host" },
    });
    const s = await stateAt(w, id);
    // A fresh deadline from now: the shorter of max_confirm_within (24 h) and the new start.
    expect(s.participants?.[0]).toMatchObject({
      status: "pending",
      confirmBy: Math.min(w.clock.now() + 24 * HOUR, s.start),
    });
    expect(s.approvalBy).toBeUndefined();
  });
});
