/**
 * POST /push/google/{hostId} and /push/microsoft/{hostId} (src/edges/inbound/calendar-push.ts),
 * in process through Hono's app.request, with the real push store and coalescer on a manual
 * clock: a verified notification asks for one sync of its host (one for a whole burst);
 * anything unauthenticated asks for none.
 *
 * Headers follow the Google Calendar guide "Push notifications" ("Receive notifications":
 * X-Goog-Channel-ID, X-Goog-Channel-Token, X-Goog-Resource-ID, X-Goog-Resource-State
 * sync/exists/not_exists, X-Goog-Message-Number); Graph bodies and the validation request the
 * guide "Receive change notifications through webhooks" (fixtures/microsoft/SOURCES.md).
 */
import { Hono } from "hono";
import { beforeEach, describe, expect, it } from "vitest";
import { mountCalendarPush, type CalendarPushReceiver } from "../../../src/edges/inbound/calendar-push.js";
import { pushVerifier } from "../../../src/gateway/runtime/calendar-push-wiring.js";
import { MemoryPushStore, pushCoalescer, type PushEntry } from "../../../src/jobs/calendar-push/index.js";
import { readFixtureJson } from "../../support/fixtures.js";
import { ManualClock, recordingLogger } from "../../jobs/calendar-push/support.js";

const NOW = Date.parse("2026-12-03T07:00:00Z");
const WINDOW_MS = 2_000;
const CHANNEL = "0b4f5e52-6f7c-4c43-9f5e-6c2d1a3b4c5d";
const TOKEN = "google-channel-token-Zm9vYmFy";
const RESOURCE = "o3hgv1538sdjfh";
const SUBSCRIPTION = "7f105c7d-2dc5-4530-97cd-4e7ae6534c07";
const CLIENT_STATE = "secretClientValue-8c2d";

const googleEntry: PushEntry = {
  vendor: "google",
  calendarId: "alice@example.com",
  id: CHANNEL,
  secret: TOKEN,
  resourceId: RESOURCE,
  address: "https://gw.example/push/google/ana",
  obtainedAt: NOW,
  expiresAt: NOW + 7 * 86_400_000,
};
const graphEntry: PushEntry = {
  vendor: "microsoft",
  calendarId: "primary",
  id: SUBSCRIPTION,
  secret: CLIENT_STATE,
  address: "https://gw.example/push/microsoft/bea",
  obtainedAt: NOW,
  expiresAt: NOW + 7 * 86_400_000 - 300_000,
};

let clock: ManualClock;
let syncs: Array<[string, string]>;
let lifecycle: Array<[string, string, string]>;
let logger: ReturnType<typeof recordingLogger>;
let app: Hono;

beforeEach(async () => {
  clock = new ManualClock(NOW);
  syncs = [];
  lifecycle = [];
  logger = recordingLogger();
  const store = new MemoryPushStore();
  await store.put("ana", googleEntry);
  await store.put("bea", graphEntry);
  const coalescer = pushCoalescer(
    (hostId, reason) => {
      syncs.push([hostId, reason]);
      return Promise.resolve();
    },
    logger,
    { timers: clock, windowMs: WINDOW_MS },
  );
  const vendors = new Map([
    ["ana", "google"],
    ["bea", "microsoft"],
  ] as const);
  const receiver: CalendarPushReceiver = {
    verifier: pushVerifier,
    vendor: (hostId) => vendors.get(hostId as "ana"),
    entries: (hostId) => store.list(hostId),
    push: (hostId, reason) => coalescer.push(hostId, reason),
    lifecycle: (hostId, id, event) => void lifecycle.push([hostId, id, event]),
  };
  app = new Hono();
  mountCalendarPush(app, { logger }, receiver);
});

const googleHeaders = (over: Record<string, string | undefined> = {}) => {
  const h: Record<string, string> = {};
  const all: Record<string, string | undefined> = {
    "X-Goog-Channel-ID": CHANNEL,
    "X-Goog-Channel-Token": TOKEN,
    "X-Goog-Resource-ID": RESOURCE,
    "X-Goog-Resource-URI":
      "https://www.googleapis.com/calendar/v3/calendars/alice@example.com/events?alt=json",
    "X-Goog-Resource-State": "exists",
    "X-Goog-Message-Number": "2",
    "X-Goog-Channel-Expiration": "Thu, 10 Dec 2026 07:00:00 GMT",
    ...over,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) h[k] = v;
  return h;
};
const postGoogle = (host: string, over: Record<string, string | undefined> = {}) =>
  app.request(`/push/google/${host}`, { method: "POST", headers: googleHeaders(over) });
const postGraph = (host: string, body: unknown, query = "") =>
  app.request(`/push/microsoft/${host}${query}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const graphBatch = (clientState = CLIENT_STATE, subscriptionId = SUBSCRIPTION) => {
  const batch = readFixtureJson<{ value: Array<Record<string, unknown>> }>(
    "microsoft/notification-updated.json",
  );
  return { value: batch.value.map((n) => ({ ...n, clientState, subscriptionId })) };
};
const settle = () => clock.advance(WINDOW_MS);

describe("POST /push/google/{hostId}", () => {
  it("a burst of changes with the channel's token is answered 200 at once and synced once", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await postGoogle("ana", { "X-Goog-Message-Number": String(i + 2) });
      expect(res.status).toBe(200);
    }
    expect(syncs).toEqual([]); // the answer comes before the sync
    await settle();
    expect(syncs).toEqual([["ana", "push"]]);
    // A later change opens the next window: nothing is lost.
    expect((await postGoogle("ana", { "X-Goog-Resource-State": "not_exists" })).status).toBe(200);
    await settle();
    expect(syncs).toHaveLength(2);
  });

  it('"sync" is the handshake: 200, no sync', async () => {
    const res = await postGoogle("ana", { "X-Goog-Resource-State": "sync", "X-Goog-Message-Number": "1" });
    expect(res.status).toBe(200);
    await settle();
    expect(syncs).toEqual([]);
  });

  it("a bad or missing token is refused (401 / 404) and triggers nothing", async () => {
    const bad = await postGoogle("ana", { "X-Goog-Channel-Token": `${TOKEN}x` });
    expect(bad.status).toBe(401);
    expect(await bad.text()).toBe("");
    expect((await postGoogle("ana", { "X-Goog-Channel-Token": undefined })).status).toBe(404);
    await settle();
    expect(syncs).toEqual([]);
    expect(logger.lines.some((l) => l.level === "warn" && /bad channel token/.test(l.message))).toBe(true);
    expect(JSON.stringify(logger.lines)).not.toContain(TOKEN);
  });

  it("an unknown host, channel or resource, or the other platform's host, is 404 without detail", async () => {
    for (const res of [
      await postGoogle("nobody"),
      await postGoogle("bea"),
      await postGoogle("ana", { "X-Goog-Channel-ID": "another-channel" }),
      await postGoogle("ana", { "X-Goog-Channel-ID": undefined }),
      await postGoogle("ana", { "X-Goog-Resource-ID": "another-resource" }),
    ]) {
      expect(res.status).toBe(404);
      expect(await res.text()).toBe("");
    }
    await settle();
    expect(syncs).toEqual([]);
  });
});

describe("POST /push/microsoft/{hostId}", () => {
  it("echoes validationToken, decoded, as text/plain", async () => {
    const token = "Validation: Testing client application reachability for subscription Request-Id: 1f2e";
    const res = await postGraph("bea", "", `?validationToken=${encodeURIComponent(token)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toBe(token);
    await settle();
    expect(syncs).toEqual([]);
  });

  it("a validation request for a host without push is 404", async () => {
    expect((await postGraph("ana", "", "?validationToken=x")).status).toBe(404);
    expect((await postGraph("nobody", "", "?validationToken=x")).status).toBe(404);
  });

  it("a batch with the subscription's clientState is 202 and synced once, however often it comes", async () => {
    for (let i = 0; i < 3; i++) expect((await postGraph("bea", graphBatch())).status).toBe(202);
    expect(syncs).toEqual([]);
    await settle();
    expect(syncs).toEqual([["bea", "push"]]);
  });

  it("a bad clientState is ignored (202) and logged; no sync", async () => {
    const res = await postGraph("bea", graphBatch("not-the-secret"));
    expect(res.status).toBe(202);
    await settle();
    expect(syncs).toEqual([]);
    expect(logger.lines.some((l) => l.level === "warn" && /bad clientState/.test(l.message))).toBe(true);
  });

  it("an unknown subscription is 404, a malformed body 400; neither syncs", async () => {
    expect((await postGraph("bea", graphBatch(CLIENT_STATE, "another-subscription"))).status).toBe(404);
    expect((await postGraph("bea", "{not json")).status).toBe(400);
    expect((await postGraph("bea", { value: [] })).status).toBe(400);
    expect((await postGraph("ana", graphBatch())).status).toBe(404);
    await settle();
    expect(syncs).toEqual([]);
  });

  it("a lifecycle notification is handed to the lifecycle job, and syncs (changes may have been missed)", async () => {
    const body = {
      value: [
        {
          subscriptionId: SUBSCRIPTION,
          subscriptionExpirationDateTime: "2026-12-10T06:55:00+00:00",
          tenantId: "84bd8158-6d4d-4958-8b9f-9d6445542f95",
          clientState: CLIENT_STATE,
          lifecycleEvent: "subscriptionRemoved",
        },
      ],
    };
    expect((await postGraph("bea", body)).status).toBe(202);
    expect(lifecycle).toEqual([["bea", SUBSCRIPTION, "subscriptionRemoved"]]);
    await settle();
    expect(syncs).toEqual([["bea", "push"]]);
  });
});
