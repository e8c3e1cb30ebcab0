import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIcsDirConnector } from "../../../src/connectors/ics-dir/connector.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ics-dir-meta-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const window = { start: Date.parse("2026-12-01T00:00:00Z"), end: Date.parse("2027-01-01T00:00:00Z") };
const ics = (uid: string, hour: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20261207T${hour}0000Z\r\nDTEND:20261207T${hour}3000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
const old = new Date("2026-01-01T00:00:00Z");
function put(name: string, text: string) {
  writeFileSync(join(dir, name), text);
  // Settled files: their metadata is trusted (a file written this very second is read again).
  utimesSync(join(dir, name), old, old);
}

async function sync(c: ReturnType<typeof createIcsDirConnector>, cursor?: string) {
  const r = await c.calendar.sync({ calendarId: "local", window, ...(cursor !== undefined && { cursor }) });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("ics-dir decides what changed from file metadata before reading contents", () => {
  it("a file whose size, mtime and inode are unchanged is not read again", async () => {
    put("a.ics", ics("a", "09"));
    put("b.ics", ics("b", "10"));
    const c = createIcsDirConnector({ path: dir });
    const first = await sync(c);
    // New bytes under the same size, mtime and inode: only a connector that reads it sees them.
    put("a.ics", ics("a", "08"));
    put("b.ics", ics("b", "11"));
    const edited = new Date("2026-03-01T00:00:00Z");
    utimesSync(join(dir, "b.ics"), edited, edited);
    const next = await sync(c, first.nextCursor);
    expect(next.events.map((e) => e.eventId)).toEqual(["b"]);
    expect(next.removed).toEqual([]);
  });

  it("a changed mtime with the same content is no change; the same size with new content is", async () => {
    put("a.ics", ics("a", "09"));
    const c = createIcsDirConnector({ path: dir });
    const first = await sync(c);
    const touched = new Date("2026-02-01T00:00:00Z");
    utimesSync(join(dir, "a.ics"), touched, touched);
    const same = await sync(c, first.nextCursor);
    expect(same.events).toEqual([]);
    put("a.ics", ics("a", "11"));
    const moved = await sync(c, same.nextCursor);
    expect(moved.events.map((e) => e.eventId)).toEqual(["a"]);
  });

  it("a file written moments ago is read again next time (an edit in the same mtime tick)", async () => {
    writeFileSync(join(dir, "a.ics"), ics("a", "09"));
    const c = createIcsDirConnector({ path: dir });
    const first = await sync(c);
    const { mtime } = await import("node:fs").then((fs) => fs.statSync(join(dir, "a.ics")));
    writeFileSync(join(dir, "a.ics"), ics("a", "10"));
    utimesSync(join(dir, "a.ics"), mtime, mtime);
    const next = await sync(c, first.nextCursor);
    expect(next.events).toHaveLength(1);
  });

  it("a cursor of the earlier format (versions only) is still read: only changed contents are reported", async () => {
    put("a.ics", ics("a", "09"));
    put("b.ics", ics("b", "10"));
    const version = (name: string) =>
      createHash("sha256")
        .update(readFileSync(join(dir, name)))
        .digest("base64url");
    const legacy = Buffer.from(JSON.stringify({ a: version("a.ics"), b: "stale", gone: "x" })).toString(
      "base64url",
    );
    const c = createIcsDirConnector({ path: dir });
    const next = await sync(c, legacy);
    expect(next.events.map((e) => e.eventId)).toEqual(["b"]);
    expect(next.removed).toEqual(["gone"]);
  });
});
