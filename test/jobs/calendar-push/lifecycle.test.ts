/**
 * The push lifecycle (src/jobs/calendar-push/lifecycle.ts) through the runtime's wiring
 * (src/gateway/runtime/calendar-push-wiring.ts), with the real Google and Graph connectors
 * against nock and a manual clock:
 *
 * - Google (guide "Push notifications": events.watch answers a Channel with `resourceId` and
 *   `expiration` in ms; channels are not renewed: a new one is made, and channels.stop takes
 *   the old `id` + `resourceId`);
 * - Graph (resource "subscription" and "Create / Update subscription": POST /subscriptions
 *   201, PATCH /subscriptions/{id} with a new expirationDateTime 200, at most 10 080 minutes
 *   for Outlook events).
 *
 * Fixture shapes and their sources: fixtures/google/SOURCES.md, fixtures/microsoft/SOURCES.md.
 */
import { Hono } from "hono";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CalendarHostHandle } from "../../../src/booking/calendar/host-setup.js";
import { createGoogleCalendarConnector } from "../../../src/connectors/google/index.js";
import { createMicrosoftCalendarConnector } from "../../../src/connectors/microsoft/index.js";
import { mountCalendarPush } from "../../../src/edges/inbound/calendar-push.js";
import {
  calendarPushWiring,
  type CalendarPushWiring,
} from "../../../src/gateway/runtime/calendar-push-wiring.js";
import { MemoryPushStore } from "../../../src/jobs/calendar-push/index.js";
import { readFixtureJson } from "../../support/fixtures.js";
import { ManualClock, recordingLogger } from "./support.js";

const NOW = Date.parse("2026-12-03T07:00:00Z");
const DAY = 86_400_000;
const HOUR = 3_600_000;
const RETRY = 15 * 60_000;
const TOKEN = "ya29.lifecycle-SECRET-TEST-TOKEN";
const GOOGLE = "https://www.googleapis.com";
const GRAPH = "https://graph.microsoft.com";
const PUSH_URL = "https://gw.example";

let clock: ManualClock;
let logger: ReturnType<typeof recordingLogger>;
let store: MemoryPushStore;
let syncs: string[];
let wiring: CalendarPushWiring | undefined;

beforeEach(() => {
  nock.disableNetConnect();
  clock = new ManualClock(NOW);
  logger = recordingLogger();
  store = new MemoryPushStore();
  syncs = [];
  wiring = undefined;
});
afterEach(async () => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  // close() would stop the memory store's channels upstream; the tests that want it say so.
  await store.list("ana").then((l) => Promise.all(l.map((e) => store.delete("ana", e.id))));
  await store.list("bea").then((l) => Promise.all(l.map((e) => store.delete("bea", e.id))));
  await wiring?.close();
  nock.enableNetConnect();
  expect(pending, "every expected request was made").toEqual([]);
});

/** The slice of a calendar host handle the wiring reads. */
function handle(
  hostId: string,
  calendar: unknown,
  calendarIds: string[],
  pushUrl?: string,
): CalendarHostHandle {
  return {
    hostId,
    plan: { calendars: calendarIds.map((calendarId) => ({ calendarId })) },
    section: { syncEveryMs: 5 * 60_000, ...(pushUrl !== undefined && { pushUrl }) },
    calendar,
  } as unknown as CalendarHostHandle;
}

// The clock is made anew for each test: the connectors read whichever is current.
const deps = { accessToken: () => Promise.resolve(TOKEN), clock: { now: () => clock.now() } };
const googleHost = (pushUrl: string | undefined) =>
  handle("ana", createGoogleCalendarConnector({}, deps), ["alice@example.com"], pushUrl);
const graphHost = () => handle("bea", createMicrosoftCalendarConnector({}, deps), ["primary"], PUSH_URL);

async function start(...handles: CalendarHostHandle[]): Promise<CalendarPushWiring> {
  const w = await calendarPushWiring({
    handles,
    requestSync: (hostId) => (syncs.push(hostId), Promise.resolve()),
    logger,
    clock,
    redisKeyPrefix: "unused:",
    store,
    timers: clock,
    windowMs: 1_000,
    lifecycle: { renewBeforeMs: HOUR, retryMs: RETRY },
  });
  if (w === undefined) throw new Error("no push wiring");
  wiring = w;
  await w.lifecycle.ready;
  return w;
}

const google = () => nock(GOOGLE, { reqheaders: { authorization: `Bearer ${TOKEN}` } });
const graph = () => nock(GRAPH, { reqheaders: { authorization: `Bearer ${TOKEN}` } });

/** events.watch, answered as Google does: our id echoed, the lifetime it grants. */
function expectWatch(
  seen: Array<Record<string, unknown>>,
  lifetimeMs = 7 * DAY,
  resourceId = "o3hgv1538sdjfh",
) {
  google()
    .post("/calendar/v3/calendars/alice%40example.com/events/watch", (b: Record<string, unknown>) => {
      seen.push(b);
      return true;
    })
    .reply(200, (_uri, body) => ({
      ...readFixtureJson<Record<string, unknown>>("google/watch-channel.json"),
      id: (body as { id: string }).id,
      resourceId,
      expiration: String(clock.now() + lifetimeMs),
    }));
}

async function notifyGoogle(w: CalendarPushWiring, channelId: string, token: string): Promise<number> {
  const app = new Hono();
  mountCalendarPush(app, { logger }, w.receiver);
  const res = await app.request("/push/google/ana", {
    method: "POST",
    headers: {
      "X-Goog-Channel-ID": channelId,
      "X-Goog-Channel-Token": token,
      "X-Goog-Resource-ID": "o3hgv1538sdjfh",
      "X-Goog-Resource-State": "exists",
    },
  });
  await clock.advance(1_000);
  return res.status;
}

const warned = (re: RegExp) => logger.lines.some((l) => l.level === "warn" && re.test(l.message));

describe("Google watch channels", () => {
  it("opens a channel per calendar at start; its notifications then sync the host", async () => {
    const seen: Array<Record<string, unknown>> = [];
    expectWatch(seen);
    const w = await start(googleHost(PUSH_URL));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: "web_hook", address: `${PUSH_URL}/push/google/ana` });
    const [entry] = await store.list("ana");
    expect(entry).toMatchObject({
      vendor: "google",
      calendarId: "alice@example.com",
      id: seen[0]?.id,
      secret: seen[0]?.token,
      resourceId: "o3hgv1538sdjfh",
      expiresAt: NOW + 7 * DAY,
    });
    expect(String(seen[0]?.token).length).toBeGreaterThanOrEqual(32);
    expect(logger.lines.some((l) => /calendar push on/.test(l.message))).toBe(true);
    expect(await notifyGoogle(w, entry!.id, entry!.secret)).toBe(200);
    expect(syncs).toEqual(["ana"]);
  });

  it("renews an hour before expiry: a new channel, then the old one stopped", async () => {
    const first: Array<Record<string, unknown>> = [];
    expectWatch(first);
    const w = await start(googleHost(PUSH_URL));
    const [old] = await store.list("ana");
    expect(clock.nextAt()).toBe(NOW + 7 * DAY - HOUR);

    await clock.advance(7 * DAY - HOUR - 60_000); // a minute early: nothing happens
    expect(logger.lines.filter((l) => l.level !== "info")).toEqual([]);

    const second: Array<Record<string, unknown>> = [];
    expectWatch(second, 7 * DAY, "o3hgv1538-second");
    let stopped: unknown;
    google()
      .post("/calendar/v3/channels/stop", (b) => ((stopped = b), true))
      .reply(204);
    await clock.advance(60_000);
    const renewedAt = clock.now();
    expect(clock.nextAt()).toBe(renewedAt + 7 * DAY - HOUR);
    expect(second).toHaveLength(1);
    expect(second[0]?.id).not.toBe(old!.id);
    expect(second[0]?.token).not.toBe(old!.secret);
    expect(stopped).toEqual({ id: old!.id, resourceId: "o3hgv1538sdjfh" });
    const now = await store.list("ana");
    expect(now.map((e) => e.id)).toEqual([second[0]?.id]);
    // The old channel's token no longer gets in.
    expect(await notifyGoogle(w, old!.id, old!.secret)).toBe(404);
    expect(syncs).toEqual([]);
  });

  it("renewing a short-lived channel waits half its life, not the hour", async () => {
    expectWatch([], 30 * 60_000);
    await start(googleHost(PUSH_URL));
    expect(clock.nextAt()).toBe(NOW + 15 * 60_000);
  });

  it("a failed watch falls back to periodic sync, logged, and tries again later", async () => {
    google()
      .post("/calendar/v3/calendars/alice%40example.com/events/watch")
      .reply(403, readFixtureJson("google/error-403-rate-limit-exceeded.json"));
    await start(googleHost(PUSH_URL));
    expect(await store.list("ana")).toEqual([]);
    expect(warned(/opening the channel failed; host ana is synced every 5 min only/)).toBe(true);
    expect(clock.nextAt()).toBe(NOW + RETRY);

    expectWatch([]);
    await clock.advance(RETRY);
    expect(await store.list("ana")).toHaveLength(1);
  });

  it("a failed renewal keeps the old channel serving until it works", async () => {
    expectWatch([]);
    const w = await start(googleHost(PUSH_URL));
    const [old] = await store.list("ana");
    google()
      .post("/calendar/v3/calendars/alice%40example.com/events/watch")
      .reply(429, readFixtureJson("google/error-429-rate-limit-exceeded.json"));
    await clock.advance(7 * DAY - HOUR);
    expect(warned(/renewing the channel failed/)).toBe(true);
    expect((await store.list("ana")).map((e) => e.id)).toEqual([old!.id]);
    expect(await notifyGoogle(w, old!.id, old!.secret)).toBe(200);
    expect(syncs).toEqual(["ana"]);
  });

  it("without push_url push is off, and the start says so", async () => {
    const w = await calendarPushWiring({
      handles: [googleHost(undefined)],
      requestSync: () => Promise.resolve(),
      logger,
      clock,
      redisKeyPrefix: "unused:",
      store,
      timers: clock,
    });
    expect(w).toBeUndefined();
    expect(
      logger.lines.some((l) =>
        /calendar push off for host ana \(no push_url\): its calendar is synced every 5 min/.test(l.message),
      ),
    ).toBe(true);
    expect(clock.nextAt()).toBeUndefined();
  });

  it("close() stops the channels a process-local store made", async () => {
    expectWatch([]);
    const w = await start(googleHost(PUSH_URL));
    const [entry] = await store.list("ana");
    let stopped: unknown;
    google()
      .post("/calendar/v3/channels/stop", (b) => ((stopped = b), true))
      .reply(204);
    wiring = undefined;
    await w.close();
    expect(stopped).toEqual({ id: entry!.id, resourceId: "o3hgv1538sdjfh" });
    expect(await store.list("ana")).toEqual([]);
    expect(clock.nextAt()).toBeUndefined();
  });
});

describe("Graph subscriptions", () => {
  const SUB = "7f105c7d-2dc5-4530-97cd-4e7ae6534c07";
  const created = () => readFixtureJson<Record<string, unknown>>("microsoft/subscription-created.json");

  function expectCreate(seen: Array<Record<string, unknown>>, id = SUB) {
    graph()
      .post("/v1.0/subscriptions", (b: Record<string, unknown>) => (seen.push(b), true))
      .reply(201, (_uri, body) => ({
        ...created(),
        id,
        clientState: (body as { clientState: string }).clientState,
        notificationUrl: `${PUSH_URL}/push/microsoft/bea`,
        expirationDateTime: (body as { expirationDateTime: string }).expirationDateTime,
      }));
  }

  it("creates a subscription at start, with Graph's longest lifetime for events", async () => {
    const seen: Array<Record<string, unknown>> = [];
    expectCreate(seen);
    await start(graphHost());
    expect(seen[0]).toMatchObject({
      changeType: "created,updated,deleted",
      notificationUrl: `${PUSH_URL}/push/microsoft/bea`,
      lifecycleNotificationUrl: `${PUSH_URL}/push/microsoft/bea`,
      resource: "me/events",
    });
    // 10 080 minutes less the connector's 5-minute margin: the fixture's own expiry.
    expect(seen[0]?.expirationDateTime).toBe("2026-12-10T06:55:00.000Z");
    const [entry] = await store.list("bea");
    expect(entry).toMatchObject({
      id: SUB,
      secret: seen[0]?.clientState,
      expiresAt: Date.parse("2026-12-10T06:55:00Z"),
    });
  });

  it("renews in place before expiry (PATCH expirationDateTime); id and clientState stay", async () => {
    expectCreate([]);
    await start(graphHost());
    const [before] = await store.list("bea");
    const renewAt = Date.parse("2026-12-10T06:55:00Z") - HOUR;
    expect(clock.nextAt()).toBe(renewAt);
    let patched: Record<string, unknown> = {};
    graph()
      .patch(`/v1.0/subscriptions/${SUB}`, (b: Record<string, unknown>) => ((patched = b), true))
      .reply(200, (_uri, body) => ({
        ...readFixtureJson<Record<string, unknown>>("microsoft/subscription-renewed.json"),
        expirationDateTime: (body as { expirationDateTime: string }).expirationDateTime,
      }));
    await clock.advance(renewAt - NOW);
    expect(Object.keys(patched)).toEqual(["expirationDateTime"]);
    const expected = renewAt + 10_080 * 60_000 - 5 * 60_000;
    expect(Date.parse(patched.expirationDateTime as string)).toBe(expected);
    const [after] = await store.list("bea");
    expect(after).toMatchObject({ id: SUB, secret: before!.secret, expiresAt: expected });
    expect(clock.nextAt()).toBe(expected - HOUR);
  });

  it("a subscription Graph no longer has is replaced: a new one, the old one deleted", async () => {
    expectCreate([]);
    await start(graphHost());
    const NEW = "9a1c2b3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d";
    graph()
      .patch(`/v1.0/subscriptions/${SUB}`)
      .reply(404, readFixtureJson("microsoft/error-404-subscription-not-found.json"));
    expectCreate([], NEW);
    graph()
      .delete(`/v1.0/subscriptions/${SUB}`)
      .reply(404, readFixtureJson("microsoft/error-404-subscription-not-found.json"));
    await clock.advance(7 * DAY);
    expect((await store.list("bea")).map((e) => e.id)).toEqual([NEW]);
  });

  it("a refused create falls back to periodic sync, logged", async () => {
    graph()
      .post("/v1.0/subscriptions")
      .reply(401, readFixtureJson("microsoft/error-401-invalid-authentication-token.json"));
    await start(graphHost());
    expect(await store.list("bea")).toEqual([]);
    expect(warned(/opening the channel failed; host bea is synced every 5 min only/)).toBe(true);
    expect(clock.nextAt()).toBe(NOW + RETRY);
  });

  it("subscriptionRemoved (a lifecycle notification) makes a new subscription at once", async () => {
    expectCreate([]);
    const w = await start(graphHost());
    const NEW = "9a1c2b3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d";
    expectCreate([], NEW); // Graph removed the old one: nothing to delete
    w.receiver.lifecycle?.("bea", SUB, "subscriptionRemoved");
    await w.lifecycle.recheck("bea"); // queued behind the one the notification started
    expect((await store.list("bea")).map((e) => e.id)).toEqual([NEW]);
  });
});
