import { describe, expect, it } from "vitest";
import { getBooking } from "../../../src/edges/schcp/get.js";
import { changeOffer } from "../../../src/edges/schcp/change-offer.js";
import { proposalResponse } from "../../../src/edges/schcp/proposal-response.js";
import { reschedule } from "../../../src/edges/schcp/reschedule.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import type { BookingDeps, BookingRefusal, UseCase } from "../../../src/booking/api.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import { approveBooking as approveView } from "../../../src/booking/operator/approve.js";
import { markAttendance as attendanceView } from "../../../src/booking/operator/attendance.js";
import { declineBooking as declineView } from "../../../src/booking/operator/decline.js";
import { expireOverdue } from "../../../src/booking/operator/deadlines.js";
import { hostCancelBooking as hostCancelView } from "../../../src/booking/operator/host-cancel.js";
import { listBookings } from "../../../src/booking/operator/list.js";
import { proposeChange as proposeView } from "../../../src/booking/operator/propose.js";
import { bookingResponse } from "../../../src/edges/schcp/receipt.js";
import type { BookingView } from "../../../src/booking/view.js";
import type { Result } from "../../../src/protocol/result.js";
import type { BookingResponse } from "../../../src/protocol/schcp/types.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { verifyReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import type { WebhookEvent } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  APPROVAL,
  HOUR,
  INSTANT,
  MINUTE,
  SLOT,
  callerFor,
  discoveryKeys,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  testCreateHold,
  unwrap,
} from "../bookings/world.js";
import type { TestHost, World } from "../bookings/world.js";

const HOOK = "https://agent.example/hooks/schcp";

async function booked(hostId = INSTANT) {
  const world = makeWorld();
  const host = world.host(hostId);
  const caller = await callerFor(world, newParty(), { hostId });
  const hold = await placeTestHold(world, host, caller, { callbackUrl: HOOK, resource: "bay-1" });
  const r = unwrap(
    await confirmHold(world.deps, hostId, caller, hold.record.holdId, {
      idempotency_key: "c",
      offer_sha256: hold.offerSha256,
    }),
  );
  return { world, host, caller, hold, bookingId: r.body.booking.booking_id };
}

/** Every webhook is a closed WebhookEvent to the hold's callback_url, with a receipt that verifies (§5.8). */
async function webhooks(world: World, host: TestHost): Promise<WebhookEvent[]> {
  const out: WebhookEvent[] = [];
  for (const e of world.outbox.events) {
    expect(e.callbackUrl).toBe(HOOK);
    expect(e.hostId).toBe(host.runtime.config.id);
    const valid = validateSchcp("WebhookEvent", e.event);
    expect(valid.ok, JSON.stringify(valid)).toBe(true);
    const event = e.event as unknown as WebhookEvent;
    const receipt = await verifyReceipt(event.receipt, discoveryKeys(host), {
      bookingId: event.booking?.booking_id ?? "",
    });
    expect(receipt.ok).toBe(true);
    if (receipt.ok) expect(receipt.value.claims.booking).toEqual(event.booking);
    out.push(event);
  }
  return out;
}

/**
 * The operator use cases answer the neutral view (booking/view.ts); what the guest sees of the
 * booking afterwards is its SchCP BookingResponse, read here from the stored state.
 */
async function asSchcp(
  deps: BookingDeps,
  run: UseCase<BookingView>,
): Promise<Result<BookingResponse, BookingRefusal>> {
  const r = await run;
  if (!r.ok) return r;
  const loaded = await loadBooking(deps.store, r.value.hostId, r.value.bookingId);
  const host = deps.hosts.get(r.value.hostId);
  if (loaded === undefined || host === undefined) throw new Error("the answered booking is not stored");
  return { ok: true, value: bookingResponse(loaded.state, host) };
}
const approveBooking = (...a: Parameters<typeof approveView>) => asSchcp(a[0], approveView(...a));
const declineBooking = (...a: Parameters<typeof declineView>) => asSchcp(a[0], declineView(...a));
const hostCancelBooking = (...a: Parameters<typeof hostCancelView>) => asSchcp(a[0], hostCancelView(...a));
const markAttendance = (...a: Parameters<typeof attendanceView>) => asSchcp(a[0], attendanceView(...a));
const proposeChange = (...a: Parameters<typeof proposeView>) => asSchcp(a[0], proposeView(...a));

describe("operator: approve and decline (SchCP §6, §7.9)", () => {
  it("approve: pending_host -> confirmed, answer by the host, upstream confirmed, booking.confirmed", async () => {
    const { world, host, bookingId } = await booked(APPROVAL);
    const r = unwrap(await approveBooking(world.deps, APPROVAL, bookingId));
    expect(r.booking).toMatchObject({ status: "confirmed", sequence: 0, answer: { by: "host" } });
    expect(r.booking.approval_by).toBeUndefined();
    expect(r.booking.event.status).toBe("confirmed");
    expect([...host.connector.appointments.values()][0]?.status).toBe("confirmed");
    const events = await webhooks(world, host);
    expect(events.map((e) => e.type)).toEqual(["booking.confirmed"]);
    refusalOf(await approveBooking(world.deps, APPROVAL, bookingId), "INVALID_STATE");
  });

  it("decline: -> declined with DECLINED host_declined, time freed, booking.declined with the refusal", async () => {
    const { world, host, caller, bookingId } = await booked(APPROVAL);
    const r = unwrap(
      await declineBooking(world.deps, APPROVAL, bookingId, { reason: "fully_booked", message: "no room" }),
    );
    expect(r.booking.status).toBe("declined");
    expect(r.booking.refusal).toMatchObject({
      code: "DECLINED",
      reason: "host_declined:fully_booked",
      message: "no room",
    });
    expect(r.booking.answer?.by).toBe("host");
    expect((await world.store.getBooking(APPROVAL, bookingId))?.state).toBe("released");
    await placeTestHold(world, host, caller, { resource: "bay-1" });
    const [event] = await webhooks(world, host);
    expect(event?.type).toBe("booking.declined");
    expect(event?.refusal).toEqual(r.booking.refusal);
  });

  it("an unanswered pending_host booking expires at approval_by (EXPIRED host_did_not_answer, booking.expired)", async () => {
    const { world, host, bookingId } = await booked(APPROVAL);
    expect((await expireOverdue(world.deps, APPROVAL)).expired).toEqual([]);
    world.clock.advance(2 * HOUR);
    expect((await expireOverdue(world.deps, APPROVAL)).expired).toEqual([bookingId]);
    const events = await webhooks(world, host);
    expect(events.map((e) => e.type)).toEqual(["booking.expired"]);
    expect(events[0]?.booking?.refusal).toMatchObject({ code: "EXPIRED", reason: "host_did_not_answer" });
    expect((await world.store.getBooking(APPROVAL, bookingId))?.state).toBe("released");
  });
});

describe("operator: host cancel and attendance (SchCP §5.8, §6)", () => {
  it("host cancel: cancelled, sequence + 1, CANCELLED host_cancelled, booking.cancelled_by_host", async () => {
    const { world, host, bookingId } = await booked();
    const r = unwrap(
      await hostCancelBooking(world.deps, INSTANT, bookingId, { message: "the lift is broken" }),
    );
    expect(r.booking).toMatchObject({ status: "cancelled", sequence: 1 });
    expect(r.booking.refusal).toMatchObject({
      code: "CANCELLED",
      reason: "host_cancelled",
      message: "the lift is broken",
    });
    expect((await world.store.getBooking(INSTANT, bookingId))?.state).toBe("released");
    const [event] = await webhooks(world, host);
    expect(event?.type).toBe("booking.cancelled_by_host");
    expect(event?.alternatives).toEqual([]);
  });

  it("attendance only after the start; no_show bumps sequence and sends booking.no_show; completed is quiet", async () => {
    const { world, host, bookingId } = await booked();
    refusalOf(await markAttendance(world.deps, INSTANT, bookingId, { status: "no_show" }), "INVALID_STATE");
    world.clock.t = SLOT + 10 * MINUTE;
    const r = unwrap(await markAttendance(world.deps, INSTANT, bookingId, { status: "no_show" }));
    expect(r.booking).toMatchObject({ status: "no_show", sequence: 1 });
    expect((await world.store.getBooking(INSTANT, bookingId))?.attendance).toBe("no_show");
    expect((await webhooks(world, host)).map((e) => e.type)).toEqual(["booking.no_show"]);

    const other = await booked();
    other.world.clock.t = SLOT + 50 * MINUTE;
    const done = unwrap(
      await markAttendance(other.world.deps, INSTANT, other.bookingId, { status: "completed" }),
    );
    expect(done.booking).toMatchObject({ status: "completed", sequence: 0 });
    expect(other.world.outbox.events).toEqual([]);
  });
});

describe("host proposals and proposal-response (SchCP §5.8, §5.11)", () => {
  it("propose -> booking.change_proposed with the unchanged booking; accepting moves it (sequence + 1)", async () => {
    const { world, host, caller, bookingId } = await booked();
    const engine = testCreateHold(world);
    const p = unwrap(
      await proposeChange(world.deps, engine, INSTANT, bookingId, { start: "2030-01-08T13:00:00-05:00" }),
    );
    expect(p.booking).toMatchObject({ sequence: 0, start: "2030-01-08T10:00:00-05:00" });
    expect(p.booking.proposal).toMatchObject({ by: "host", start: "2030-01-08T13:00:00-05:00" });
    const [event] = await webhooks(world, host);
    expect(event?.type).toBe("booking.change_proposed");
    const proposal = p.booking.proposal;
    if (proposal === undefined) throw new Error("no proposal");
    const hash = offerSha256(proposal.offer);

    const answer = (accept: boolean, sequence = 0, h: string | undefined = hash) =>
      proposalResponse(world.deps, INSTANT, caller, bookingId, {
        idempotency_key: "pr",
        proposal_id: proposal.proposal_id,
        accept,
        sequence,
        ...(h !== undefined && { offer_sha256: h }),
      });
    refusalOf(await answer(true, 5), "STALE_SEQUENCE");
    refusalOf(await answer(true, 0, "B".repeat(43)), "CONTRACT_MISMATCH");
    const r = unwrap(await answer(true));
    expect(r.booking).toMatchObject({ sequence: 1, start: "2030-01-08T13:00:00-05:00", offer_sha256: hash });
    expect(r.booking.proposal).toBeUndefined();
  });

  it("a counter to a pending_host booking: accepting confirms it with the host's answer; declining keeps it pending", async () => {
    const { world, caller, bookingId } = await booked(APPROVAL);
    const engine = testCreateHold(world);
    const p1 = unwrap(
      await proposeChange(world.deps, engine, APPROVAL, bookingId, { start: "2030-01-08T11:00:00-05:00" }),
    );
    const first = p1.booking.proposal;
    if (first === undefined) throw new Error("no proposal");
    const declined = unwrap(
      await proposalResponse(world.deps, APPROVAL, caller, bookingId, {
        idempotency_key: "d",
        proposal_id: first.proposal_id,
        accept: false,
        sequence: 0,
      }),
    );
    expect(declined.booking).toMatchObject({ status: "pending_host", sequence: 0 });
    expect(declined.booking.proposal).toBeUndefined();

    const p2 = unwrap(
      await proposeChange(world.deps, engine, APPROVAL, bookingId, { start: "2030-01-08T11:00:00-05:00" }),
    );
    const second = p2.booking.proposal;
    if (second === undefined) throw new Error("no proposal");
    const accepted = unwrap(
      await proposalResponse(world.deps, APPROVAL, caller, bookingId, {
        idempotency_key: "a",
        proposal_id: second.proposal_id,
        accept: true,
        sequence: 0,
        offer_sha256: offerSha256(second.offer),
      }),
    );
    expect(accepted.booking).toMatchObject({
      status: "confirmed",
      sequence: 1,
      start: "2030-01-08T11:00:00-05:00",
      answer: { by: "host" },
    });
  });

  it("a guest's move awaiting the host: approve makes it (change_approved), decline records declined_change", async () => {
    const { world, host, caller, bookingId } = await booked(APPROVAL);
    unwrap(await approveBooking(world.deps, APPROVAL, bookingId));
    const engine = testCreateHold(world);
    const askAndAccept = async (start: string, sequence: number) => {
      const o = unwrap(
        await changeOffer(world.deps, engine, APPROVAL, caller, bookingId, {
          idempotency_key: "o",
          sequence,
          start,
        }),
      );
      return unwrap(
        await reschedule(world.deps, APPROVAL, caller, bookingId, {
          idempotency_key: "r",
          sequence,
          offer_sha256: offerSha256(o.proposal.offer),
        }),
      );
    };
    const waiting = await askAndAccept("2030-01-08T12:00:00-05:00", 0);
    expect(waiting.booking.proposal?.awaiting_host).toBe(true);
    const no = unwrap(await declineBooking(world.deps, APPROVAL, bookingId, {}));
    expect(no.booking).toMatchObject({
      sequence: 0,
      start: "2030-01-08T10:00:00-05:00",
      status: "confirmed",
    });
    expect(no.booking.declined_change).toMatchObject({
      start: "2030-01-08T12:00:00-05:00",
      refusal: { code: "DECLINED", reason: "host_declined" },
    });

    await askAndAccept("2030-01-08T14:00:00-05:00", 0);
    const yes = unwrap(await approveBooking(world.deps, APPROVAL, bookingId));
    expect(yes.booking).toMatchObject({
      sequence: 1,
      start: "2030-01-08T14:00:00-05:00",
      answer: { by: "host" },
    });
    expect(yes.booking.declined_change).toBeUndefined();
    const receipt = await verifyReceipt(yes.receipt, discoveryKeys(host), {
      mandateJti: caller.mandate?.root.claims.jti,
    });
    expect(receipt.ok).toBe(true);
    const types = (await webhooks(world, host)).map((e) => e.type);
    expect(types).toEqual(["booking.confirmed", "booking.change_declined", "booking.change_approved"]);
  });
});

describe("the deadline runner (SchCP §5.7)", () => {
  it("a move the host never answered: declined_change with EXPIRED host_did_not_answer; a lapsed offer is dropped", async () => {
    const { world, host, caller, bookingId } = await booked(APPROVAL);
    unwrap(await approveBooking(world.deps, APPROVAL, bookingId));
    const engine = testCreateHold(world);
    const o = unwrap(
      await changeOffer(world.deps, engine, APPROVAL, caller, bookingId, {
        idempotency_key: "o",
        sequence: 0,
        start: "2030-01-08T12:00:00-05:00",
      }),
    );
    unwrap(
      await reschedule(world.deps, APPROVAL, caller, bookingId, {
        idempotency_key: "r",
        sequence: 0,
        offer_sha256: offerSha256(o.proposal.offer),
      }),
    );
    world.clock.advance(11 * MINUTE);
    expect((await expireOverdue(world.deps, APPROVAL)).movesLapsed).toEqual([bookingId]);
    const got = unwrap(await getBooking(world.deps, APPROVAL, caller, bookingId));
    expect(got.booking).toMatchObject({ sequence: 0, status: "confirmed" });
    expect(got.booking.declined_change?.refusal).toMatchObject({
      code: "EXPIRED",
      reason: "host_did_not_answer",
    });
    const events = await webhooks(world, host);
    expect(events.map((e) => e.type)).toEqual(["booking.confirmed", "booking.change_declined"]);
    expect(events[1]?.refusal).toEqual(got.booking.declined_change?.refusal);

    // Asking again clears declined_change; leaving the offer to lapse drops it.
    unwrap(
      await changeOffer(world.deps, engine, APPROVAL, caller, bookingId, {
        idempotency_key: "o2",
        sequence: 0,
        start: "2030-01-08T13:00:00-05:00",
      }),
    );
    world.clock.advance(11 * MINUTE);
    expect((await expireOverdue(world.deps, APPROVAL)).offersDropped).toEqual([bookingId]);
    const after = unwrap(await getBooking(world.deps, APPROVAL, caller, bookingId));
    expect(after.booking.proposal).toBeUndefined();
    expect(after.booking.declined_change).toBeUndefined();
  });
});

describe("operator: list", () => {
  it("lists the host's bookings newest first", async () => {
    const { world, host, bookingId } = await booked();
    const caller = await callerFor(world, newParty());
    world.clock.advance(MINUTE);
    const h2 = await placeTestHold(world, host, caller, { start: SLOT + 3 * HOUR });
    const b2 = unwrap(
      await confirmHold(world.deps, INSTANT, caller, h2.record.holdId, {
        idempotency_key: "c2",
        offer_sha256: h2.offerSha256,
      }),
    );
    const list = unwrap(await listBookings(world.deps, INSTANT));
    expect(list.map((r) => r.bookingId)).toEqual([b2.body.booking.booking_id, bookingId]);
    expect(
      unwrap(await getBooking(world.deps, INSTANT, caller, b2.body.booking.booking_id)).booking.status,
    ).toBe("confirmed");
  });
});
