/**
 * A local calendar directory is read under the caps of src/connectors/http/limits.ts
 * (icsFileBytes per file, icsTotalBytes per sync): a file over its cap is not read, and the sync
 * fails `unavailable` with reason `upstream_too_large`, naming the file.
 */
import { copyFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIcsDirConnector } from "../../../src/connectors/ics-dir/connector.js";
import { DEFAULT_UPSTREAM_LIMITS, setUpstreamLimits } from "../../../src/connectors/http/limits.js";
import { fixturePath } from "../../support/fixtures.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ics-dir-bounds-"));
});
afterEach(() => {
  setUpstreamLimits(DEFAULT_UPSTREAM_LIMITS);
  rmSync(dir, { recursive: true, force: true });
});

const window = { start: Date.parse("2019-01-01T00:00:00Z"), end: Date.parse("2021-01-01T00:00:00Z") };

describe("a local calendar directory, read under its caps", () => {
  it("a 2 GiB file (sparse) is refused at once by its size, not read", async () => {
    copyFileSync(fixturePath("recurrence/each_week_but_one_deleted.ics"), join(dir, "weekly.ics"));
    writeFileSync(join(dir, "huge.ics"), "BEGIN:VCALENDAR\r\n");
    truncateSync(join(dir, "huge.ics"), 2 * 1024 ** 3);
    const started = Date.now();
    const got = await createIcsDirConnector({ path: dir }).calendar.sync({ calendarId: "local", window });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(got).toMatchObject({ ok: false, error: { code: "unavailable", reason: "upstream_too_large" } });
    expect(!got.ok && got.error.message).toMatch(/"huge\.ics" is larger than 1048576 bytes/);
  });

  it("the per-file cap is the operator's: a file just over it is refused, one at it is read", async () => {
    copyFileSync(fixturePath("recurrence/each_week_but_one_deleted.ics"), join(dir, "weekly.ics"));
    const c = createIcsDirConnector({ path: dir });
    const { size } = await import("node:fs").then((fs) => fs.statSync(join(dir, "weekly.ics")));
    setUpstreamLimits({ icsFileBytes: size });
    expect(await c.calendar.sync({ calendarId: "local", window })).toMatchObject({ ok: true });
    setUpstreamLimits({ icsFileBytes: size - 1 });
    expect(await c.calendar.sync({ calendarId: "local", window })).toMatchObject({
      ok: false,
      error: { reason: "upstream_too_large" },
    });
  });

  it("the files together are capped too", async () => {
    copyFileSync(fixturePath("recurrence/each_week_but_one_deleted.ics"), join(dir, "a.ics"));
    copyFileSync(fixturePath("recurrence/each_week_but_one_deleted.ics"), join(dir, "b.ics"));
    const { size } = await import("node:fs").then((fs) => fs.statSync(join(dir, "a.ics")));
    setUpstreamLimits({ icsTotalBytes: 2 * size - 1 });
    const got = await createIcsDirConnector({ path: dir }).calendar.sync({ calendarId: "local", window });
    expect(got).toMatchObject({ ok: false, error: { reason: "upstream_too_large" } });
    expect(!got.ok && got.error.message).toMatch(/together/);
  });
});
