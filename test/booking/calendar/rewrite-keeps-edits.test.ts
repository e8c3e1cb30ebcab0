// A booking's event on Google and Microsoft 365 calendars that someone else edits before the
// host decides (a receptionist adds a location and a note): the approval, decline or move
// changes only what the booking owns, on the version the receptionist left, and their edits
// stay (ports/event-writer.ts; RFC 9110 §13.1.1). The calendars are the loopback API fakes of
// test/support/oauth-standins/api-fakes.ts (GET/PATCH with If-Match as Google's and Graph's
// references describe), reached by the real connectors through a rewriting fetch.
import { afterEach, describe, expect, it } from "vitest";
import {
  calendarHostConnector,
  type CalendarHostSetup,
} from "../../../src/booking/calendar/host-connector.js";
import { MemoryCalendarStateStore } from "../../../src/booking/calendar/state.js";
import { unitsFor } from "../../../src/booking/calendar/units.js";
import { createGoogleCalendarConnector, googleEventId } from "../../../src/connectors/google/index.js";
import { createMicrosoftCalendarConnector } from "../../../src/connectors/microsoft/index.js";
import type { CalendarConnector } from "../../../src/connectors/port.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import {
  originMap,
  rewritingFetch,
  startGoogleCalendarFake,
  startGraphCalendarFake,
  type CalendarApiFake,
} from "../../support/oauth-standins/index.js";

const H = 3_600_000;
const MIN = 60_000;
const TOKEN = "test-access-token";
const day = Date.parse("2026-12-03T00:00:00+01:00");
const start = day + 9 * H;

const setupFor = (calendarId: string): CalendarHostSetup => ({
  plan: {
    hostId: "cal-host",
    timezone: "Europe/Madrid",
    units: unitsFor({ resourceType: "chair", units: 1 }),
    calendars: [{ calendarId }],
    horizonMs: 31 * 24 * H,
  },
  writeCalendarId: calendarId,
  organization: { id: "cal-host", name: "Ana's studio", timezone: "Europe/Madrid" },
  services: [
    {
      id: "cut",
      name: "Haircut",
      duration: 45 * MIN,
      bufferAfterMs: 0,
      requires: [{ resourceType: "chair" }],
    },
  ],
  hours: [{ day: 4, open: "09:00", close: "12:00" }],
});

let fake: CalendarApiFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A tentative booking written by the gateway, and the fake calendar it landed in. */
async function booked(calendar: CalendarConnector, calendarId: string) {
  const state = new MemoryCalendarStateStore();
  const host = calendarHostConnector(calendar, setupFor(calendarId), {
    store: new MemoryHoldStore(),
    state,
    clock: { now: () => day + 8 * H },
  });
  const made = await host.bookings.create({
    idempotencyKey: "cal-host:h_1",
    serviceId: "cut",
    start,
    end: start + 45 * MIN,
    resourceIds: ["chair-1"],
    customer: { name: "Jo" },
    tentative: true,
  });
  if (!made.ok) throw new Error(`create: ${made.error.message}`);
  return { host, state, id: made.value.upstreamId };
}

/** The receptionist's edit, through the same API with the event's current version (If-Match). */
async function edit(url: string, version: string, body: Record<string, unknown>): Promise<void> {
  const answer = await fetch(url, {
    method: "PATCH",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "if-match": version },
    body: JSON.stringify(body),
  });
  await answer.arrayBuffer();
  expect(answer.status).toBe(200);
}

describe("Google: someone else's edits survive the host's decision", () => {
  const connect = async () => {
    fake = await startGoogleCalendarFake({ grants: [{ accessToken: TOKEN } as never] });
    return createGoogleCalendarConnector(
      {},
      { accessToken: () => Promise.resolve(TOKEN), fetch: rewritingFetch(originMap(fake)) },
    );
  };
  const stored = () => fake?.events.get("primary")?.[0] ?? {};
  const receptionist = async () => {
    const event = stored();
    await edit(
      `${fake?.origin}/calendar/v3/calendars/primary/events/${String(event["id"])}`,
      String(event["etag"]),
      { location: "Chair 2, back room", description: "Allergic to lavender. Booked online." },
    );
  };

  it("approve: confirmed and opaque, with the receptionist's location and description", async () => {
    const { host, id, state } = await booked(await connect(), "primary");
    expect(stored()).toMatchObject({ id: googleEventId(id), status: "tentative" });
    await receptionist();
    const approved = await host.bookings.setStatus(id, "confirmed");
    expect(approved.ok && approved.value.status).toBe("confirmed");
    expect(stored()).toMatchObject({
      status: "confirmed",
      transparency: "opaque",
      summary: "Haircut — Jo",
      location: "Chair 2, back room",
      description: "Allergic to lavender. Booked online.",
    });
    expect(await state.pendingOwn("cal-host")).toEqual([]);
  });

  it("decline and move: cancelled and transparent, at the new time, with the edits", async () => {
    const { host, id } = await booked(await connect(), "primary");
    await receptionist();
    const moved = await host.bookings.move(id, {
      start: start + H,
      end: start + H + 45 * MIN,
      resourceIds: ["chair-1"],
    });
    expect(moved.ok).toBe(true);
    expect(stored()).toMatchObject({
      start: { dateTime: new Date(start + H).toISOString() },
      location: "Chair 2, back room",
      description: "Allergic to lavender. Booked online.",
    });
    await receptionist(); // edits again after the move
    await host.bookings.cancel(id);
    expect(stored()).toMatchObject({
      status: "cancelled",
      transparency: "transparent",
      location: "Chair 2, back room",
      description: "Allergic to lavender. Booked online.",
    });
  });
});

describe("Microsoft 365: someone else's edits survive the host's decision", () => {
  const connect = async () => {
    fake = await startGraphCalendarFake({ grants: [{ accessToken: TOKEN } as never] });
    return createMicrosoftCalendarConnector(
      {},
      { accessToken: () => Promise.resolve(TOKEN), fetch: rewritingFetch(originMap(fake)) },
    );
  };
  const stored = () => fake?.events.get("default")?.[0] ?? {};
  const receptionist = async () => {
    const event = stored();
    await edit(`${fake?.origin}/v1.0/me/events/${String(event["id"])}`, String(event["@odata.etag"]), {
      location: { displayName: "Chair 2, back room" },
      body: { contentType: "text", content: "Allergic to lavender. Booked online." },
    });
  };

  it("approve: busy, with the receptionist's location and body", async () => {
    const { host, id, state } = await booked(await connect(), "primary");
    expect(stored()).toMatchObject({ showAs: "tentative" });
    await receptionist();
    const approved = await host.bookings.setStatus(id, "confirmed");
    expect(approved.ok && approved.value.status).toBe("confirmed");
    expect(stored()).toMatchObject({
      showAs: "busy",
      subject: "Haircut — Jo",
      location: { displayName: "Chair 2, back room" },
      body: { content: "Allergic to lavender. Booked online." },
    });
    expect(await state.pendingOwn("cal-host")).toEqual([]);
  });

  it("decline: free, with the edits", async () => {
    const { host, id } = await booked(await connect(), "primary");
    await receptionist();
    await host.bookings.setStatus(id, "cancelled");
    expect(stored()).toMatchObject({
      showAs: "free",
      location: { displayName: "Chair 2, back room" },
      body: { content: "Allergic to lavender. Booked online." },
    });
  });
});
