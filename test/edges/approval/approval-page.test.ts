/**
 * The approval page's words (src/edges/approval/approval-page.ts): the guest first, every
 * value escaped, every time on the host's clock with its zone named, and a page that says
 * plainly when the guest gave no name or contact.
 */
import { describe, expect, it } from "vitest";
import {
  approvalOutcomePage,
  approvalQuestionPage,
  type ApprovalView,
} from "../../../src/edges/approval/approval-page.js";

const view: ApprovalView = {
  hostName: "Lucía <fisio>",
  bookingId: "b_1",
  serviceName: "Consulta",
  start: Date.parse("2026-12-07T09:00:00Z"),
  end: Date.parse("2026-12-07T09:30:00Z"),
  timeZone: "Europe/Madrid",
  partySize: 3,
  guest: { name: "Sam <b>Rivera</b>", phone: "+34 600 111 222" },
  status: "pending_host",
  answerBy: Date.parse("2026-12-07T08:52:00Z"),
};

describe("the approval page", () => {
  it("asks about the guest by name, escaped, with their contact and zone-named times", () => {
    const html = approvalQuestionPage(view);
    expect(html).toContain("<h1>Sam &lt;b&gt;Rivera&lt;/b&gt; asks for a booking</h1>");
    expect(html).not.toContain("<b>Rivera");
    expect(html).toContain("<p>Lucía &lt;fisio&gt;</p>");
    expect(html).toContain("<dt>Contact</dt><dd>+34 600 111 222</dd>");
    expect(html).toContain("<dt>When</dt><dd>Mon, 7 Dec 2026, 10:00–10:30 (Europe/Madrid)</dd>");
    expect(html).toContain("<dt>Party</dt><dd>3 people</dd>");
    expect(html).toContain("If you do not answer by Mon, 7 Dec 2026, 09:52 (Europe/Madrid),");
  });

  it("says when no name or contact was given; the outcome page shows the same details", () => {
    const { guest: _g, ...anonymous } = view;
    const html = approvalQuestionPage(anonymous);
    expect(html).toContain("<h1>A booking is waiting for you</h1>");
    expect(html).toContain("<dt>Guest</dt><dd>No name was given</dd>");
    expect(html).toContain("<dt>Contact</dt><dd>No contact was given</dd>");
    const done = approvalOutcomePage({ ...view, status: "confirmed" }, "Booking approved");
    expect(done).toContain("<dt>Guest</dt><dd>Sam &lt;b&gt;Rivera&lt;/b&gt;</dd>");
    expect(done).toContain("The booking is confirmed.");
  });
});
