// The host's decision on a booking whose event a receptionist edited meanwhile, on a real CalDAV
// server (xandikos, test/support/xandikos.ts), through the real booking core: a guest books
// through SchCP hold + confirm at a host_approval host, the gateway writes its TENTATIVE event,
// a receptionist adds LOCATION and COMMENT with a plain PUT carrying the current ETag, and the
// host approves, declines, or lets it lapse (SchCP §6, §5.7). The rewrite meets 412 and is made
// on the event as the receptionist left it (ports/event-writer.ts; RFC 9110 §13.1.1): their
// properties stay.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaldavConnector } from "../../../src/connectors/caldav/index.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../support/xandikos.js";
import { H, displaceWorld, tue } from "./support/displace-world.js";

let server: Xandikos;
beforeAll(async () => {
  server = await startXandikos();
}, XANDIKOS_START_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
});

async function world(name: string) {
  const calendarId = await server.makeCalendar(name);
  const connector = createCaldavConnector({ serverUrl: server.serverUrl });
  const w = displaceWorld({ units: 1, main: { connector, calendarId }, confirmation: "host_approval" });
  await w.start();
  const { bookingId } = await w.book(tue("10:00"));
  const { state } = await w.bookingState(bookingId);
  expect(state.status).toBe("pending_host");
  const url = new URL(`${calendarId}${state.upstreamId}.ics`, server.serverUrl);
  const read = async () => (await fetch(url)).text();
  expect(await read()).toContain("STATUS:TENTATIVE");
  return { w, bookingId, read, url };
}

/** A receptionist's client: GET, add a location and a comment, PUT with If-Match. */
async function receptionistEdits(url: URL): Promise<void> {
  const got = await fetch(url);
  const body = (await got.text()).replace(
    "END:VEVENT",
    "LOCATION:Chair 2\\, back room\r\nCOMMENT:Guest is allergic to lavender\r\nEND:VEVENT",
  );
  const put = await fetch(url, {
    method: "PUT",
    headers: { "content-type": "text/calendar; charset=utf-8", "if-match": got.headers.get("etag") ?? "" },
    body,
  });
  await put.arrayBuffer();
  expect(put.status).toBe(204);
}

const keptEdits = (ics: string) => {
  expect(ics).toContain("LOCATION:Chair 2\\, back room");
  expect(ics).toContain("COMMENT:Guest is allergic to lavender");
};

describe("a host's decision keeps a receptionist's edits (real CalDAV, real core)", () => {
  it("approve: CONFIRMED and OPAQUE, with the receptionist's LOCATION and COMMENT", async () => {
    const { w, bookingId, read, url } = await world("approve-edited");
    await receptionistEdits(url);
    await w.sync(); // the gateway has read the receptionist's version too
    const approved = await w.service.approve(w.hostId, bookingId);
    expect(approved.ok && approved.value.status).toBe("confirmed");
    const ics = await read();
    expect(ics).toContain("STATUS:CONFIRMED");
    expect(ics).toContain("TRANSP:OPAQUE");
    keptEdits(ics);
    expect(await w.state.pendingOwn(w.hostId)).toEqual([]);
  });

  it("decline: CANCELLED and TRANSPARENT, with the edits", async () => {
    const { w, bookingId, read, url } = await world("decline-edited");
    await receptionistEdits(url);
    const declined = await w.service.decline(w.hostId, bookingId, { reason: "host_declined" });
    expect(declined.ok && declined.value.status).toBe("declined");
    const ics = await read();
    expect(ics).toContain("STATUS:CANCELLED");
    expect(ics).toContain("TRANSP:TRANSPARENT");
    keptEdits(ics);
  });

  it("lapse: the approval deadline passes; CANCELLED and TRANSPARENT, with the edits", async () => {
    const { w, read, url } = await world("lapse-edited");
    await receptionistEdits(url);
    w.clock.advance(3 * H);
    await w.service.expireOverdue(w.hostId);
    const ics = await read();
    expect(ics).toContain("STATUS:CANCELLED");
    expect(ics).toContain("TRANSP:TRANSPARENT");
    keptEdits(ics);
  });
});
