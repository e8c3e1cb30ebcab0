/**
 * The approver's message (src/booking/approval/notify.ts): who booked (the guest's name and
 * contact), what and when, and until when the link works, every time on the host's clock with
 * its zone named. The displaced-booking notice (calendar/displace-notice.ts) names its times
 * the same way.
 */
import { describe, expect, it } from "vitest";
import {
  approvalMessage,
  notifyApprover,
  type OutgoingMessage,
} from "../../../src/booking/approval/notify.js";
import { unresolvedNotice } from "../../../src/booking/calendar/displace-notice.js";

const notice = {
  hostId: "ana-studio",
  hostName: "Ana's studio",
  approver: { email: "ana@example.com" },
  bookingId: "evt_1",
  serviceName: "Consultation",
  // 10:00–10:45 in Madrid (UTC+1 in December).
  start: Date.parse("2026-12-07T09:00:00Z"),
  end: Date.parse("2026-12-07T09:45:00Z"),
  timeZone: "Europe/Madrid",
  answerBy: Date.parse("2026-12-05T06:52:00Z"),
};

describe("the approver's message", () => {
  it("names the guest and their contact, and writes every time in the host's zone, named", () => {
    const m = approvalMessage(
      {
        ...notice,
        guest: { name: "Sam Rivera", email: "sam@mail.com", phone: "+34 600 111 222" },
        partySize: 2,
      },
      "https://gw.example/approve/t",
    );
    expect(m.to).toEqual({ email: "ana@example.com" });
    expect(m.subject).toBe(
      "Booking request from Sam Rivera: Consultation, Mon, 7 Dec 2026, 10:00–10:45 (Europe/Madrid)",
    );
    expect(m.text).toContain("Guest: Sam Rivera (sam@mail.com, +34 600 111 222).");
    expect(m.text).toContain("Consultation, Mon, 7 Dec 2026, 10:00–10:45 (Europe/Madrid).");
    expect(m.text).toContain("Party of 2.");
    expect(m.text).toContain("Approve or decline: https://gw.example/approve/t");
    expect(m.text).toContain("Answer by Sat, 5 Dec 2026, 07:52 (Europe/Madrid);");
    expect(m.text).not.toContain("Party 1");
  });

  it("says when no name or contact was given, and shows a contact without a name", () => {
    expect(approvalMessage(notice, "l").text).toContain("Guest: no name or contact was given.");
    expect(approvalMessage(notice, "l").subject).toMatch(/^Booking request: Consultation, /);
    expect(approvalMessage({ ...notice, guest: { email: "x@mail.com" } }, "l").text).toContain(
      "Guest: x@mail.com.",
    );
  });

  it("is what notifyApprover sends, with the signed link", async () => {
    const sent: OutgoingMessage[] = [];
    const { link } = await notifyApprover(
      { secret: new Uint8Array(32).fill(1), origin: "https://gw.example", send: (m) => sent.push(m) },
      { ...notice, guest: { name: "Sam Rivera", phone: "+34 600 111 222" } },
    );
    expect(link).toMatch(/^https:\/\/gw\.example\/approve\//);
    expect(sent).toEqual([
      approvalMessage({ ...notice, guest: { name: "Sam Rivera", phone: "+34 600 111 222" } }, link),
    ]);
  });

  it("the displaced-booking notice names its zone and the guest", () => {
    const m = unresolvedNotice({
      hostId: "ana-studio",
      hostName: "Ana's studio",
      zone: "Europe/Madrid",
      bookingId: "b_1",
      serviceName: "Consultation",
      start: notice.start,
      end: notice.end,
      resourceId: "me",
      reason: "no_free_time",
      guest: { name: "Sam Rivera", email: "sam@mail.com" },
    });
    expect(m.subject).toBe("Calendar conflict: Consultation, Mon, 7 Dec 2026, 10:00–10:45 (Europe/Madrid)");
    expect(m.text).toContain("Booking b_1, for Sam Rivera (sam@mail.com).");
  });
});
