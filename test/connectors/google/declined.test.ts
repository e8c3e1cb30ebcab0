// An invitation the calendar's owner declined is free time (Events resource `attendees[].self`
// with responseStatus "declined"); one they accepted stays busy, whoever else declined it.
import { describe, expect, it } from "vitest";
import { connector, fixture, google, useNock, WINDOW } from "./support.js";

useNock();

describe("Google: declined invitations", () => {
  it("the owner's declined invitation is transparent; an accepted one is opaque", async () => {
    google()
      .get("/calendar/v3/calendars/primary/events")
      .query(true)
      .reply(200, fixture("events-list-declined-invitation.json"));
    const page = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(page.ok).toBe(true);
    if (!page.ok) return;
    expect(page.value.events.map((e) => [e.eventId, e.transparency])).toEqual([
      ["declined0invite0a1", "transparent"],
      ["accepted0invite0b2", "opaque"],
    ]);
  });
});
