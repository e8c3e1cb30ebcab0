/**
 * The runtime's wiring of displacement (SchCP §5.8): a calendar host (a local
 * calendar directory) synced by the gateway runtime, a booking made through the core, then an
 * event written in the calendar over it. The sync's outcome for the booking reaches the
 * operator API (GET /operator/v0/{host}/calendar), the logs, and the host's approver through
 * the host messenger (the data dir's message file, as in the embedded default).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseHostsConfig } from "../../../src/booking/hosts/parse-config.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { callerFor, newParty, type World } from "../../booking/bookings/world.js";
import { TestClock } from "../support/gateway.js";

const HOST = "ana-studio";

const event = (uid: string, from: string, to: string) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//test//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20261001T000000Z",
    `DTSTART;TZID=America/Toronto:${from}`,
    `DTEND;TZID=America/Toronto:${to}`,
    "SUMMARY:Dentist",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-displace-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a calendar sync displaces what it must, and says so (SchCP §5.8)", () => {
  it("a booking the calendar now overlaps, with nowhere to move: unresolved in the operator API, the logs and a host message", async () => {
    const calendarDir = join(dir, "calendar");
    mkdirSync(calendarDir);
    const parsed = parseHostsConfig({
      hosts: [
        {
          id: HOST,
          name: "Ana's studio",
          kind: "person",
          owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
          timezone: "America/Toronto",
          connector: { type: "ics-dir", settings: { path: calendarDir } },
          calendar: {
            capacity: "me",
            hours: [1, 2, 3, 4, 5].map((day) => ({ day, open: "09:00", close: "17:00" })),
            services: [{ id: "consult", name: "Consultation", duration: "PT30M" }],
            granularity: "PT30M",
            approver: { email: "ana@example.com" },
          },
        },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const clock = new TestClock();
    const logged: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      logged.push({ level, message, ...(fields !== undefined && { fields }) });
    const runtime = await createGatewayRuntime({
      hosts: parsed.value,
      publicOrigin: "https://gateway.test",
      dataDir: dir,
      workers: false,
      clock,
      logger: { info: log("info"), warn: log("warn"), error: log("error") },
    });
    try {
      expect(await runtime.syncCalendarNow(HOST)).toBe(true);
      // A guest asks for Wednesday 10:00 (the host approves each booking: it waits for her).
      const caller = await callerFor({ clock } as unknown as World, newParty(), { hostId: HOST });
      const hold = await runtime.service.placeHold(HOST, caller, {
        idempotency_key: "h",
        service_id: "consult",
        start: "2026-10-14T10:00:00-04:00",
      });
      if (!hold.ok) throw new Error(JSON.stringify(hold.error));
      const booked = await runtime.service.confirm(HOST, caller, hold.value.hold_id, {
        idempotency_key: "c",
        offer_sha256: offerSha256(hold.value.offer),
      });
      if (!booked.ok) throw new Error(JSON.stringify(booked.error));
      const bookingId = booked.value.body.booking.booking_id;

      // Ana puts a dentist's appointment in her calendar over it.
      writeFileSync(
        join(calendarDir, "dentist.ics"),
        event("dentist@example", "20261014T093000", "20261014T110000"),
      );
      clock.advance(60_000);
      expect(await runtime.syncCalendarNow(HOST)).toBe(true);

      const app = createHttpApp(runtime);
      const res = await app.request(`/operator/v0/${HOST}/calendar`, {
        headers: { authorization: `Bearer ${runtime.operatorToken}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        calendars: Array<{ last_sync: { conflicts?: Array<Record<string, unknown>> } }>;
      };
      expect(body.calendars[0]?.last_sync.conflicts).toEqual([
        expect.objectContaining({
          booking_id: bookingId,
          resource_id: "person-1",
          outcome: "unresolved",
          reason: "awaiting_approval",
          start: "2026-10-14T14:00:00Z",
        }),
      ]);
      expect(
        logged.some(
          (l) =>
            l.level === "error" &&
            l.message.startsWith("CALENDAR CONFLICT") &&
            JSON.stringify(l.fields).includes(bookingId),
        ),
      ).toBe(true);

      await runtime.messenger.idle();
      const messages = readFileSync(join(dir, "host-messages.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { to: { email?: string }; subject: string; text: string });
      const conflict = messages.filter((m) => m.subject.startsWith("Calendar conflict"));
      expect(conflict).toHaveLength(1);
      expect(conflict[0]?.to.email).toBe("ana@example.com");
      expect(conflict[0]?.text).toContain(bookingId);

      // Syncing again tells her nothing new.
      clock.advance(60_000);
      await runtime.syncCalendarNow(HOST);
      await runtime.messenger.idle();
      const again = readFileSync(join(dir, "host-messages.jsonl"), "utf8").trim().split("\n");
      expect(again.filter((l) => l.includes("Calendar conflict"))).toHaveLength(1);
    } finally {
      await runtime.close();
    }
  });
});
