/**
 * A calendar host with 100,000 events in its horizon (an ics-dir directory of 1,000 files of
 * 100 events each), synced by a running gateway with the default bounds: it is served in full
 * (ok, every event laid) or degraded with the reason on its operator health, never an
 * empty calendar that looks healthy.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHostsConfig } from "../../../src/booking/hosts/parse-config.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";

const OPERATOR = "operator-token-calendar-100k-test";
const H = 3_600_000;
const FILES = 1_000;
const PER_FILE = 100;
const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").slice(0, 15) + "Z";

let dir = "";
let calendarDir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-100k-"));
  calendarDir = join(dir, "calendar");
  const { mkdir } = await import("node:fs/promises");
  await mkdir(calendarDir);
  // Half-hour events over the next 30 days, at night (UTC) so the host's hours keep free time.
  const day0 = Math.floor(Date.now() / (24 * H)) * 24 * H + 24 * H;
  for (let f = 0; f < FILES; f++) {
    const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//100k//EN"];
    for (let k = 0; k < PER_FILE; k++) {
      const i = f * PER_FILE + k;
      const start = day0 + (i % 30) * 24 * H + ((i % 8) * H) / 2;
      lines.push(
        "BEGIN:VEVENT",
        `UID:e${i}@test`,
        "DTSTAMP:20260101T000000Z",
        `DTSTART:${stamp(start)}`,
        `DTEND:${stamp(start + H / 2)}`,
        "END:VEVENT",
      );
    }
    lines.push("END:VCALENDAR", "");
    await writeFile(join(calendarDir, `f${f}.ics`), lines.join("\r\n"));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function syncOnce(path: string) {
  const parsed = parseHostsConfig({
    hosts: [
      {
        id: "big",
        name: "Big",
        kind: "person",
        owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
        timezone: "Europe/Madrid",
        connector: { type: "ics-dir", settings: { path } },
        calendar: {
          capacity: "me",
          hours: [1, 2, 3, 4, 5].map((day) => ({ day, open: "09:00", close: "14:00" })),
          services: [{ id: "session", name: "Session", duration: "PT45M" }],
          approver: { email: "ana@example.com" },
          sync_every: "PT1H",
        },
      },
    ],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const quiet = () => undefined;
  const runtime = await createGatewayRuntime({
    hosts: parsed.value,
    publicOrigin: "https://gw.example",
    dataDir: await mkdtemp(join(dir, "data-")),
    operatorToken: OPERATOR,
    logger: { info: quiet, warn: quiet, error: quiet },
  });
  try {
    expect(await runtime.syncCalendarNow("big")).toBe(true);
    const app = createHttpApp(runtime);
    const auth = { headers: { authorization: `Bearer ${OPERATOR}` } };
    const health = (await (await app.request("/operator/v0/big/health", auth)).json()) as Record<
      string,
      unknown
    >;
    const calendar = (await (await app.request("/operator/v0/big/calendar", auth)).json()) as {
      calendars: Array<{ last_sync?: Record<string, unknown> }>;
    };
    return { health, sync: calendar.calendars[0]?.last_sync };
  } finally {
    await runtime.close();
  }
}

describe("a calendar host at its bounds", () => {
  it("100,000 events in its horizon: served in full or degraded with its reason, never silently empty", async () => {
    const { health, sync } = await syncOnce(calendarDir);
    expect(sync).toBeDefined();
    if (health["health"] === "degraded") {
      expect(typeof health["degraded_reason"]).toBe("string");
      expect((health["last_error"] as { message?: unknown } | undefined)?.message).toBeTypeOf("string");
    } else {
      expect(health["health"]).toBe("ok");
      expect(sync).toMatchObject({ outcome: "complete", events: FILES });
      expect(sync?.["busy"]).toBe(FILES * PER_FILE);
    }
  }, 300_000);

  it("a series past its bound: degraded, degraded_reason expansion_bound on the operator health and calendar report", async () => {
    const small = await mkdtemp(join(dir, "minutely-"));
    const start = Math.floor(Date.now() / H) * H + H;
    await writeFile(
      join(small, "flood.ics"),
      [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//test//bound//EN",
        "BEGIN:VEVENT",
        "UID:flood@test",
        "DTSTAMP:20260101T000000Z",
        `DTSTART:${stamp(start)}`,
        `DTEND:${stamp(start + 30_000)}`,
        "RRULE:FREQ=MINUTELY",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
      ].join("\r\n"),
    );
    const { health, sync } = await syncOnce(small);
    expect(health).toMatchObject({
      health: "degraded",
      degraded_reason: "expansion_bound",
      last_error: { reason: "expansion_bound" },
    });
    // Laid, but not whole: the operator's calendar report says so and why.
    expect(sync).toMatchObject({
      outcome: "complete",
      complete: false,
      degraded: { reason: "expansion_bound" },
    });
  }, 60_000);
});
