/**
 * Displaced bookings on a calendar host (SchCP §10 "A sync that shows a confirmed
 * booking's time busy displaces it", §5.8 "Displaced bookings"): another free unit when the
 * guest did not choose one; else a host change offer of the nearest time, until the booking
 * would have started, which the guest hears as booking.change_proposed; else unresolved and
 * reported to the host. Driven through the real booking core with the in-memory store.
 */
import { describe, expect, it } from "vitest";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { HOOK, MIN, busy, displaceWorld, tue } from "./support/displace-world.js";

const iso = (t: number) => new Date(t).toISOString();

describe("calendar displacement (SchCP §5.8)", () => {
  it("moves a booking whose chair the guest did not choose to the other free chair, same time, nothing sent", async () => {
    const w = displaceWorld({ mapped: ["chair-1"] });
    await w.start();
    const { bookingId } = await w.book(tue("10:00"));
    const before = await w.bookingState(bookingId);
    expect(before.state.resourceIds).toEqual(["chair-1"]);
    const sent = w.outbox.events.length;

    // The host writes a walk-in into chair 1's own calendar over the booking.
    w.calendar("chair-1-cal").put(busy("walk-in", "09:30", "11:30"));
    const report = await w.sync();

    expect(report.conflicts).toEqual([
      {
        resourceId: "chair-1",
        start: tue("10:00"),
        end: tue("11:00"),
        bookingId,
        outcome: "moved",
        movedTo: "chair-2",
        since: w.clock.now(),
      },
    ]);
    const after = await w.bookingState(bookingId);
    expect(after.record.allocations.map((a) => a.resourceId)).toEqual(["chair-2"]);
    expect(after.state.resourceIds).toEqual(["chair-2"]);
    // Nothing the guest agreed to changed: same time, same sequence, same contract, no webhook.
    expect(after.state).toMatchObject({ start: tue("10:00"), sequence: before.state.sequence });
    expect(after.state.contract).toEqual(before.state.contract);
    expect(w.outbox.events.length).toBe(sent);
    // The gateway's own event keeps the booking's unit; it names none, so nothing is rewritten.
    const own = await w.state.getOwn(w.hostId, after.state.upstreamId);
    expect(own?.resourceIds).toEqual(["chair-2"]);
    // Chair 1 is free again for the gateway's own allocation, and busy for the calendar.
    expect(await w.doubleBooked()).toEqual([]);
    // The next sync finds nothing to displace.
    expect((await w.sync()).conflicts).toBeUndefined();
    expect(w.told).toEqual([]);
  });

  it("a chosen chair is kept: the host offers the nearest free time on it, and the guest hears booking.change_proposed", async () => {
    const w = displaceWorld({ mapped: ["chair-1"] });
    await w.start();
    const { bookingId } = await w.book(tue("10:00"), "chair-1");
    w.calendar("chair-1-cal").put(busy("walk-in", "09:30", "11:30"));
    const report = await w.sync();

    // Chair 1 is busy 09:30–11:30; a 45-minute cut with its 15-minute buffer fits next at 11:30
    // (09:00 would run into the walk-in), although chair 2 is free at 10:00: the guest chose 1.
    const [conflict] = report.conflicts ?? [];
    expect(conflict).toMatchObject({ bookingId, outcome: "change_offered" });
    expect(conflict?.proposal?.start).toBe(tue("11:30"));
    // The offer lasts at most until the booking would have started (§5.8).
    expect(conflict?.proposal?.expiresAt).toBeLessThanOrEqual(tue("10:00"));

    const { state } = await w.bookingState(bookingId);
    expect(state.start).toBe(tue("10:00"));
    expect(state.proposal).toMatchObject({ by: "host", start: tue("11:30"), resourceIds: ["chair-1"] });
    const proposed = w.outbox.events.filter((e) => e.event.type === "booking.change_proposed");
    expect(proposed).toHaveLength(1);
    expect(proposed[0]?.callbackUrl).toBe(HOOK);
    const wire = proposed[0]?.event as { booking: { proposal?: { by: string; start: string } } };
    expect(wire.booking.proposal).toMatchObject({ by: "host", start: "2026-12-08T11:30:00+01:00" });
    expect(w.told).toEqual([]);
  });

  it("the offer stays on the chosen chair even when another chair is free sooner", async () => {
    const w = displaceWorld({ mapped: ["chair-1"] });
    await w.start();
    const { bookingId } = await w.book(tue("10:00"), "chair-1");
    // Another guest has chair 1 at 11:30, the nearest time the calendar leaves free on it.
    await w.book(tue("11:30"), "chair-1");
    w.calendar("chair-1-cal").put(busy("walk-in", "09:30", "11:30"));
    const [conflict] = (await w.sync()).conflicts ?? [];
    // 11:30 is taken on chair 1 (chair 2 is free then, but not the guest's choice); 12:00 would
    // overlap that booking's buffer; 12:30 is the nearest.
    expect(conflict?.proposal?.start).toBe(tue("12:30"));
    expect((await w.bookingState(bookingId)).state.proposal?.resourceIds).toEqual(["chair-1"]);
  });

  it("a guest's own move keeps the chair it chose (§5.7 'with the same barber')", async () => {
    const w = displaceWorld();
    await w.start();
    const { bookingId, caller } = await w.book(tue("10:00"), "chair-2");
    const offered = await w.service.changeOffer(w.hostId, caller, bookingId, {
      idempotency_key: "move",
      sequence: 0,
      start: iso(tue("14:00")),
    });
    expect(offered.ok).toBe(true);
    expect((await w.bookingState(bookingId)).state.proposal).toMatchObject({
      start: tue("14:00"),
      resourceIds: ["chair-2"],
    });
  });

  it("a repeated sync reports the open offer again and makes no second one; one the guest declines is not offered again", async () => {
    const w = displaceWorld({ mapped: ["chair-1"] });
    await w.start();
    const { bookingId, caller } = await w.book(tue("10:00"), "chair-1");
    w.calendar("chair-1-cal").put(busy("walk-in", "09:30", "11:30"));
    const first = (await w.sync()).conflicts?.[0];
    w.clock.advance(5 * MIN);
    const second = (await w.sync()).conflicts?.[0];
    expect(second).toEqual(first);
    const proposals = () => w.outbox.events.filter((e) => e.event.type === "booking.change_proposed");
    expect(proposals()).toHaveLength(1);

    // The guest says no (§5.8 proposal-response).
    const { state } = await w.bookingState(bookingId);
    const declined = await w.service.proposalResponse(w.hostId, caller, bookingId, {
      idempotency_key: "no",
      proposal_id: state.proposal?.proposalId ?? "",
      accept: false,
      sequence: state.sequence,
    });
    expect(declined.ok).toBe(true);
    w.clock.advance(5 * MIN);
    const third = (await w.sync()).conflicts?.[0];
    expect(third).toMatchObject({ bookingId, outcome: "unresolved", reason: "offer_not_accepted" });
    expect(third?.since).toBe(first?.since);
    expect(proposals()).toHaveLength(1);
    expect(w.told).toHaveLength(1);
    w.clock.advance(5 * MIN);
    expect((await w.sync()).conflicts?.[0]).toMatchObject({ outcome: "unresolved" });
    expect(w.told).toHaveLength(1);
  });

  it("accepting the host's offer moves the booking, and the conflict is gone", async () => {
    const w = displaceWorld({ mapped: ["chair-1"] });
    await w.start();
    const { bookingId, caller } = await w.book(tue("10:00"), "chair-1");
    w.calendar("chair-1-cal").put(busy("walk-in", "09:30", "11:30"));
    await w.sync();
    const proposed = w.outbox.events.find((e) => e.event.type === "booking.change_proposed")?.event as {
      booking: { proposal: { proposal_id: string; offer: string }; sequence: number };
    };
    const accepted = await w.service.proposalResponse(w.hostId, caller, bookingId, {
      idempotency_key: "yes",
      proposal_id: proposed.booking.proposal.proposal_id,
      accept: true,
      sequence: proposed.booking.sequence,
      offer_sha256: offerSha256(proposed.booking.proposal.offer),
    });
    expect(accepted.ok).toBe(true);
    const { state } = await w.bookingState(bookingId);
    expect(state).toMatchObject({ start: tue("11:30"), resourceIds: ["chair-1"] });
    expect((await w.sync()).conflicts).toBeUndefined();
  });

  it("no free unit and no free time: unresolved, reported to the host once, and shown in the report", async () => {
    const w = displaceWorld({ mapped: ["chair-1", "chair-2"] });
    await w.start();
    const { bookingId } = await w.book(tue("10:00"));
    // Both chairs taken from now to past the horizon, each in its own calendar.
    for (const unit of ["chair-1", "chair-2"])
      w.calendar(`${unit}-cal`).put({
        uid: `away-${unit}@example`,
        eventId: `away-${unit}`,
        start: { dateTime: "2026-12-07T00:00:00", zone: "Europe/Madrid" },
        end: { dateTime: "2027-01-31T00:00:00", zone: "Europe/Madrid" },
        status: "confirmed",
        transparency: "opaque",
      });
    const report = await w.sync();
    expect(report.conflicts).toEqual([
      expect.objectContaining({ bookingId, outcome: "unresolved", reason: "no_free_time" }),
    ]);
    expect(w.told).toHaveLength(1);
    expect(w.told[0]?.hostId).toBe(w.hostId);
    expect(w.told[0]?.subject).toContain("Haircut");
    expect(w.told[0]?.text).toContain(bookingId);
    expect((await w.bookingState(bookingId)).state.proposal).toBeUndefined();
    expect(w.outbox.events.filter((e) => e.event.type === "booking.change_proposed")).toEqual([]);

    w.clock.advance(5 * MIN);
    expect((await w.sync()).conflicts?.[0]).toMatchObject({ outcome: "unresolved", reason: "no_free_time" });
    expect(w.told).toHaveLength(1);

    // The host frees one chair: the next sync moves the booking there, with nobody's answer.
    w.calendar("chair-2-cal").remove("away-chair-2");
    w.clock.advance(5 * MIN);
    expect((await w.sync()).conflicts?.[0]).toMatchObject({
      bookingId,
      outcome: "moved",
      movedTo: "chair-2",
    });
    expect(w.told).toHaveLength(1);
  });

  it("never two bookings on one unit's time: two displaced bookings, one free chair", async () => {
    const w = displaceWorld({ units: 3, mapped: ["chair-1", "chair-2"] });
    await w.start();
    const a = await w.book(tue("10:00"));
    const b = await w.book(tue("10:00"));
    expect((await w.bookingState(a.bookingId)).state.resourceIds).toEqual(["chair-1"]);
    expect((await w.bookingState(b.bookingId)).state.resourceIds).toEqual(["chair-2"]);
    w.calendar("chair-1-cal").put(busy("x1", "10:00", "11:00"));
    w.calendar("chair-2-cal").put(busy("x2", "10:00", "11:00"));
    const report = await w.sync();
    const outcomes = new Map((report.conflicts ?? []).map((c) => [c.bookingId, c]));
    // The first (by unit) takes chair 3; the other cannot, and is offered the nearest time a
    // chair is free for it: 10:30 and 09:30 overlap the moved booking, 11:00 does not.
    expect(outcomes.get(a.bookingId)).toMatchObject({ outcome: "moved", movedTo: "chair-3" });
    expect(outcomes.get(b.bookingId)).toMatchObject({ outcome: "change_offered" });
    expect(outcomes.get(b.bookingId)?.proposal?.start).toBe(tue("11:00"));
    expect(await w.doubleBooked()).toEqual([]);
  });

  it("two syncs at once still never put two bookings on one chair", async () => {
    const w = displaceWorld({ units: 3, mapped: ["chair-1", "chair-2"] });
    await w.start();
    const a = await w.book(tue("10:00"));
    const b = await w.book(tue("10:00"));
    w.calendar("chair-1-cal").put(busy("x1", "10:00", "11:00"));
    w.calendar("chair-2-cal").put(busy("x2", "10:00", "11:00"));
    await Promise.all([w.sync(), w.sync()]);
    expect(await w.doubleBooked()).toEqual([]);
    const units = [
      (await w.bookingState(a.bookingId)).state.resourceIds,
      (await w.bookingState(b.bookingId)).state.resourceIds,
    ].flat();
    expect(units).toContain("chair-3");
    expect(new Set(units).size).toBe(2);
  });

  it("a hold (not yet a booking) in the way is reported as such and left alone", async () => {
    const w = displaceWorld({ mapped: ["chair-1"] });
    await w.start();
    const party = await w.book(tue("12:00"));
    // A second guest holds chair 1 at 10:00 without confirming.
    const hold = await w.service.placeHold(w.hostId, party.caller, {
      idempotency_key: "just-a-hold",
      service_id: "cut",
      start: iso(tue("10:00")),
      resource: "chair-1",
    });
    expect(hold.ok).toBe(true);
    w.calendar("chair-1-cal").put(busy("walk-in", "10:00", "11:00"));
    const report = await w.sync();
    expect(report.conflicts).toEqual([
      { resourceId: "chair-1", start: tue("10:00"), end: tue("11:00"), outcome: "hold" },
    ]);
    expect(w.told).toEqual([]);
  });
});
