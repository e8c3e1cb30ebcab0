/**
 * Calendar push wired into a running gateway (runtime.ts + calendar-push-wiring.ts): a Google
 * calendar host with `push_url` gets a watch channel at start, a notification carrying that
 * channel's token syncs the host again, and close() stops the channel (memory mode: no other
 * process knows it). Google is nock, shaped from fixtures/google (SOURCES.md).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterEach, beforeEach, expect, it } from "vitest";
import { parseHostsConfig } from "../../../src/booking/hosts/parse-config.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import { readFixtureJson } from "../../support/fixtures.js";

const TOKEN = "ya29.runtime-SECRET-TEST-TOKEN";
const google = () => nock("https://www.googleapis.com", { reqheaders: { authorization: `Bearer ${TOKEN}` } });
const LIST = "/calendar/v3/calendars/alice%40example.com/events";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-push-"));
  await writeFile(join(dir, "google-token"), TOKEN);
  nock.disableNetConnect();
});
afterEach(async () => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  await rm(dir, { recursive: true, force: true });
  expect(pending, "every expected request was made").toEqual([]);
});

const config = (pushUrl?: string) => ({
  hosts: [
    {
      id: "ana",
      name: "Ana",
      kind: "person",
      owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
      timezone: "Europe/Madrid",
      connector: { type: "google", settings: { accessTokenFile: "google-token" } },
      calendar: {
        capacity: "me",
        hours: [{ day: 1, open: "09:00", close: "14:00" }],
        services: [{ id: "session", name: "Session", duration: "PT45M" }],
        calendars: [{ id: "alice@example.com" }],
        approver: { email: "ana@example.com" },
        ...(pushUrl !== undefined && { push_url: pushUrl }),
      },
    },
  ],
});

async function runtimeFor(pushUrl?: string, lines: string[] = []) {
  const parsed = parseHostsConfig(config(pushUrl));
  if (!parsed.ok) throw new Error(parsed.error.message);
  const log = (m: string) => void lines.push(m);
  return createGatewayRuntime({
    hosts: parsed.value,
    publicOrigin: "https://gw.example",
    dataDir: dir,
    logger: { info: log, warn: log, error: log },
  });
}

const listed = () =>
  google().get(LIST).query(true).reply(200, readFixtureJson("google/events-list-incremental.json"));

it("a push host: channel at start, a notification with its token syncs again, close() stops it", async () => {
  let watched: Record<string, string> = {};
  listed();
  google()
    .post(`${LIST}/watch`, (b: Record<string, string>) => ((watched = b), true))
    .reply(200, (_u, b) => ({
      ...readFixtureJson<Record<string, unknown>>("google/watch-channel.json"),
      id: (b as { id: string }).id,
      expiration: String(Date.now() + 7 * 86_400_000),
    }));
  const lines: string[] = [];
  const runtime = await runtimeFor("https://gw.example", lines);
  try {
    let stored = 0;
    await waitFor(() => {
      void runtime.calendarPush?.entries("ana").then((l) => (stored = l.length));
      return stored === 1 && nock.pendingMocks().length === 0;
    });
    expect(watched.address).toBe("https://gw.example/push/google/ana");
    const app = createHttpApp(runtime);
    const notify = (token: string) =>
      app.request("/push/google/ana", {
        method: "POST",
        headers: {
          "X-Goog-Channel-ID": watched.id!,
          "X-Goog-Channel-Token": token,
          "X-Goog-Resource-ID": "o3hgv1538sdjfh",
          "X-Goog-Resource-State": "exists",
        },
      });
    expect((await notify("forged")).status).toBe(401);
    listed(); // the one sync the good notification asks for
    expect((await notify(watched.token!)).status).toBe(200);
    await waitFor(() => nock.pendingMocks().length === 0, 6_000);
  } finally {
    google().post("/calendar/v3/channels/stop").reply(204);
    await runtime.close();
  }
  expect(lines.join("\n")).not.toContain(TOKEN);
}, 15_000);

it("a host without push_url: push is off, the start says so, and no channel is made", async () => {
  listed();
  const lines: string[] = [];
  const runtime = await runtimeFor(undefined, lines);
  try {
    await waitFor(() => nock.pendingMocks().length === 0);
    expect(lines.some((l) => /calendar push off for host ana \(no push_url\)/.test(l))).toBe(true);
    const res = await createHttpApp(runtime).request("/push/google/ana", { method: "POST" });
    expect(res.status).toBe(404);
  } finally {
    await runtime.close();
  }
});

async function waitFor(done: () => boolean, timeoutMs = 3_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
