/**
 * A meeting member's booking whose time a calendar sync shows busy (SchCP §5.8 "Displaced
 * bookings", §5.12; displace-meeting.ts): before commit the calendar declines it (DECLINED
 * host_declined:calendar_busy, the host's own answer, §7.9) and the organizer hears
 * booking.declined; a confirmed meeting is reported to the host as unresolved; no host change
 * offer is made for either (§5.11, §5.12). Driven through the real booking core with the
 * in-memory store; the booking's meeting is laid on a booking made through SchCP, since only
 * the calendar's answer is under test here (the contract's checks are the SchCP edge's).
 */
import { describe, expect, it } from "vitest";
import { saveBooking } from "../../../src/booking/bookings/store.js";
import type { BookingStatus } from "../../../src/booking/bookings/state.js";
import type { StoredMeeting } from "../../../src/booking/meetings/types.js";
import { ok } from "../../../src/protocol/result.js";
import { busy, displaceWorld, tue } from "./support/displace-world.js";

const meeting = (acceptance?: string): StoredMeeting => ({
  meetingId: "mtg_1",
  revision: 1,
  contractSha256: "A".repeat(43),
  contract: "e30.e30.sig",
  organizer: "urn:schcp:principal:jwk-thumbprint:noor",
  issuedAt: tue("08:00") - 86_400_000,
  expiresAt: tue("09:00"),
  member: "urn:schcp:host:cal-studio",
  role: "business",
  memberAnswers: "person_or_rule",
  mustAccept: [],
  highestRevision: 1,
  ...(acceptance !== undefined && { acceptance }),
});

/** A booking on the chair the guest chose (so no other unit may take it), made a meeting's. */
async function meetingBooking(status: BookingStatus) {
  const w = displaceWorld({ mapped: ["chair-1"] });
  await w.start();
  const { bookingId } = await w.book(tue("10:00"), "chair-1");
  const laid = await saveBooking(
    w.deps,
    w.runtime,
    bookingId,
    (s) => ok({ ...s, status, meeting: meeting(status === "tentative" ? "acceptance" : undefined) }),
    w.clock.now(),
  );
  if (!laid.ok) throw new Error("lay the meeting");
  w.calendar("chair-1-cal").put(busy("dentist", "10:30", "11:00"));
  return { w, bookingId, before: laid.value };
}

describe("a meeting booking whose calendar turns busy (SchCP §5.8, §5.12)", () => {
  it("tentative: the calendar declines it (its own no, acceptance dropped, sequence + 1), frees the time and tells the organizer", async () => {
    const { w, bookingId, before } = await meetingBooking("tentative");
    const sent = w.outbox.events.length;
    const report = await w.sync();
    expect(report.conflicts).toEqual([
      expect.objectContaining({ bookingId, outcome: "declined", resourceId: "chair-1" }),
    ]);
    const { state, record } = await w.bookingState(bookingId);
    expect(state).toMatchObject({
      status: "declined",
      sequence: before.sequence + 1,
      refusal: {
        kind: "declined",
        reason: "host_declined:calendar_busy",
        message: "The time is no longer free in this calendar.",
      },
      // §7.9: a no is the host's own answer (this calendar is a business's).
      answer: { by: "host" },
    });
    expect(state.meeting?.acceptance).toBeUndefined();
    expect(state.proposal).toBeUndefined();
    expect(record.state).not.toBe("active");
    // The organizer hears it, and nobody is offered another time.
    const events = w.outbox.events.slice(sent).map((e) => e.event.type);
    expect(events).toEqual(["booking.declined"]);
    // The gateway's own event is cancelled on the calendar.
    expect((await w.state.getOwn(w.hostId, state.upstreamId))?.status).toBe("cancelled");
    expect(w.told).toEqual([]);
    // The next sync finds nothing to displace.
    expect((await w.sync()).conflicts).toBeUndefined();
  });

  it("pending_host: declined the same way, with no sequence bump (no yes stood)", async () => {
    const { w, bookingId, before } = await meetingBooking("pending_host");
    const [conflict] = (await w.sync()).conflicts ?? [];
    expect(conflict).toMatchObject({ bookingId, outcome: "declined" });
    const { state } = await w.bookingState(bookingId);
    expect(state).toMatchObject({
      status: "declined",
      sequence: before.sequence,
      refusal: { reason: "host_declined:calendar_busy" },
    });
    expect(state.approvalBy).toBeUndefined();
  });

  it("confirmed: left as every member agreed, reported to the host once, no change offer", async () => {
    const { w, bookingId, before } = await meetingBooking("confirmed");
    const sent = w.outbox.events.length;
    const [conflict] = (await w.sync()).conflicts ?? [];
    expect(conflict).toMatchObject({ bookingId, outcome: "unresolved", reason: "meeting_confirmed" });
    const { state } = await w.bookingState(bookingId);
    expect(state).toMatchObject({ status: "confirmed", sequence: before.sequence });
    expect(state.proposal).toBeUndefined();
    expect(w.outbox.events.length).toBe(sent);
    expect(w.told).toHaveLength(1);
    expect(w.told[0]?.text).toContain("back out");
    await w.sync();
    expect(w.told).toHaveLength(1);
  });
});
