// A meeting the mailbox's owner declined is free time (resource "event": `responseStatus` on the
// owner's copy is the owner's answer), even while Graph still says showAs busy.
import { describe, expect, it } from "vitest";
import { connector, fixture, graph, useNock, WINDOW } from "./support.js";

useNock();

describe("Graph: declined meetings", () => {
  it("the owner's declined meeting is transparent; an accepted one is opaque", async () => {
    graph().get("/v1.0/me/calendarView/delta").query(true).reply(200, fixture("delta-declined-meeting.json"));
    const page = await connector().calendar.sync({ calendarId: "primary", window: WINDOW });
    expect(page.ok).toBe(true);
    if (!page.ok) return;
    expect(page.value.events.map((e) => [e.eventId, e.transparency])).toEqual([
      ["AAMkAGI2TGuLAAA=declined01", "transparent"],
      ["AAMkAGI2TGuLAAA=accepted02", "opaque"],
    ]);
  });
});
