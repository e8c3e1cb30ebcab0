/**
 * A meeting member's event on a calendar host (SchCP §5.12 "Nothing is confirmed on any
 * calendar until every member has said yes"; host-connector.ts): written TENTATIVE even where
 * the calendar said yes at once (the organizer's own, an instant business), and the host is
 * asked for its approval only where it approves the booking (`tentative`). The commit's
 * setStatus("confirmed") rewrites it confirmed; an ordinary instant booking stays confirmed.
 */
import { describe, expect, it } from "vitest";
import {
  calendarHostConnector,
  type CalendarHostSetup,
} from "../../../src/booking/calendar/host-connector.js";
import { MemoryCalendarStateStore } from "../../../src/booking/calendar/state.js";
import { unitsFor } from "../../../src/booking/calendar/units.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { MemoryCalendar } from "./support/memory-calendar.js";

const H = 3_600_000;
const start = Date.parse("2026-12-08T10:00:00+01:00");

const setup: CalendarHostSetup = {
  plan: {
    hostId: "noor",
    timezone: "Europe/Madrid",
    units: unitsFor({ resourceType: "person", units: 1 }),
    calendars: [{ calendarId: "main" }],
    horizonMs: 31 * 24 * H,
  },
  writeCalendarId: "main",
  organization: { id: "noor", name: "Noor", timezone: "Europe/Madrid" },
  services: [
    { id: "coffee", name: "Coffee", duration: H, bufferAfterMs: 0, requires: [{ resourceType: "person" }] },
  ],
  hours: [{ day: 2, open: "08:00", close: "20:00" }],
};

function host() {
  const calendar = new MemoryCalendar();
  const asked: string[] = [];
  const connector = calendarHostConnector(calendar.connector(), setup, {
    store: new MemoryHoldStore(),
    state: new MemoryCalendarStateStore(),
    clock: { now: () => start - 24 * H },
    onTentative: (e) => asked.push(e.eventId),
  });
  return { calendar, connector, asked };
}

const create = (key: string, extra: { tentative: boolean; meeting?: boolean }) => ({
  idempotencyKey: key,
  serviceId: "coffee",
  start,
  end: start + H,
  resourceIds: ["person-1"],
  ...extra,
});

describe("a meeting member's event on a calendar (SchCP §5.12)", () => {
  it("an answered-at-once meeting booking is written tentative, nobody is asked, and the commit confirms it", async () => {
    const { calendar, connector, asked } = host();
    const made = await connector.bookings.create(create("noor:h_1", { tentative: false, meeting: true }));
    if (!made.ok) throw new Error(made.error.message);
    expect(made.value.status).toBe("tentative");
    expect(calendar.writes.at(-1)).toMatchObject({ status: "tentative", transparency: "opaque" });
    expect(calendar.writes.at(-1)?.description).toContain("tentative until every member has said yes");
    expect(asked).toEqual([]);
    const committed = await connector.bookings.setStatus(made.value.upstreamId, "confirmed");
    expect(committed.ok && committed.value.status).toBe("confirmed");
    expect(calendar.writes.at(-1)).toMatchObject({ status: "confirmed" });
  });

  it("a meeting booking the person must answer is tentative and the person is asked, as any they approve", async () => {
    const { connector, asked } = host();
    const made = await connector.bookings.create(create("noor:h_2", { tentative: true, meeting: true }));
    expect(made.ok && made.value.status).toBe("tentative");
    expect(asked).toHaveLength(1);
  });

  it("an ordinary instant booking is still written confirmed", async () => {
    const { connector, asked } = host();
    const made = await connector.bookings.create(create("noor:h_3", { tentative: false }));
    expect(made.ok && made.value.status).toBe("confirmed");
    expect(asked).toEqual([]);
  });
});
