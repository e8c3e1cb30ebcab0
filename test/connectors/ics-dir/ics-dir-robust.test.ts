/**
 * A calendar file the gateway syncs costs only its unreadable lines, never the calendar
 * (RFC 5545 §3.1 content lines): a UTF-8 byte-order mark and a line that is not a content line
 * (Apple's "X-APPLE-RADIUS=…") are left out and logged, and the rest is read — through the
 * production path (the ics-dir connector and its parse worker), as CalDAV reads resources too.
 * Inputs are public files (fixtures/ics-robustness/SOURCES.md: collective/icalendar's
 * issue_168_input.ics and bom_calendar.ics).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIcsDirConnector } from "../../../src/connectors/ics-dir/connector.js";
import { readResource } from "../../../src/connectors/caldav/vevent.js";
import { fixturePath } from "../../support/fixtures.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ics-dir-robust-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const window = { start: Date.parse("2015-01-01T00:00:00Z"), end: Date.parse("2016-01-01T00:00:00Z") };

describe("a calendar file with lines that are not content lines, or a byte-order mark", () => {
  it("is read whole but for those lines, which are logged", async () => {
    copyFileSync(fixturePath("ics-robustness/issue_168_input.ics"), join(dir, "apple.ics"));
    copyFileSync(fixturePath("ics-robustness/bom_calendar.ics"), join(dir, "bom.ics"));
    const warnings: Array<{ message: string; fields?: Readonly<Record<string, unknown>> }> = [];
    const c = createIcsDirConnector(
      { path: dir },
      { logger: { warn: (message, fields) => void warnings.push({ message, ...(fields && { fields }) }) } },
    );
    const got = await c.calendar.sync({ calendarId: "local", window });
    expect(got.ok).toBe(true);
    const events = got.ok ? got.value.events : [];
    expect(events.map((e) => e.uid)).toEqual(["123"]);
    expect(events[0]).toMatchObject({ start: { dateTime: "2015-09-05T09:00:00Z" } });
    expect(JSON.stringify(warnings)).toContain("X-APPLE-RADIUS=49.91307046514149");
  });

  it("a resource starting with a byte-order mark reads its events (CalDAV's reader)", () => {
    const text = `\uFEFF${readFileSync(fixturePath("ics-robustness/issue_168_input.ics"), "utf8")}`;
    const read = readResource(text, "apple", undefined);
    expect(read.ok && read.value.events.map((e) => e.uid)).toEqual(["123"]);
    expect(read.ok && read.value.skipped).toEqual([{ line: 6, text: "X-APPLE-RADIUS=49.91307046514149" }]);
  });

  it("a file with a byte-order mark and an event is read", async () => {
    const weekly = readFileSync(fixturePath("recurrence/each_week_but_one_deleted.ics"), "utf8");
    writeFileSync(join(dir, "weekly.ics"), `\uFEFF${weekly}`);
    const got = await createIcsDirConnector({ path: dir }).calendar.sync({
      calendarId: "local",
      window: { start: Date.parse("2019-01-01T00:00:00Z"), end: Date.parse("2021-01-01T00:00:00Z") },
    });
    expect(got.ok && got.value.events.length).toBeGreaterThan(0);
  });
});

describe("SEQUENCE reaches the engine from the production path", () => {
  it("two copies of one series under one UID: the higher SEQUENCE is read as such (RFC 5545 §3.8.7.4)", async () => {
    // python-recurring-ical-events' issue_148_ignored_exdate (fixtures/ics-robustness/SOURCES.md).
    copyFileSync(fixturePath("ics-robustness/issue_148_ignored_exdate.ics"), join(dir, "copies.ics"));
    const got = await createIcsDirConnector({ path: dir }).calendar.sync({
      calendarId: "local",
      window: { start: Date.parse("2000-01-01T00:00:00Z"), end: Date.parse("2030-01-01T00:00:00Z") },
    });
    expect(got.ok).toBe(true);
    const sequences = got.ok ? got.value.events.map((e) => e.sequence) : [];
    expect(sequences.some((s) => typeof s === "number" && s > 0)).toBe(true);
  });
});
