/** CALENDAR_SYNC_CONCURRENCY (docs/settings.md "Calendar hosts"): read, checked, left to the default when unset. */
import { expect, it } from "vitest";
import { readServeEnv } from "../../../src/gateway/cli/serve-env.js";

it("calendar syncs at once come from CALENDAR_SYNC_CONCURRENCY; nonsense is a start error naming it", () => {
  const none = readServeEnv({}, "/");
  expect(none.ok && none.value.calendarSyncConcurrency).toBeUndefined();
  const empty = readServeEnv({ CALENDAR_SYNC_CONCURRENCY: "" }, "/");
  expect(empty.ok && empty.value.calendarSyncConcurrency).toBeUndefined();
  for (const good of ["1", "16", "256"]) {
    const r = readServeEnv({ CALENDAR_SYNC_CONCURRENCY: good }, "/");
    expect(r.ok && r.value.calendarSyncConcurrency).toBe(Number(good));
  }
  for (const bad of ["0", "-1", "2.5", "many", "257", " 4"]) {
    const r = readServeEnv({ CALENDAR_SYNC_CONCURRENCY: bad }, "/");
    expect(r.ok ? undefined : r.error).toBe(
      `CALENDAR_SYNC_CONCURRENCY must be a whole number from 1 to 256, got "${bad}"`,
    );
  }
});
