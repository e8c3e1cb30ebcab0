/**
 * SchCP §5.12 meetings, rule by rule, on the core and the SchCP confirm and commit use cases,
 * with the memory store and with Redis (each run its own key prefix). The end to end over
 * HTTP is test/e2e/meetings.test.ts.
 */
import { describe, expect, it } from "vitest";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { commitBooking } from "../../../src/edges/schcp/meeting/commit.js";
import { reviseBooking } from "../../../src/edges/schcp/meeting/revise.js";
import { acceptMeeting, takeBackMeeting } from "../../../src/booking/meetings/answer.js";
import { expireOverdue } from "../../../src/booking/operator/deadlines.js";
import { approveBooking } from "../../../src/booking/operator/approve.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import type { BookingState } from "../../../src/booking/bookings/state.js";
import { signMeetingContract, signPersonAcceptance, signRule } from "../../../src/agent/meeting.js";
import { MemoryRuleStore, RedisRuleStore, type RuleStore } from "../../../src/booking/answers/index.js";
import { ruleCovers, verifyRule } from "../../../src/protocol/schcp/rule/index.js";
import {
  acceptanceContext,
  memberFor,
  verifyAcceptance,
  verifyMeetingContract,
} from "../../../src/protocol/schcp/meeting/index.js";
import { schcpMeetingSigner } from "../../../src/edges/schcp/meeting/acceptance.js";
import { ok } from "../../../src/protocol/result.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import type { ConfirmRequest } from "../../../src/protocol/schcp/types.js";
import {
  HOUR,
  MINUTE,
  SLOT,
  callerFor,
  makeHost,
  makeWorld,
  newParty,
  placeTestHold,
  type Party,
  type World,
} from "../bookings/world.js";
import { personHost, principalOf, redisWorlds } from "./support.js";

const TZ = "America/Toronto";
const HOOK = "https://agent.example/hooks/schcp";
const redisWorld = redisWorlds("meetings-core");

interface Cast {
  readonly w: World;
  readonly noor: Party;
  readonly ellis: Party;
  readonly rules: RuleStore;
}

/** The rule check and meeting signer the composition root wires (gateway/runtime/features/booking.ts). */
const withRules = (w: World, rules: RuleStore): World => ({
  ...w,
  deps: {
    ...w.deps,
    rules,
    ruleCheck: {
      verify: async (jws, nowSec) => {
        const v = await verifyRule(jws, { now: nowSec });
        return v.ok ? ok({ jws: v.value.jws, claims: v.value.claims }) : v;
      },
      covers: ruleCovers,
    },
    meetingSigner: schcpMeetingSigner,
  },
});

async function cast(storeKind: "memory" | "redis"): Promise<Cast> {
  const noor = newParty();
  const ellis = newParty();
  const base = makeWorld([
    personHost("noor", noor),
    personHost("ellis", ellis),
    makeHost("cafe", "Café", { meetings: true }),
    makeHost("garage", "Garage"),
    makeHost("bistro", "Bistro", { meetings: true, confirmation: "host_approval" }),
  ]);
  if (storeKind === "memory") {
    const rules = new MemoryRuleStore();
    return { w: withRules(base, rules), noor, ellis, rules };
  }
  const onRedis = await redisWorld.onRedis(base);
  const rules = new RedisRuleStore(onRedis.store.redis, onRedis.prefix);
  return { w: withRules(onRedis.w, rules), noor, ellis, rules };
}

interface Held {
  readonly hostId: string;
  readonly holdId: string;
  readonly offerSha256: string;
}

async function holdAt(c: Cast, hostId: string, start = SLOT): Promise<Held> {
  const caller = await callerFor(c.w, c.noor, { hostId });
  const hold = await placeTestHold(c.w, c.w.host(hostId), caller, { callbackUrl: HOOK, start });
  return { hostId, holdId: hold.record.holdId, offerSha256: hold.offerSha256 };
}

async function contract(
  c: Cast,
  held: readonly Held[],
  over: {
    iat?: number;
    exp?: number;
    start?: number;
    answers?: "person";
    ellisAnswers?: "person";
    revision?: number;
  } = {},
): Promise<{ compact: string; sha256: string }> {
  const start = over.start ?? SLOT;
  const member = (h: Held) =>
    h.hostId === "cafe" || h.hostId === "garage" || h.hostId === "bistro"
      ? { principal: `urn:schcp:host:${h.hostId}`, business: true as const }
      : { principal: principalOf(h.hostId === "noor" ? c.noor : c.ellis) };
  const signed = await signMeetingContract(
    {
      ...(over.iat !== undefined && { iat: over.iat }),
      exp: over.exp ?? Math.floor(c.w.clock.now() / 1000) + 6 * 3600,
      meeting_id: "mtg_1",
      revision: over.revision ?? 1,
      title: "Coffee",
      tz: TZ,
      start: formatInstant(start, TZ),
      end: formatInstant(start + 45 * MINUTE, TZ),
      place: { name: "Trinity Bellwoods Park", locality: "Toronto" },
      members: held.map((h) => ({
        ...member(h),
        name: h.hostId,
        host: h.hostId,
        domain: null,
        service_id: "oil-change",
        offer_sha256: h.offerSha256,
        ...(over.ellisAnswers !== undefined && h.hostId === "ellis" && { answers: over.ellisAnswers }),
      })),
      ...(over.answers !== undefined && { answers: over.answers }),
    },
    c.noor.principal,
    c.w.clock.now(),
  );
  if (!signed.ok) throw new Error(JSON.stringify(signed.error));
  return { compact: signed.value.compact, sha256: signed.value.sha256 };
}

async function confirmWith(c: Cast, h: Held, meeting: string, extra: Partial<ConfirmRequest> = {}) {
  const caller = await callerFor(c.w, c.noor, { hostId: h.hostId });
  return confirmHold(c.w.deps, h.hostId, caller, h.holdId, {
    idempotency_key: `c-${h.hostId}`,
    offer_sha256: h.offerSha256,
    meeting,
    ...extra,
  });
}

/** Confirms each hold with the contract, in order; the booking ids. */
async function confirmAll(c: Cast, held: readonly Held[], contractJws: string): Promise<string[]> {
  const ids: string[] = [];
  for (const h of held) {
    const r = await confirmWith(c, h, contractJws);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    ids.push(r.value.body.booking.booking_id);
  }
  return ids;
}

const stateOf = async (c: Cast, hostId: string, id: string): Promise<BookingState> =>
  (await loadBooking(c.w.deps.store, hostId, id))!.state;

/** Ellis's rule, naming Ellis's calendar's signing key: coffee (this world's oil-change) with Noor. */
async function keepRule(c: Cast): Promise<string> {
  const signed = await signRule(
    {
      agent: c.w.host("ellis").runtime.keys[0]!.publicJwk,
      label: "Coffee with Noor",
      services: ["oil-change"],
      organizers: [principalOf(c.noor)],
    },
    c.ellis.principal,
    c.w.clock.now(),
  );
  if (!signed.ok) throw new Error(JSON.stringify(signed.error));
  const verified = await c.w.deps.ruleCheck!.verify(signed.value.compact, Math.floor(c.w.clock.now() / 1000));
  if (!verified.ok) throw new Error(verified.error.message);
  await c.rules.add("ellis", verified.value, c.w.clock.now());
  return signed.value.compact;
}

async function acceptanceBy(c: Cast, who: Party, compact: string): Promise<string> {
  const a = await signPersonAcceptance(compact, who.principal, c.w.clock.now());
  if (!a.ok) throw new Error(JSON.stringify(a.error));
  return a.value.compact;
}

async function commitAt(c: Cast, hostId: string, bookingId: string, sha: string, acceptances: string[]) {
  const caller = await callerFor(c.w, c.noor, { hostId });
  return commitBooking(c.w.deps, hostId, caller, bookingId, {
    idempotency_key: "k",
    contract_sha256: sha,
    acceptances,
  });
}

/** The acceptance is one every other calendar can check (§5.12 Acceptances, by: "rule"): Ellis's rule. */
async function expectEllisRuleAcceptance(c: Cast, contractJws: string, acceptance: string | undefined) {
  const verified = await verifyMeetingContract(contractJws, { now: c.w.clock.now() });
  if (!verified.ok) throw new Error(JSON.stringify(verified.error));
  const member = memberFor(verified.value, { hostId: "ellis", kind: "person", owner: principalOf(c.ellis) });
  if (!member.ok) throw new Error(JSON.stringify(member.error));
  const checked = await verifyAcceptance(
    acceptance,
    acceptanceContext(verified.value, member.value, c.w.clock.now()),
  );
  expect(checked.ok && checked.value).toMatchObject({ by: "rule", ruleLabel: "Coffee with Noor" });
}

describe.each(["memory", "redis"] as const)("§5.12 meetings on the %s store", (storeKind) => {
  it("confirms with a contract: tentative on the organizer's own calendar and a café's, pending_host on a member's until the contract's deadline", async () => {
    const c = await cast(storeKind);
    const held = [await holdAt(c, "noor"), await holdAt(c, "ellis"), await holdAt(c, "cafe")];
    const k = await contract(c, held);
    const replies = [];
    for (const h of held) {
      const r = await confirmWith(c, h, k.compact);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      expect(r.value.status).toBe(202);
      expect(r.value.body.contract).toBe(k.compact);
      expect(r.value.body.booking.meeting).toEqual({
        meeting_id: "mtg_1",
        revision: 1,
        contract_sha256: k.sha256,
      });
      replies.push(r.value.body.booking);
    }
    expect(replies.map((b) => b.status)).toEqual(["tentative", "pending_host", "tentative"]);
    const ellis = await stateOf(c, "ellis", replies[1]!.booking_id);
    expect(ellis.consent.approved).toBe("contract");
    expect(ellis.approvalBy).toBeLessThanOrEqual(ellis.meeting!.expiresAt);
    // The host's approve is not the member's acceptance.
    const approved = await approveBooking(c.w.deps, "ellis", replies[1]!.booking_id);
    expect(!approved.ok && approved.error.code).toBe("invalid_state");
  });

  it("a business that approves each booking: pending_host until it says yes as the host; its booking cannot be committed before (awaiting_members), then can", async () => {
    const c = await cast(storeKind);
    const held = [await holdAt(c, "bistro"), await holdAt(c, "noor"), await holdAt(c, "ellis")];
    const k = await contract(c, held);
    const ids = await confirmAll(c, held, k.compact);
    expect((await stateOf(c, "bistro", ids[0]!)).status).toBe("pending_host");
    const ellisYes = await acceptanceBy(c, c.ellis, k.compact);
    // §5.12 Commit: "A business's booking still pending_host cannot be: the business has not said yes".
    const early = await commitAt(c, "bistro", ids[0]!, k.sha256, [ellisYes]);
    expect(!early.ok && early.error).toMatchObject({ code: "invalid_state", reason: "awaiting_members" });
    const approved = await approveBooking(c.w.deps, "bistro", ids[0]!);
    if (!approved.ok) throw new Error(JSON.stringify(approved.error));
    expect(await stateOf(c, "bistro", ids[0]!)).toMatchObject({
      status: "tentative",
      answer: { by: "host" },
    });
    const done = await commitAt(c, "bistro", ids[0]!, k.sha256, [ellisYes]);
    if (!done.ok) throw new Error(JSON.stringify(done.error));
    expect(done.value.booking).toMatchObject({ status: "confirmed", answer: { by: "host" } });
  });

  it("refuses what the contract does not say of this calendar", async () => {
    const c = await cast(storeKind);
    const noor = await holdAt(c, "noor");
    const ellis = await holdAt(c, "ellis");
    const garage = await holdAt(c, "garage");
    const code = (r: Awaited<ReturnType<typeof confirmWith>>) =>
      r.ok ? "ok" : `${r.error.code}/${r.error.reason}`;

    // A business without meetings.
    const k0 = await contract(c, [noor, ellis, garage]);
    expect(code(await confirmWith(c, garage, k0.compact))).toBe("invalid_request/meeting_invalid");
    // Another offer's hash: CONTRACT_MISMATCH with this offer's hash in details.
    const k1 = await contract(c, [noor, { ...ellis, offerSha256: noor.offerSha256 }]);
    const mismatch = await confirmWith(c, ellis, k1.compact);
    expect(code(mismatch)).toBe("contract_mismatch/contract_mismatch");
    expect(!mismatch.ok && mismatch.error.details).toEqual({ offer_sha256: ellis.offerSha256 });
    // Another time.
    const k2 = await contract(c, [noor, ellis], { start: SLOT + HOUR });
    expect(code(await confirmWith(c, ellis, k2.compact))).toBe("contract_mismatch/contract_mismatch");
    // An expired contract.
    const k3 = await contract(c, [noor, ellis], { exp: Math.floor(c.w.clock.now() / 1000) + 60 });
    c.w.clock.advance(2 * MINUTE);
    expect(code(await confirmWith(c, ellis, k3.compact))).toBe("invalid_request/meeting_invalid");
    c.w.clock.advance(-2 * MINUTE);
    // A required participant.
    const k4 = await contract(c, [noor, ellis]);
    const withParticipant = await confirmWith(c, ellis, k4.compact, {
      participants: [{ who: principalOf(newParty()), role: "invitee" }],
    });
    expect(code(withParticipant)).toBe("invalid_request/meeting_invalid");
    // Someone other than the organizer confirming it.
    const caller = await callerFor(c.w, c.ellis, { hostId: "ellis" });
    const stranger = await placeTestHold(c.w, c.w.host("ellis"), caller, { start: SLOT + 2 * HOUR });
    const k5 = await contract(
      c,
      [noor, { hostId: "ellis", holdId: stranger.record.holdId, offerSha256: stranger.offerSha256 }],
      {
        start: SLOT + 2 * HOUR,
      },
    );
    const byEllis = await confirmHold(c.w.deps, "ellis", caller, stranger.record.holdId, {
      idempotency_key: "x",
      offer_sha256: stranger.offerSha256,
      meeting: k5.compact,
    });
    expect(code(byEllis)).toBe("invalid_request/meeting_invalid");
  });

  it("a member's acceptance makes their booking tentative; commit waits for every member, then confirms once", async () => {
    const c = await cast(storeKind);
    const held = [await holdAt(c, "noor"), await holdAt(c, "ellis")];
    const k = await contract(c, held);
    const ids = await confirmAll(c, held, k.compact);
    const missing = await commitAt(c, "noor", ids[0]!, k.sha256, []);
    expect(!missing.ok && missing.error).toMatchObject({
      reason: "awaiting_members",
      details: { awaiting: [{ principal: principalOf(c.ellis) }] },
    });
    // Something that is not an acceptance.
    const junk = await commitAt(c, "noor", ids[0]!, k.sha256, [k.compact]);
    expect(!junk.ok && junk.error.reason).toBe("acceptance_invalid");

    const yes = await acceptanceBy(c, c.ellis, k.compact);
    const accepted = await acceptMeeting(c.w.deps, "ellis", ids[1]!, yes);
    if (!accepted.ok) throw new Error(JSON.stringify(accepted.error));
    expect(accepted.value).toMatchObject({ status: "tentative", answer: { by: "person" } });
    expect(accepted.value.meeting?.acceptance).toBe(yes);
    expect(c.w.outbox.types()).toContain("booking.accepted");

    const done = await commitAt(c, "ellis", ids[1]!, k.sha256, [yes]);
    if (!done.ok) throw new Error(JSON.stringify(done.error));
    expect(done.value.booking).toMatchObject({ status: "confirmed", sequence: 1 });
    expect(c.w.outbox.types().filter((t) => t === "booking.confirmed")).toHaveLength(1);
    const again = await commitAt(c, "ellis", ids[1]!, k.sha256, [yes]);
    expect(again.ok && again.value.booking.sequence).toBe(1);
    expect(c.w.outbox.types().filter((t) => t === "booking.confirmed")).toHaveLength(1);
  });

  it("takes back a yes as a decline in the person's words, and lapses a tentative booking at the deadline", async () => {
    const c = await cast(storeKind);
    const held = [await holdAt(c, "noor"), await holdAt(c, "ellis")];
    const k = await contract(c, held, { exp: Math.floor(c.w.clock.now() / 1000) + 3600 });
    const ids = await confirmAll(c, held, k.compact);
    await acceptMeeting(c.w.deps, "ellis", ids[1]!, await acceptanceBy(c, c.ellis, k.compact));
    const back = await takeBackMeeting(c.w.deps, "ellis", ids[1]!, "Sorry, not this weekend.");
    if (!back.ok) throw new Error(JSON.stringify(back.error));
    expect(back.value).toMatchObject({
      status: "declined",
      sequence: 1,
      answer: { by: "person" },
      refusal: { kind: "declined", reason: "host_declined", message: "Sorry, not this weekend." },
    });
    c.w.clock.advance(2 * HOUR);
    const report = await expireOverdue(c.w.deps, "noor");
    expect(report.expired).toContain(ids[0]);
    expect(await stateOf(c, "noor", ids[0]!)).toMatchObject({
      status: "expired",
      refusal: { reason: "meeting_incomplete" },
    });
  });

  it("a revision names the new hash, drops the acceptance and is answered again (sequence + 1); never a lower revision", async () => {
    const c = await cast(storeKind);
    const held = [await holdAt(c, "noor"), await holdAt(c, "ellis")];
    const k = await contract(c, held);
    const ids = await confirmAll(c, held, k.compact);
    await acceptMeeting(c.w.deps, "ellis", ids[1]!, await acceptanceBy(c, c.ellis, k.compact));
    const k2 = await contract(c, held, { revision: 2 });
    const caller = await callerFor(c.w, c.noor, { hostId: "ellis" });
    const revise = (contractJws: string, sequence: number) =>
      reviseBooking(c.w.deps, "ellis", caller, ids[1]!, {
        idempotency_key: "r",
        sequence,
        contract: contractJws,
      });
    const stale = await revise(k2.compact, 5);
    expect(!stale.ok && stale.error.code).toBe("stale_sequence");
    const r = await revise(k2.compact, 0);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.booking).toMatchObject({
      status: "pending_host",
      sequence: 1,
      meeting: { revision: 2, contract_sha256: k2.sha256 },
    });
    expect(r.value.booking.meeting?.acceptance).toBeUndefined();
    expect(r.value.contract).toBe(k2.compact);
    const lower = await revise(k.compact, 1);
    expect(!lower.ok && lower.error.reason).toBe("meeting_invalid");
    // An acceptance of the earlier revision no longer answers it.
    const old = await acceptMeeting(c.w.deps, "ellis", ids[1]!, await acceptanceBy(c, c.ellis, k.compact));
    expect(!old.ok && old.error.reason).toBe("acceptance_invalid");
  });

  it("a member's rule that covers the meeting answers at once: tentative, the calendar's acceptance by rule in meeting.acceptance, booking.accepted; commit takes it", async () => {
    const c = await cast(storeKind);
    await keepRule(c);
    const held = [await holdAt(c, "noor"), await holdAt(c, "ellis")];
    const k = await contract(c, held);
    const ids = await confirmAll(c, held, k.compact);
    const ellis = await stateOf(c, "ellis", ids[1]!);
    expect(ellis).toMatchObject({ status: "tentative", answer: { by: "rule", rule: "Coffee with Noor" } });
    const given = ellis.meeting?.acceptance;
    expect(given).toBeDefined();
    expect(c.w.outbox.types()).toContain("booking.accepted");
    // The acceptance is one every other calendar can check (§5.12 Acceptances, by: "rule").
    await expectEllisRuleAcceptance(c, k.compact, given);
    // The organizer's agent hands the calendar's acceptance over at commit, on every calendar.
    for (const [i, hostId] of (["ellis", "noor"] as const).entries()) {
      const done = await commitAt(c, hostId, ids[i === 0 ? 1 : 0]!, k.sha256, [given!]);
      if (!done.ok) throw new Error(JSON.stringify(done.error));
      expect(done.value.booking.status).toBe("confirmed");
    }
  });

  it("a revision at a calendar whose rule covers the meeting is answered again by the rule, over the new hash (booking.accepted)", async () => {
    const c = await cast(storeKind);
    await keepRule(c);
    const held = [await holdAt(c, "noor"), await holdAt(c, "ellis")];
    const k = await contract(c, held);
    const ids = await confirmAll(c, held, k.compact);
    const first = (await stateOf(c, "ellis", ids[1]!)).meeting?.acceptance;
    const k2 = await contract(c, held, { revision: 2 });
    const accepted = () => c.w.outbox.types().filter((t) => t === "booking.accepted").length;
    const before = accepted();
    const caller = await callerFor(c.w, c.noor, { hostId: "ellis" });
    const r = await reviseBooking(c.w.deps, "ellis", caller, ids[1]!, {
      idempotency_key: "r-rule",
      sequence: 0,
      contract: k2.compact,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    // §5.12 Revisions: "answered again as on confirm: … tentative … where a rule covers it".
    expect(r.value.booking).toMatchObject({
      status: "tentative",
      sequence: 1,
      answer: { by: "rule", rule: "Coffee with Noor" },
      meeting: { revision: 2, contract_sha256: k2.sha256 },
    });
    // The rule's yes to the revision is heard as on confirm (booking.accepted).
    expect(accepted()).toBe(before + 1);
    const again = (await stateOf(c, "ellis", ids[1]!)).meeting?.acceptance;
    expect(again).toBeDefined();
    expect(again).not.toBe(first);
    await expectEllisRuleAcceptance(c, k2.compact, again);
  });

  it("a revision of a confirmed meeting at a calendar whose rule covers it is answered at once by the rule (booking.accepted); its commit makes the rule's yes the booking's answer", async () => {
    const c = await cast(storeKind);
    await keepRule(c);
    const held = [await holdAt(c, "noor"), await holdAt(c, "ellis")];
    const k = await contract(c, held, { ellisAnswers: "person" });
    const ids = await confirmAll(c, held, k.compact);
    // Ellis answers the first contract in person (it asks for that), so the booking's answer is by person.
    const own = await acceptanceBy(c, c.ellis, k.compact);
    for (const [i, hostId] of (["noor", "ellis"] as const).entries()) {
      const done = await commitAt(c, hostId, ids[i]!, k.sha256, [own]);
      if (!done.ok) throw new Error(JSON.stringify(done.error));
    }
    expect(await stateOf(c, "ellis", ids[1]!)).toMatchObject({
      status: "confirmed",
      answer: { by: "person" },
    });

    const k2 = await contract(c, held, { revision: 2 });
    const before = c.w.outbox.types().filter((t) => t === "booking.accepted").length;
    const caller = await callerFor(c.w, c.noor, { hostId: "ellis" });
    const r = await reviseBooking(c.w.deps, "ellis", caller, ids[1]!, {
      idempotency_key: "r-confirmed-rule",
      sequence: 1,
      contract: k2.compact,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    // §5.12 Changing a confirmed meeting: "one where a rule covers it answer[s] at once".
    const pending = r.value.booking.meeting?.pending_revision;
    expect(r.value.booking.status).toBe("confirmed");
    expect(pending).toMatchObject({ revision: 2, contract_sha256: k2.sha256, answered: true });
    expect(typeof pending?.acceptance).toBe("string");
    expect(c.w.outbox.types().filter((t) => t === "booking.accepted").length).toBe(before + 1);
    await expectEllisRuleAcceptance(c, k2.compact, pending!.acceptance);

    // The organizer hands the rule's acceptance over at commit; the calendar now says the rule said yes.
    const done = await commitAt(c, "ellis", ids[1]!, k2.sha256, [pending!.acceptance!]);
    if (!done.ok) throw new Error(JSON.stringify(done.error));
    expect(done.value.booking).toMatchObject({
      status: "confirmed",
      sequence: 2,
      answer: { by: "rule", rule: "Coffee with Noor" },
      meeting: { revision: 2, contract_sha256: k2.sha256 },
    });
  });

  it.each([
    ["the contract's", { answers: "person" as const }],
    ["the member's own", { ellisAnswers: "person" as const }],
  ])(
    'answers "person" (%s) keeps a covered meeting pending_host, and the calendar signs no acceptance by rule',
    async (_which, over) => {
      const c = await cast(storeKind);
      const rule = await keepRule(c);
      const held = [await holdAt(c, "noor"), await holdAt(c, "ellis")];
      const k = await contract(c, held, over);
      const ids: string[] = [];
      for (const h of held) {
        const r = await confirmWith(c, h, k.compact);
        if (!r.ok) throw new Error(JSON.stringify(r.error));
        ids.push(r.value.body.booking.booking_id);
      }
      const ellis = await stateOf(c, "ellis", ids[1]!);
      expect(ellis.status).toBe("pending_host");
      expect(ellis.meeting?.acceptance).toBeUndefined();
      expect(c.w.outbox.types()).not.toContain("booking.accepted");
      const byRule = await schcpMeetingSigner.acceptByRule({
        contract: k.compact,
        member: principalOf(c.ellis),
        rule,
        key: c.w.host("ellis").runtime.keys[0]!,
        now: c.w.clock.now(),
      });
      expect(byRule).toBeUndefined();
    },
  );
});
