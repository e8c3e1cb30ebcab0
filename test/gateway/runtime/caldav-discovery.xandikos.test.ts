/**
 * A config-file CalDAV host without `calendarPath` (examples/config/caldav.jsonc says it is
 * optional): at start the gateway discovers the account's calendars as the console's Connect
 * does (connectors/caldav/discover.ts) and books into the one that takes events, then syncs it.
 * With several such calendars it cannot guess, and the start names the field to set. Against a
 * real xandikos (test/support/xandikos.ts) of this file's own, so its calendars are known.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCalendarStateStore } from "../../../src/booking/calendar/state.js";
import { MemorySyntheticBackend } from "../../../src/connectors/synthetic/index.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { loadHostsConfigFile } from "../../../src/gateway/cli/config-file.js";
import { runCalendarHost } from "../../../src/gateway/runtime/calendar-hosts.js";
import { buildHosts } from "../../../src/gateway/runtime/hosts.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../support/xandikos.js";

const EXAMPLE = join(import.meta.dirname, "../../../examples/config/caldav.jsonc");
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let server: Xandikos;
let dir: string;
beforeAll(async () => {
  server = await startXandikos();
  dir = await mkdtemp(join(tmpdir(), "gw-caldav-discovery-"));
}, XANDIKOS_START_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The shipped example, pointed at xandikos, with no calendarPath (and no credentials: xandikos has none). */
async function exampleWithoutCalendarPath() {
  const text = (await readFile(EXAMPLE, "utf8"))
    .replace("https://dav.example.com/", server.serverUrl)
    .replace(/^\s*"calendarPath": .*$/m, "")
    .replace(/^\s*"(username|password)": .*$/gm, "");
  const file = join(dir, `caldav-${Date.now()}.jsonc`);
  await writeFile(file, text);
  const loaded = await loadHostsConfigFile(file);
  if (!loaded.ok) throw new Error(loaded.error);
  expect(JSON.stringify(loaded.value)).not.toContain("calendarPath");
  return loaded.value;
}

async function start() {
  const store = new MemoryHoldStore();
  const calendarState = new MemoryCalendarStateStore();
  const built = await buildHosts(await exampleWithoutCalendarPath(), dir, {
    clock: { now: () => Date.now() },
    syntheticBackend: new MemorySyntheticBackend(),
    logger: quiet,
    store,
    calendarState,
  });
  return { built, store, calendarState };
}

describe("a config-file CalDAV host without calendarPath", () => {
  it("starts on the one calendar discovery finds, and syncs it", async () => {
    // A foreign event in the account's calendar, so the sync has something to read.
    const put = await fetch(new URL(`${server.defaultCalendar}dentist.ics`, server.serverUrl), {
      method: "PUT",
      headers: { "content-type": "text/calendar; charset=utf-8" },
      body: [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//test//EN",
        "BEGIN:VEVENT",
        "UID:dentist@example",
        "DTSTAMP:20261201T000000Z",
        `DTSTART:${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10).replace(/-/g, "")}T090000Z`,
        "DURATION:PT1H",
        "SUMMARY:Dentist",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
      ].join("\r\n"),
    });
    await put.arrayBuffer();
    expect(put.status).toBe(201);

    const { built, store, calendarState } = await start();
    if (!built.ok) throw new Error(built.error.message);
    const [handle] = built.value.calendarHosts;
    expect(handle?.plan.calendars).toEqual([{ calendarId: server.defaultCalendar }]);
    if (handle === undefined) return;
    await runCalendarHost(
      {
        handles: built.value.calendarHosts,
        hosts: built.value.directory,
        store,
        state: calendarState,
        clock: { now: () => Date.now() },
        logger: quiet,
      },
      handle.hostId,
      "test",
    );
    const reports = await calendarState.reports(handle.hostId);
    expect(reports).toMatchObject([{ calendarId: server.defaultCalendar, outcome: "complete", events: 1 }]);
  });

  it("with several calendars that take events, refuses to start and names calendarPath", async () => {
    await server.makeCalendar("second");
    const { built } = await start();
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.error.field).toBe("/hosts/0/connector/settings/calendarPath");
    expect(built.error.message).toContain("/user/calendars/second/");
  });
});
