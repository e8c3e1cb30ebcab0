import { copyFileSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIcsDirConnector } from "../../../src/connectors/ics-dir/connector.js";
import { fixturePath } from "../../support/fixtures.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ics-dir-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const window = { start: Date.parse("2019-01-01T00:00:00Z"), end: Date.parse("2021-01-01T00:00:00Z") };
const write = {
  calendarId: "local",
  eventId: "bgabc",
  start: Date.parse("2026-12-07T09:00:00Z"),
  end: Date.parse("2026-12-07T09:45:00Z"),
  zone: "Europe/Madrid",
  summary: "Haircut — Jo",
  status: "tentative" as const,
  transparency: "opaque" as const,
};

describe("a local calendar directory (the embedded default's calendar)", () => {
  it("reads every file's events with their recurrence data, then only what changed", async () => {
    copyFileSync(fixturePath("recurrence/issue_18_cancel_status.ics"), join(dir, "cancel.ics"));
    copyFileSync(fixturePath("recurrence/each_week_but_one_deleted.ics"), join(dir, "weekly.ics"));
    const c = createIcsDirConnector({ path: dir });
    const full = await c.calendar.sync({ calendarId: "local", window });
    expect(full.ok).toBe(true);
    if (!full.ok) return;
    const ids = [...new Set(full.value.events.map((e) => e.eventId))].sort();
    expect(ids).toEqual(["cancel", "weekly"]);
    expect(
      full.value.events.some(
        (e) => e.eventId === "cancel" && e.status === "cancelled" && e.recurrenceId !== undefined,
      ),
    ).toBe(true);
    expect(
      full.value.events.some(
        (e) => e.eventId === "weekly" && e.rrule !== undefined && (e.exdate?.length ?? 0) > 0,
      ),
    ).toBe(true);

    unlinkSync(join(dir, "cancel.ics"));
    writeFileSync(
      join(dir, "weekly.ics"),
      (await import("node:fs")).readFileSync(fixturePath("recurrence/event_10_times.ics")),
    );
    const next = await c.calendar.sync({
      calendarId: "local",
      window,
      ...(full.value.nextCursor !== undefined && { cursor: full.value.nextCursor }),
    });
    expect(next.ok && next.value.removed).toEqual(["cancel"]);
    expect(next.ok && [...new Set(next.value.events.map((e) => e.eventId))]).toEqual(["weekly"]);
    const quiet = await c.calendar.sync({
      calendarId: "local",
      window,
      ...(next.ok && next.value.nextCursor !== undefined && { cursor: next.value.nextCursor }),
    });
    expect(quiet.ok && quiet.value.events).toEqual([]);
  });

  it("a cursor it did not write is cursor_expired; an unreadable file is reported, never skipped", async () => {
    const c = createIcsDirConnector({ path: dir });
    const bad = await c.calendar.sync({ calendarId: "local", window, cursor: "%%%" });
    expect(!bad.ok && bad.error.code).toBe("cursor_expired");
    writeFileSync(join(dir, "junk.ics"), "not a calendar");
    const r = await c.calendar.sync({ calendarId: "local", window });
    expect(!r.ok && r.error).toMatchObject({ code: "unavailable" });
  });

  it("writes: create (a retry answers the stored file), update with If-Match, stale version, delete", async () => {
    const c = createIcsDirConnector({ path: dir });
    const made = await c.events.create(write);
    const again = await c.events.create({ ...write, summary: "different" });
    expect(made.ok && again.ok && again.value.etag).toBe(made.ok && made.value.etag);
    const etag = made.ok ? made.value.etag : "";
    const updated = await c.events.update({ ...write, status: "confirmed" }, etag);
    expect(updated.ok).toBe(true);
    const stale = await c.events.update({ ...write, status: "cancelled" }, etag);
    expect(!stale.ok && stale.error.code).toBe("precondition_failed");
    const read = await c.calendar.sync({
      calendarId: "local",
      window: { start: write.start - 1, end: write.end + 1 },
    });
    expect(read.ok && read.value.events.map((e) => [e.eventId, e.status])).toEqual([["bgabc", "confirmed"]]);
    const gone = await c.events.delete("local", "bgabc", updated.ok ? updated.value.etag : "");
    expect(gone.ok && gone.value.deleted).toBe(true);
    const twice = await c.events.delete("local", "bgabc");
    expect(twice.ok && twice.value.deleted).toBe(false);
  });

  it("refuses an event id that could name another path", async () => {
    const c = createIcsDirConnector({ path: dir });
    const r = await c.events.create({ ...write, eventId: "../escape" });
    expect(!r.ok && r.error.code).toBe("invalid_request");
  });
});
