import { createHash } from "node:crypto";
import { watch, type FSWatcher } from "node:fs";
import {
  linkSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIcsDirConnector, type IcsDirDeps } from "../../../src/connectors/ics-dir/connector.js";

let dir = "";
const open: Array<{ close(): void }> = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ics-dir-watch-"));
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
  rmSync(dir, { recursive: true, force: true });
});

const window = { start: Date.parse("2026-12-01T00:00:00Z"), end: Date.parse("2027-01-01T00:00:00Z") };
const ics = (uid: string, hour: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20261207T${hour}0000Z\r\nDTEND:20261207T${hour}3000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
// Settled files (a file written this very second is read again whatever happens), each write
// its own mtime: a file of the same size, mtime and inode is by design not read again.
let tick = 0;
function put(name: string, text: string) {
  writeFileSync(join(dir, name), text);
  const at = new Date(Date.parse("2026-01-01T00:00:00Z") + ++tick * 1000);
  utimesSync(join(dir, name), at, at);
}

/** A connector that records whether each listing came from the watcher or the full walk. */
function connector(deps: IcsDirDeps = {}, settings: { fullWalkEveryMs?: number } = {}) {
  const how: string[] = [];
  const c = createIcsDirConnector(
    { path: dir, ...settings },
    { watch: true, observe: (h) => how.push(h), ...deps },
  );
  open.push(c);
  return { c, how };
}

async function sync(c: ReturnType<typeof createIcsDirConnector>, cursor?: string) {
  const r = await c.calendar.sync({ calendarId: "local", window, ...(cursor !== undefined && { cursor }) });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
const ids = (v: { events: ReadonlyArray<{ eventId: string }> }) =>
  [...new Set(v.events.map((e) => e.eventId))].sort();

describe("ics-dir re-syncs from the directory's change notifications while it watches", () => {
  it("sees an edit, a create, a delete and renames into place (its own writes' way and vdirsyncer's)", async () => {
    put("a.ics", ics("a", "09"));
    put("b.ics", ics("b", "10"));
    put("c.ics", ics("c", "11"));
    const { c, how } = connector();
    let v = await sync(c);
    expect(ids(v)).toEqual(["a", "b", "c"]);

    put("a.ics", ics("a", "12")); // an edit in place
    put("d.ics", ics("d", "13")); // a create
    unlinkSync(join(dir, "b.ics")); // a delete
    v = await sync(c, v.nextCursor);
    expect(ids(v)).toEqual(["a", "d"]);
    expect(v.removed).toEqual(["b"]);

    // vdirsyncer: a temporary file renamed over the target.
    writeFileSync(join(dir, ".c.ics.tmp"), ics("c", "14"));
    renameSync(join(dir, ".c.ics.tmp"), join(dir, "c.ics"));
    // This connector's create: a temporary file hard-linked into place, then removed.
    writeFileSync(join(dir, ".e.1.tmp"), ics("e", "15"));
    linkSync(join(dir, ".e.1.tmp"), join(dir, "e.ics"));
    unlinkSync(join(dir, ".e.1.tmp"));
    v = await sync(c, v.nextCursor);
    expect(ids(v)).toEqual(["c", "e"]);
    expect(v.removed).toEqual([]);

    // Nothing changed: nothing reported, and the cursor is the same.
    const same = await sync(c, v.nextCursor);
    expect(same.events).toEqual([]);
    expect(same.nextCursor).toBe(v.nextCursor);
    expect(how).toEqual(["walked", "watched", "watched", "watched"]);
  });

  it("sees an edit within the same mtime tick (the same size, the same mtime)", async () => {
    writeFileSync(join(dir, "a.ics"), ics("a", "09"));
    const { c, how } = connector();
    const first = await sync(c);
    const { mtime } = statSync(join(dir, "a.ics"));
    writeFileSync(join(dir, "a.ics"), ics("a", "10"));
    utimesSync(join(dir, "a.ics"), mtime, mtime);
    const next = await sync(c, first.nextCursor);
    expect(next.events.map((e) => e.eventId)).toEqual(["a"]);
    expect(how).toEqual(["walked", "watched"]);
  });

  it("a file read again (just written) is read again on the watched path even if nothing reports it", async () => {
    writeFileSync(join(dir, "a.ics"), ics("a", "09"));
    let report: ((event: string, name: string | null) => void) | undefined;
    // A watcher whose events this test hands in itself: none reaches it unless the test says.
    const quiet = (d: string, listener: (event: string, name: string | null) => void) => {
      report = listener;
      return watch(d, { persistent: false }, () => undefined);
    };
    const { c, how } = connector({ watchFn: quiet });
    const first = await sync(c);
    const { mtime } = statSync(join(dir, "a.ics"));
    writeFileSync(join(dir, "a.ics"), ics("a", "10"));
    utimesSync(join(dir, "a.ics"), mtime, mtime);
    const next = await sync(c, first.nextCursor);
    expect(next.events.map((e) => e.eventId)).toEqual(["a"]);
    expect(how).toEqual(["walked", "watched"]);
    expect(report).toBeDefined();
  });

  it("a cursor this process did not return (another process, a restart) is listed by the full walk", async () => {
    put("a.ics", ics("a", "09"));
    put("b.ics", ics("b", "10"));
    const first = connector();
    let v = await sync(first.c);
    put("a.ics", ics("a", "11"));
    unlinkSync(join(dir, "b.ics"));
    v = await sync(first.c, v.nextCursor); // watched: the cursor now holds "b" as gone
    expect(first.how).toEqual(["walked", "watched"]);
    first.c.close();

    // Changed while no watcher ran: only the walk can find it.
    put("c.ics", ics("c", "12"));
    put("a.ics", ics("a", "13"));
    const second = connector();
    const next = await sync(second.c, v.nextCursor);
    expect(ids(next)).toEqual(["a", "c"]);
    expect(next.removed).toEqual([]);
    expect(second.how).toEqual(["walked"]);
    // And from there on, the watcher.
    put("c.ics", ics("c", "14"));
    const after = await sync(second.c, next.nextCursor);
    expect(ids(after)).toEqual(["c"]);
    expect(second.how).toEqual(["walked", "watched"]);
  });

  it("the earlier cursor format (versions only) is listed by the full walk", async () => {
    put("a.ics", ics("a", "09"));
    put("b.ics", ics("b", "10"));
    const version = (name: string) =>
      createHash("sha256")
        .update(readFileSync(join(dir, name)))
        .digest("base64url");
    const legacy = Buffer.from(JSON.stringify({ a: version("a.ics"), b: "stale", gone: "x" })).toString(
      "base64url",
    );
    const { c, how } = connector();
    const next = await sync(c, legacy);
    expect(ids(next)).toEqual(["b"]);
    expect(next.removed).toEqual(["gone"]);
    expect(how).toEqual(["walked"]);
    // The cursor it writes is still one JSON object an earlier version reads.
    const decoded = JSON.parse(Buffer.from(next.nextCursor ?? "", "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
    expect(Object.keys(decoded).sort()).toEqual(["a", "b"]);
  });

  it("a cursor that cannot be read answers cursor_expired", async () => {
    const { c } = connector();
    const r = await c.calendar.sync({ calendarId: "local", window, cursor: "bm90IGpzb24" });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe("cursor_expired");
  });

  it("a watcher that errors, a rename without a name, or the directory's own name: the full walk", async () => {
    put("a.ics", ics("a", "09"));
    let watcher: FSWatcher | undefined;
    let report: ((event: string, name: string | null) => void) | undefined;
    const spied = (d: string, listener: (event: string, name: string | null) => void) => {
      report = listener;
      watcher = watch(d, { persistent: false, encoding: "utf8" }, listener);
      return watcher;
    };
    const { c, how } = connector({ watchFn: spied });
    let v = await sync(c);
    put("a.ics", ics("a", "10"));
    watcher?.emit("error", new Error("EMFILE"));
    v = await sync(c, v.nextCursor);
    expect(ids(v)).toEqual(["a"]);
    expect(how).toEqual(["walked", "walked"]);

    v = await sync(c, v.nextCursor);
    expect(how.at(-1)).toBe("watched");
    report?.("rename", null);
    put("a.ics", ics("a", "11"));
    v = await sync(c, v.nextCursor);
    expect(ids(v)).toEqual(["a"]);
    expect(how.at(-1)).toBe("walked");

    report?.("rename", dir.split("/").at(-1) ?? "");
    v = await sync(c, v.nextCursor);
    expect(how.at(-1)).toBe("walked");
  });

  it("a watcher that cannot start: every sync walks, and is right", async () => {
    put("a.ics", ics("a", "09"));
    const { c, how } = connector({
      watchFn: () => {
        throw Object.assign(new Error("ENOSPC"), { code: "ENOSPC" });
      },
    });
    let v = await sync(c);
    put("a.ics", ics("a", "10"));
    v = await sync(c, v.nextCursor);
    expect(ids(v)).toEqual(["a"]);
    expect(how).toEqual(["walked", "walked"]);
  });

  it("walks every fullWalkEveryMs even while the watcher reports", async () => {
    put("a.ics", ics("a", "09"));
    let t = Date.now();
    const { c, how } = connector({ clock: { now: () => t } }, { fullWalkEveryMs: 60_000 });
    let v = await sync(c);
    put("a.ics", ics("a", "10"));
    v = await sync(c, v.nextCursor);
    expect(ids(v)).toEqual(["a"]);
    // The walk compares against the watched listing: a file changed on the watched path, then
    // deleted, is reported gone.
    unlinkSync(join(dir, "a.ics"));
    t += 61_000;
    v = await sync(c, v.nextCursor);
    expect(v.removed).toEqual(["a"]);
    v = await sync(c, v.nextCursor);
    expect(how).toEqual(["walked", "watched", "walked", "watched"]);
  });

  it("an older cursor of this process (a sync whose result was not kept) still lists from there", async () => {
    put("a.ics", ics("a", "09"));
    put("b.ics", ics("b", "10"));
    const { c, how } = connector();
    const first = await sync(c);
    put("a.ics", ics("a", "11"));
    await sync(c, first.nextCursor); // its result dropped by the caller
    put("b.ics", ics("b", "12"));
    const again = await sync(c, first.nextCursor);
    expect(ids(again)).toEqual(["a", "b"]);
    expect(how).toEqual(["walked", "watched", "watched"]);
  });
});
