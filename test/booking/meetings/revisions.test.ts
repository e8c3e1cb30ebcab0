/**
 * SchCP §5.12 Revisions and "Changing a confirmed meeting", rule by rule, on the core and the
 * SchCP use cases, with the memory store and with Redis (each run its own key prefix): a
 * revision that adopts the booking's open change offer, the change offer alone refused on a
 * meeting booking, a revision kept pending on a confirmed meeting until its commit, and the
 * ways a pending revision is dropped. Over HTTP: test/e2e/meeting-revisions.test.ts.
 */
import { describe, expect, it } from "vitest";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { changeOffer } from "../../../src/edges/schcp/change-offer.js";
import { reschedule } from "../../../src/edges/schcp/reschedule.js";
import { proposalResponse } from "../../../src/edges/schcp/proposal-response.js";
import { commitBooking } from "../../../src/edges/schcp/meeting/commit.js";
import { reviseBooking } from "../../../src/edges/schcp/meeting/revise.js";
import { withdrawBookingRevision } from "../../../src/edges/schcp/meeting/withdraw.js";
import { acceptMeeting } from "../../../src/booking/meetings/answer.js";
import { acceptRevision, declineRevision } from "../../../src/booking/meetings/revise-confirmed.js";
import { counterBooking } from "../../../src/booking/operator/counter.js";
import { expireOverdue } from "../../../src/booking/operator/deadlines.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import type { BookingState } from "../../../src/booking/bookings/state.js";
import { signMeetingContract, signPersonAcceptance } from "../../../src/agent/meeting.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  HOUR,
  MINUTE,
  SLOT,
  callerFor,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  testCreateHold,
  type Party,
  type World,
} from "../bookings/world.js";
import { personHost, principalOf, redisWorlds } from "./support.js";

const TZ = "America/Toronto";
const HOOK = "https://agent.example/hooks/schcp";
const LATER = SLOT + 3 * HOUR;
const redisWorld = redisWorlds("meeting-revisions");

interface Cast {
  readonly w: World;
  readonly noor: Party;
  readonly ellis: Party;
}

async function cast(storeKind: "memory" | "redis"): Promise<Cast> {
  const noor = newParty();
  const ellis = newParty();
  const base = makeWorld([personHost("noor", noor), personHost("ellis", ellis)]);
  if (storeKind === "memory") return { w: base, noor, ellis };
  const { w } = await redisWorld.onRedis(base);
  return { w, noor, ellis };
}

interface Member {
  readonly hostId: "noor" | "ellis";
  readonly offerSha256: string;
}

async function contract(
  c: Cast,
  members: readonly Member[],
  over: { exp?: number; start?: number; revision?: number } = {},
): Promise<{ compact: string; sha256: string }> {
  const start = over.start ?? SLOT;
  const signed = await signMeetingContract(
    {
      exp: over.exp ?? Math.floor(c.w.clock.now() / 1000) + 6 * 3600,
      meeting_id: "mtg_1",
      revision: over.revision ?? 1,
      title: "Coffee",
      tz: TZ,
      start: formatInstant(start, TZ),
      end: formatInstant(start + 45 * MINUTE, TZ),
      place: { name: "Trinity Bellwoods Park", locality: "Toronto" },
      members: members.map((m) => ({
        principal: principalOf(m.hostId === "noor" ? c.noor : c.ellis),
        name: m.hostId,
        host: m.hostId,
        domain: null,
        service_id: "oil-change",
        offer_sha256: m.offerSha256,
      })),
    },
    c.noor.principal,
    c.w.clock.now(),
  );
  if (!signed.ok) throw new Error(JSON.stringify(signed.error));
  return { compact: signed.value.compact, sha256: signed.value.sha256 };
}

const must = <T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};

const stateOf = async (c: Cast, hostId: string, id: string): Promise<BookingState> =>
  (await loadBooking(c.w.deps.store, hostId, id))!.state;

async function acceptanceBy(c: Cast, who: Party, compact: string): Promise<string> {
  return must(await signPersonAcceptance(compact, who.principal, c.w.clock.now())).compact;
}

/** A meeting of Noor (organizer) and Ellis at SLOT, confirmed on both calendars, or left tentative. */
async function meeting(c: Cast, commit: boolean) {
  const held: Record<string, { holdId: string; offerSha256: string }> = {};
  for (const hostId of ["noor", "ellis"] as const) {
    const caller = await callerFor(c.w, c.noor, { hostId });
    const hold = await placeTestHold(c.w, c.w.host(hostId), caller, { callbackUrl: HOOK, start: SLOT });
    held[hostId] = { holdId: hold.record.holdId, offerSha256: hold.offerSha256 };
  }
  const members: Member[] = [
    { hostId: "noor", offerSha256: held["noor"]!.offerSha256 },
    { hostId: "ellis", offerSha256: held["ellis"]!.offerSha256 },
  ];
  const k = await contract(c, members);
  const ids: Record<string, string> = {};
  for (const m of members) {
    const caller = await callerFor(c.w, c.noor, { hostId: m.hostId });
    const r = must(
      await confirmHold(c.w.deps, m.hostId, caller, held[m.hostId]!.holdId, {
        idempotency_key: `c-${m.hostId}`,
        offer_sha256: m.offerSha256,
        meeting: k.compact,
      }),
    );
    ids[m.hostId] = r.body.booking.booking_id;
  }
  const yes = await acceptanceBy(c, c.ellis, k.compact);
  must(await acceptMeeting(c.w.deps, "ellis", ids["ellis"]!, yes));
  if (commit) {
    for (const hostId of ["ellis", "noor"] as const)
      must(await commitAt(c, hostId, ids[hostId]!, k.sha256, [yes]));
  }
  return { k, ids, members, yes };
}

async function commitAt(c: Cast, hostId: string, bookingId: string, sha: string, acceptances: string[]) {
  const caller = await callerFor(c.w, c.noor, { hostId });
  return commitBooking(c.w.deps, hostId, caller, bookingId, {
    idempotency_key: "k",
    contract_sha256: sha,
    acceptances,
  });
}

/** The organizer's own change offer at a calendar (§5.7), and its hash. */
async function changeOfferAt(c: Cast, hostId: string, bookingId: string, start: number) {
  const caller = await callerFor(c.w, c.noor, { hostId });
  const state = await stateOf(c, hostId, bookingId);
  const r = must(
    await changeOffer(c.w.deps, testCreateHold(c.w), hostId, caller, bookingId, {
      idempotency_key: "o",
      sequence: state.sequence,
      start: new Date(start).toISOString(),
    }),
  );
  return { proposal: r.proposal, sha256: offerSha256(r.proposal.offer) };
}

async function reviseAt(c: Cast, hostId: string, bookingId: string, compact: string) {
  const caller = await callerFor(c.w, c.noor, { hostId });
  const state = await stateOf(c, hostId, bookingId);
  return reviseBooking(c.w.deps, hostId, caller, bookingId, {
    idempotency_key: "r",
    sequence: state.sequence,
    contract: compact,
  });
}

describe.each(["memory", "redis"] as const)("§5.12 revisions on the %s store", (storeKind) => {
  it("a revision of a tentative booking that names its open change offer adopts it: the time moves, the new hash, the acceptance dropped, answered again", async () => {
    const c = await cast(storeKind);
    const { ids, members } = await meeting(c, false);
    const before = await stateOf(c, "ellis", ids["ellis"]!);
    expect(before.status).toBe("tentative");
    // §5.12 Revisions step 1: a change offer is allowed on a pending_host or tentative meeting booking.
    const offer = await changeOfferAt(c, "ellis", ids["ellis"]!, LATER);
    const moved = [members[0]!, { hostId: "ellis" as const, offerSha256: offer.sha256 }];
    const k2 = await contract(c, moved, { revision: 2, start: LATER });
    const r = must(await reviseAt(c, "ellis", ids["ellis"]!, k2.compact));
    expect(r.booking).toMatchObject({
      status: "pending_host",
      sequence: before.sequence + 1,
      meeting: { revision: 2, contract_sha256: k2.sha256 },
    });
    expect(r.booking.meeting?.acceptance).toBeUndefined();
    expect(r.booking.offer_sha256).toBe(offer.sha256);
    expect(r.booking.proposal).toBeUndefined();
    expect(validateSchcp("BookingResponse", r).ok).toBe(true);
    const after = await stateOf(c, "ellis", ids["ellis"]!);
    expect(after.start).toBe(LATER);
    expect(after.answer).toBeUndefined();
  });

  it("a revision whose member names neither the current offer nor the open change offer is CONTRACT_MISMATCH", async () => {
    const c = await cast(storeKind);
    const { ids, members } = await meeting(c, false);
    await changeOfferAt(c, "ellis", ids["ellis"]!, LATER);
    const current = (await stateOf(c, "ellis", ids["ellis"]!)).sequence;
    const k2 = await contract(c, [members[0]!, { hostId: "ellis", offerSha256: members[0]!.offerSha256 }], {
      revision: 2,
      start: LATER,
    });
    const refused = await reviseAt(c, "ellis", ids["ellis"]!, k2.compact);
    const wire = refusalOf(refused, "CONTRACT_MISMATCH", "contract_mismatch");
    expect(wire.details).toEqual({ offer_sha256: members[1]!.offerSha256 });
    expect((await stateOf(c, "ellis", ids["ellis"]!)).sequence).toBe(current);
  });

  it("accepting a change offer directly on a meeting booking, or a host's counter, is refused meeting_invalid", async () => {
    const c = await cast(storeKind);
    const { ids } = await meeting(c, false);
    const offer = await changeOfferAt(c, "ellis", ids["ellis"]!, LATER);
    const caller = await callerFor(c.w, c.noor, { hostId: "ellis" });
    const seq = (await stateOf(c, "ellis", ids["ellis"]!)).sequence;
    const direct = await reschedule(c.w.deps, "ellis", caller, ids["ellis"]!, {
      idempotency_key: "x",
      sequence: seq,
      offer_sha256: offer.sha256,
    });
    refusalOf(direct, "INVALID_REQUEST", "meeting_invalid");

    // A fresh meeting whose member's calendar is still pending_host, countered by its host (§5.11).
    const c2 = await cast(storeKind);
    const m2 = await meeting(c2, false);
    const ellisCaller = await callerFor(c2.w, c2.noor, { hostId: "ellis" });
    // Ellis's no-longer-answered revision leaves it pending_host: revise on the same offer.
    const k2 = await contract(c2, m2.members, { revision: 2 });
    must(await reviseAt(c2, "ellis", m2.ids["ellis"]!, k2.compact));
    must(
      await counterBooking(c2.w.deps, testCreateHold(c2.w), "ellis", m2.ids["ellis"]!, {
        start: new Date(LATER).toISOString(),
      }),
    );
    const countered = await stateOf(c2, "ellis", m2.ids["ellis"]!);
    expect(countered.proposal?.by).toBe("host");
    const accept = await proposalResponse(c2.w.deps, "ellis", ellisCaller, m2.ids["ellis"]!, {
      idempotency_key: "y",
      proposal_id: countered.proposal!.proposalId,
      accept: true,
      sequence: countered.sequence,
      offer_sha256: offerSha256(
        (countered.proposal!.attachments as Record<string, { offer: string }>)["schcp"]!.offer,
      ),
    });
    refusalOf(accept, "INVALID_REQUEST", "meeting_invalid");
    // The counter is taken into a revision instead: the booking adopts it.
    const counterSha = offerSha256(
      (countered.proposal!.attachments as Record<string, { offer: string }>)["schcp"]!.offer,
    );
    const k3 = await contract(c2, [m2.members[0]!, { hostId: "ellis", offerSha256: counterSha }], {
      revision: 3,
      start: LATER,
    });
    const adopted = must(await reviseAt(c2, "ellis", m2.ids["ellis"]!, k3.compact));
    expect(adopted.booking).toMatchObject({ status: "pending_host", meeting: { revision: 3 } });
    expect((await stateOf(c2, "ellis", m2.ids["ellis"]!)).start).toBe(LATER);
  });

  it("a confirmed meeting keeps its time with the revision pending; the member's yes, then commit moves it atomically (change_approved, sequence + 1)", async () => {
    const c = await cast(storeKind);
    const { ids, members, k, yes } = await meeting(c, true);
    const confirmed = await stateOf(c, "ellis", ids["ellis"]!);
    expect(confirmed.status).toBe("confirmed");
    // The change offer alone moves nothing.
    const offer = await changeOfferAt(c, "ellis", ids["ellis"]!, LATER);
    const ownOffer = await changeOfferAt(c, "noor", ids["noor"]!, LATER);
    expect(await stateOf(c, "ellis", ids["ellis"]!)).toMatchObject({
      start: SLOT,
      sequence: confirmed.sequence,
    });
    const exp = Math.floor(SLOT / 1000) - 3600;
    expect(members).toHaveLength(2);
    const moved = [
      { hostId: "noor" as const, offerSha256: ownOffer.sha256 },
      { hostId: "ellis" as const, offerSha256: offer.sha256 },
    ];
    // exp after the current start: meeting_invalid.
    const late = await contract(c, moved, { revision: 2, start: LATER, exp: Math.floor(SLOT / 1000) + 60 });
    refusalOf(await reviseAt(c, "ellis", ids["ellis"]!, late.compact), "INVALID_REQUEST", "meeting_invalid");

    const k2 = await contract(c, moved, { revision: 3, start: LATER, exp });
    const r = must(await reviseAt(c, "ellis", ids["ellis"]!, k2.compact));
    expect(validateSchcp("BookingResponse", r).ok).toBe(true);
    expect(r.pending_contract).toBe(k2.compact);
    expect(r.contract).toBe(k.compact);
    expect(r.booking).toMatchObject({
      status: "confirmed",
      sequence: confirmed.sequence,
      meeting: {
        revision: 1,
        contract_sha256: k.sha256,
        pending_revision: { revision: 3, contract_sha256: k2.sha256, answered: false },
      },
    });
    // The organizer's own calendar answers at once.
    const own = must(await reviseAt(c, "noor", ids["noor"]!, k2.compact));
    expect(own.booking.meeting?.pending_revision?.answered).toBe(true);

    // An acceptance of the current contract does not answer the revision.
    const stale = await acceptRevision(c.w.deps, "ellis", ids["ellis"]!, yes);
    refusalOf(stale, "INVALID_REQUEST", "acceptance_invalid");
    // Until committed, a commit of the current hash returns the booking unchanged ...
    const same = must(await commitAt(c, "ellis", ids["ellis"]!, k.sha256, [yes]));
    expect(same.booking.sequence).toBe(confirmed.sequence);
    // ... and any other hash is CONTRACT_MISMATCH with both hashes.
    const other = await commitAt(c, "ellis", ids["ellis"]!, offer.sha256, []);
    expect(refusalOf(other, "CONTRACT_MISMATCH", "contract_mismatch").details).toEqual({
      contract_sha256: k.sha256,
      pending_contract_sha256: k2.sha256,
    });
    // A member missing.
    refusalOf(await commitAt(c, "ellis", ids["ellis"]!, k2.sha256, []), "INVALID_STATE", "awaiting_members");

    const yes2 = await acceptanceBy(c, c.ellis, k2.compact);
    const answered = must(await acceptRevision(c.w.deps, "ellis", ids["ellis"]!, yes2));
    expect(answered.meeting?.pendingRevision).toMatchObject({ answered: true, acceptance: yes2 });
    expect(answered.start).toBe(SLOT);

    const done = must(await commitAt(c, "ellis", ids["ellis"]!, k2.sha256, [yes2]));
    expect(done.booking).toMatchObject({
      status: "confirmed",
      sequence: confirmed.sequence + 1,
      offer_sha256: offer.sha256,
      meeting: { revision: 3, contract_sha256: k2.sha256, acceptance: yes2 },
    });
    expect(done.booking.meeting?.pending_revision).toBeUndefined();
    expect(done.pending_contract).toBeUndefined();
    expect((await stateOf(c, "ellis", ids["ellis"]!)).start).toBe(LATER);
    expect(c.w.outbox.types()).toContain("booking.change_approved");
    const again = must(await commitAt(c, "ellis", ids["ellis"]!, k2.sha256, [yes2]));
    expect(again.booking.sequence).toBe(confirmed.sequence + 1);
  });

  it("a revision of a confirmed meeting that has started is already_started", async () => {
    const c = await cast(storeKind);
    const { ids, members } = await meeting(c, true);
    c.w.clock.advance(SLOT - c.w.clock.now() + MINUTE);
    const k2 = await contract(c, members, { revision: 2, exp: Math.floor(c.w.clock.now() / 1000) + 600 });
    refusalOf(await reviseAt(c, "ellis", ids["ellis"]!, k2.compact), "INVALID_STATE", "already_started");
  });

  it("a member's no drops the revision: the booking keeps its time and contract, the held time comes free, declined_change records it (change_declined)", async () => {
    const c = await cast(storeKind);
    const { ids, members, k } = await meeting(c, true);
    const offer = await changeOfferAt(c, "ellis", ids["ellis"]!, LATER);
    const holdId = (await stateOf(c, "ellis", ids["ellis"]!)).proposal!.holdId;
    const exp = Math.floor(SLOT / 1000) - 3600;
    const k2 = await contract(c, [members[0]!, { hostId: "ellis", offerSha256: offer.sha256 }], {
      revision: 2,
      start: LATER,
      exp,
    });
    must(await reviseAt(c, "ellis", ids["ellis"]!, k2.compact));
    const no = must(await declineRevision(c.w.deps, "ellis", ids["ellis"]!, "Not that evening."));
    expect(no).toMatchObject({
      status: "confirmed",
      start: SLOT,
      meeting: { revision: 1, contractSha256: k.sha256 },
      declinedChange: {
        revision: 2,
        start: LATER,
        ending: { kind: "declined", reason: "host_declined", message: "Not that evening." },
      },
    });
    expect(no.meeting?.pendingRevision).toBeUndefined();
    expect(no.proposal).toBeUndefined();
    expect((await c.w.deps.store.getHold("ellis", holdId, c.w.clock.now()))?.state).not.toBe("held");
    expect(c.w.outbox.types()).toContain("booking.change_declined");
  });

  it("the organizer withdraws a revision with its words (DECLINED organizer_withdrew); another hash is CONTRACT_MISMATCH", async () => {
    const c = await cast(storeKind);
    const { ids, members, k } = await meeting(c, true);
    const exp = Math.floor(SLOT / 1000) - 3600;
    const k2 = await contract(c, members, { revision: 2, exp });
    must(await reviseAt(c, "noor", ids["noor"]!, k2.compact));
    const caller = await callerFor(c.w, c.noor, { hostId: "noor" });
    const withdraw = (sha: string) =>
      withdrawBookingRevision(c.w.deps, "noor", caller, ids["noor"]!, {
        idempotency_key: "w",
        contract_sha256: sha,
        reason: "Ellis can't make it; we keep Saturday.",
      });
    refusalOf(await withdraw(k.sha256), "CONTRACT_MISMATCH", "contract_mismatch");
    const r = must(await withdraw(k2.sha256));
    expect(validateSchcp("BookingResponse", r).ok).toBe(true);
    expect(r.booking).toMatchObject({
      status: "confirmed",
      meeting: { revision: 1, contract_sha256: k.sha256 },
      declined_change: {
        revision: 2,
        refusal: {
          code: "DECLINED",
          reason: "organizer_withdrew",
          message: "Ellis can't make it; we keep Saturday.",
        },
      },
    });
    // Nothing left to withdraw.
    refusalOf(await withdraw(k2.sha256), "INVALID_STATE", "invalid_state");
  });

  it("the deadline drops a revision: EXPIRED host_did_not_answer where the member never answered, meeting_incomplete where they had", async () => {
    const c = await cast(storeKind);
    const { ids, members } = await meeting(c, true);
    const exp = Math.floor(c.w.clock.now() / 1000) + 3600;
    const k2 = await contract(c, members, { revision: 2, exp });
    must(await reviseAt(c, "ellis", ids["ellis"]!, k2.compact));
    must(await reviseAt(c, "noor", ids["noor"]!, k2.compact));
    c.w.clock.advance(2 * HOUR);
    await expireOverdue(c.w.deps, "ellis");
    await expireOverdue(c.w.deps, "noor");
    expect(await stateOf(c, "ellis", ids["ellis"]!)).toMatchObject({
      status: "confirmed",
      start: SLOT,
      declinedChange: { revision: 2, ending: { kind: "expired", reason: "host_did_not_answer" } },
    });
    expect(await stateOf(c, "noor", ids["noor"]!)).toMatchObject({
      status: "confirmed",
      declinedChange: { revision: 2, ending: { kind: "expired", reason: "meeting_incomplete" } },
    });
  });
});
