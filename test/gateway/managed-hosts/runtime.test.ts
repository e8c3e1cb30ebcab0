/**
 * Hosts created in the console persist and go live: a record activated on a running
 * gateway is in discovery and offers time at once, a deactivated one is gone, a restart brings
 * the active ones back, and a second replica on the same Redis serves what the first activated.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { embeddedDefaultHosts } from "../../../src/booking/hosts/index.js";
import type { ManagedHostRecord } from "../../../src/edges/console/managed-hosts.js";
import { FileManagedHostStore } from "../../../src/gateway/managed-hosts/file-store.js";
import { createGatewayRuntime, type GatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import type { GatewayRuntimeOptions } from "../../../src/gateway/runtime/runtime.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { callerFor, newParty, type World } from "../../booking/bookings/world.js";
import { startGateway, TestClock, type TestGateway } from "../support/gateway.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** Wednesday 14 October 2026 (Toronto), a morning window; the clock is the day before. */
const WINDOW = { start: "2026-10-14T09:00:00-04:00", end: "2026-10-14T12:00:00-04:00" };

const syntheticConfig = (id: string) => ({
  id,
  name: "Corner Garage",
  kind: "business",
  timezone: "America/Toronto",
  domain: null,
  connector: { type: "synthetic", settings: { scenario: "maple-street-auto" } },
  policies: { confirmation: "instant", retention: "P365D" },
  services: [],
});

const calendarConfig = (id: string, path: string) => ({
  id,
  name: "Ana's studio",
  kind: "person",
  owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
  timezone: "America/Toronto",
  connector: { type: "ics-dir", settings: { path } },
  calendar: {
    capacity: "me",
    hours: [1, 2, 3, 4, 5].map((day) => ({ day, open: "09:00", close: "17:00" })),
    services: [{ id: "consult", name: "Consultation", duration: "PT30M" }],
    granularity: "PT30M",
    approver: { email: "ana@example.com" },
  },
});

const record = (
  config: Record<string, unknown>,
  over: Partial<ManagedHostRecord> = {},
): ManagedHostRecord => ({
  id: config.id as string,
  owner: "operator",
  source: "caldav",
  state: "draft",
  config,
  createdAt: 1,
  updatedAt: 1,
  ...over,
});

async function slots(runtime: GatewayRuntime, clock: TestClock, hostId: string, serviceId: string) {
  const caller = await callerFor({ clock } as unknown as World, newParty(), { hostId });
  return runtime.service.availability(hostId, caller, { service_id: serviceId, window: WINDOW, limit: 5 });
}

async function discovered(runtime: GatewayRuntime): Promise<string[]> {
  const res = await createHttpApp(runtime).request("/.well-known/scheduling.json");
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { hosts: Array<{ host_id?: string; id?: string; discovery?: string }> };
  return JSON.stringify(doc.hosts).match(/\/hosts\/([a-z0-9_-]+)\/scheduling\.json/g) ?? [];
}

let dir = "";
const open: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-managed-"));
});
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  await rm(dir, { recursive: true, force: true });
});

const gateway = async (opts: Partial<Omit<GatewayRuntimeOptions, "clock">> = {}): Promise<TestGateway> => {
  const gw = await startGateway({ dataDir: dir, managedHostsReconcileMs: false, ...opts });
  open.push(gw);
  return gw;
};

describe("a host activated from the console goes live in the running gateway", () => {
  it("a synthetic host: in the operator document and its own, offering time; deactivated: gone", async () => {
    const gw = await gateway();
    const { runtime, clock } = gw;
    const refused = await slots(runtime, clock, "corner-garage", "oil-change");
    expect(!refused.ok && refused.error.code).toBe("not_found");
    expect(await runtime.managedHosts.idAvailable("corner-garage")).toBe(true);

    const activated = await runtime.managedHosts.activate(record(syntheticConfig("corner-garage")));
    expect(activated.ok, JSON.stringify(activated)).toBe(true);
    expect(activated.ok && activated.value.state).toBe("active");
    expect((await runtime.managedHosts.store.get("corner-garage"))?.state).toBe("active");
    expect(await runtime.managedHosts.idAvailable("corner-garage")).toBe(false);

    // Over real HTTP: the operator document lists it, and its own document is served.
    const operatorDoc = await fetch(`${gw.url}/.well-known/scheduling.json`).then((r) => r.text());
    expect(operatorDoc).toContain("/hosts/corner-garage/scheduling.json");
    expect(operatorDoc).toContain("/hosts/maple-street-auto/scheduling.json");
    const hostDoc = await fetch(`${gw.url}/hosts/corner-garage/scheduling.json`);
    expect(hostDoc.status).toBe(200);
    expect(await hostDoc.text()).toContain("Corner Garage");

    const offered = await slots(runtime, clock, "corner-garage", "oil-change");
    expect(offered.ok, JSON.stringify(offered)).toBe(true);
    expect(offered.ok && offered.value.slots.length).toBeGreaterThan(0);

    await runtime.managedHosts.deactivate("corner-garage");
    expect((await runtime.managedHosts.store.get("corner-garage"))?.state).toBe("disconnected");
    expect(await fetch(`${gw.url}/.well-known/scheduling.json`).then((r) => r.text())).not.toContain(
      "corner-garage",
    );
    expect((await fetch(`${gw.url}/hosts/corner-garage/scheduling.json`)).status).toBe(404);
    const after = await slots(runtime, clock, "corner-garage", "oil-change");
    expect(!after.ok && after.error.code).toBe("not_found");
    // The config file's hosts never moved.
    expect((await slots(runtime, clock, "maple-street-auto", "oil-change")).ok).toBe(true);
  });

  it("an ics-dir calendar host is synced and offers its hours", async () => {
    const calendarDir = join(dir, "ana-calendar");
    mkdirSync(calendarDir);
    const { runtime, clock } = await gateway();
    const activated = await runtime.managedHosts.activate(record(calendarConfig("ana-studio", calendarDir)));
    expect(activated.ok, JSON.stringify(activated)).toBe(true);
    expect(runtime.calendarHosts.map((h) => h.hostId)).toContain("ana-studio");
    // Nothing is offered before its calendar is read.
    const unsynced = await slots(runtime, clock, "ana-studio", "consult");
    expect(unsynced.ok && unsynced.value.slots).toEqual([]);
    expect(await runtime.syncCalendarNow("ana-studio")).toBe(true);
    const offered = await slots(runtime, clock, "ana-studio", "consult");
    expect(offered.ok, JSON.stringify(offered)).toBe(true);
    expect(offered.ok && offered.value.slots[0]?.start).toBe("2026-10-14T09:00:00-04:00");

    await runtime.managedHosts.deactivate("ana-studio");
    expect(runtime.calendarHosts.map((h) => h.hostId)).not.toContain("ana-studio");
    expect(await runtime.syncCalendarNow("ana-studio")).toBe(false);
  });

  it("with workers on, the first calendar host activated starts the calendar sync (none at boot)", async () => {
    const calendarDir = join(dir, "ana-calendar");
    mkdirSync(calendarDir);
    const { runtime, clock } = await gateway({ workers: true });
    const activated = await runtime.managedHosts.activate(record(calendarConfig("ana-studio", calendarDir)));
    expect(activated.ok, JSON.stringify(activated)).toBe(true);
    // The queue's first run syncs it: time is offered without anyone asking for a sync.
    let offered = await slots(runtime, clock, "ana-studio", "consult");
    for (let i = 0; i < 50 && !(offered.ok && offered.value.slots.length > 0); i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      offered = await slots(runtime, clock, "ana-studio", "consult");
    }
    expect(offered.ok && offered.value.slots.length, JSON.stringify(offered)).toBeGreaterThan(0);
    // And the operator's "sync now" reaches it through the queue.
    const res = await createHttpApp(runtime).request("/operator/v0/ana-studio/calendar", {
      headers: { authorization: `Bearer ${runtime.operatorToken}` },
    });
    expect(res.status).toBe(200);
  });

  it("a bad config: a FieldError naming the field in the host entry, nothing stored, nothing served", async () => {
    const { runtime } = await gateway();
    const bad = calendarConfig("ana-studio", join(dir, "nowhere"));
    const hours = [{ day: 1, open: "25:00", close: "17:00" }];
    const r = await runtime.managedHosts.activate(record({ ...bad, calendar: { ...bad.calendar, hours } }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.field).toBe("/calendar/hours/0/open");
    expect(r.error.message.startsWith("/calendar/hours/0/open: ")).toBe(true);
    expect(await runtime.managedHosts.store.list()).toEqual([]);
    expect(runtime.hosts.get("ana-studio")).toBeUndefined();

    const zone = await runtime.managedHosts.activate(
      record({ ...syntheticConfig("corner-garage"), timezone: "Mars/Olympus" }),
    );
    expect(!zone.ok && zone.error.field).toBe("/timezone");
    // A service the catalog lacks: found only by building the host.
    const service = await runtime.managedHosts.activate(
      record({ ...syntheticConfig("corner-garage"), services: [{ service_id: "no-such-service" }] }),
    );
    expect(!service.ok && service.error.field).toMatch(/^\/services\/0/);
    expect(await runtime.managedHosts.store.list()).toEqual([]);
  });

  it("an id the config file uses is refused, and is not available", async () => {
    const { runtime } = await gateway();
    expect(await runtime.managedHosts.idAvailable("maple-street-auto")).toBe(false);
    const r = await runtime.managedHosts.activate(record(syntheticConfig("maple-street-auto")));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.field).toBe("/id");
    expect(await runtime.managedHosts.store.list()).toEqual([]);
    expect(runtime.hosts.get("maple-street-auto")?.config.name).toBe("Maple Street Auto");
  });

  it("activating over a draft needs the draft's updatedAt; a stale one is a conflict", async () => {
    const { runtime } = await gateway();
    const draft = record(syntheticConfig("corner-garage"), { updatedAt: 10 });
    expect(await runtime.managedHosts.store.put(draft)).toBe("ok");
    expect(await runtime.managedHosts.idAvailable("corner-garage")).toBe(false);
    const created = await runtime.managedHosts.activate(draft);
    expect(!created.ok && created.error.code).toBe("exists");
    const stale = await runtime.managedHosts.activate(draft, 9);
    expect(!stale.ok && stale.error.code).toBe("conflict");
    expect(runtime.hosts.get("corner-garage")).toBeUndefined();
    const r = await runtime.managedHosts.activate(draft, 10);
    expect(r.ok && r.value.updatedAt).toBeGreaterThan(10);
    expect(runtime.hosts.get("corner-garage")).toBeDefined();
  });
});

describe("managed hosts survive a restart", () => {
  it("the active ones come back from the data dir; a disconnected one and a broken one do not", async () => {
    const calendarDir = join(dir, "ana-calendar");
    mkdirSync(calendarDir);
    const first = await createGatewayRuntime({
      hosts: embeddedDefaultHosts(),
      publicOrigin: "https://gateway.test",
      dataDir: dir,
      workers: false,
      clock: new TestClock(),
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    });
    try {
      expect((await first.managedHosts.activate(record(syntheticConfig("corner-garage")))).ok).toBe(true);
      expect((await first.managedHosts.activate(record(calendarConfig("ana-studio", calendarDir)))).ok).toBe(
        true,
      );
      expect((await first.managedHosts.activate(record(syntheticConfig("gone-garage")))).ok).toBe(true);
      await first.managedHosts.deactivate("gone-garage");
    } finally {
      await first.close();
    }
    expect((await readdir(join(dir, "hosts"))).filter((n) => n.endsWith(".json")).sort()).toEqual([
      "ana-studio.json",
      "corner-garage.json",
      "gone-garage.json",
    ]);
    // A stored record whose config no longer checks (written by hand, or by an older version).
    const broken = new FileManagedHostStore(dir);
    const brokenConfig = { ...syntheticConfig("broken-garage"), timezone: "Mars/Olympus" };
    expect(await broken.put(record(brokenConfig, { state: "active" }))).toBe("ok");

    const errors: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const clock = new TestClock();
    const second = await createGatewayRuntime({
      hosts: embeddedDefaultHosts(),
      publicOrigin: "https://gateway.test",
      dataDir: dir,
      workers: false,
      clock,
      managedHostsReconcileMs: false,
      logger: {
        info: () => {},
        warn: () => {},
        error: (message, fields) => errors.push({ message, ...(fields !== undefined && { fields }) }),
      },
    });
    try {
      expect(second.hosts.get("corner-garage")).toBeDefined();
      expect(second.hosts.get("gone-garage")).toBeUndefined();
      expect(second.hosts.get("broken-garage")).toBeUndefined();
      expect([...second.managedHosts.liveIds()].sort()).toEqual(["ana-studio", "corner-garage"]);
      expect(errors).toEqual([
        expect.objectContaining({
          message: expect.stringContaining("broken-garage") as unknown,
          fields: expect.objectContaining({ host_id: "broken-garage", field: "/timezone" }) as unknown,
        }),
      ]);
      expect(second.calendarHosts.map((h) => h.hostId)).toEqual(["ana-studio"]);
      expect(await second.syncCalendarNow("ana-studio")).toBe(true);
      expect((await slots(second, clock, "ana-studio", "consult")).ok).toBe(true);
      expect(await discovered(second)).toContain("/hosts/corner-garage/scheduling.json");
      expect((await slots(second, clock, "corner-garage", "oil-change")).ok).toBe(true);
      expect((await slots(second, clock, "maple-street-auto", "oil-change")).ok).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe("two replicas on one Redis", () => {
  it("a host activated on A is served by B after B reconciles; deactivated on B, A drops it", async () => {
    const prefix = `test:managed-rt:${randomBytes(6).toString("hex")}:`;
    const make = (clock: TestClock) =>
      createGatewayRuntime({
        hosts: embeddedDefaultHosts(),
        publicOrigin: "https://gateway.test",
        dataDir: dir,
        redisUrl: REDIS_URL,
        redisKeyPrefix: prefix,
        workers: false,
        clock,
        managedHostsReconcileMs: false,
        logger: { info: () => {}, warn: () => {}, error: () => {} },
      });
    const clockA = new TestClock();
    const clockB = new TestClock();
    const a = await make(clockA);
    const b = await make(clockB);
    try {
      expect((await a.managedHosts.activate(record(syntheticConfig("corner-garage")))).ok).toBe(true);
      expect(b.hosts.get("corner-garage")).toBeUndefined();
      expect(await b.managedHosts.idAvailable("corner-garage")).toBe(false);
      await b.managedHosts.reconcile();
      expect(b.hosts.get("corner-garage")).toBeDefined();
      expect(await discovered(b)).toContain("/hosts/corner-garage/scheduling.json");
      expect((await slots(b, clockB, "corner-garage", "oil-change")).ok).toBe(true);

      await b.managedHosts.deactivate("corner-garage");
      expect(a.hosts.get("corner-garage")).toBeDefined();
      await a.managedHosts.reconcile();
      expect(a.hosts.get("corner-garage")).toBeUndefined();
      expect((await slots(a, clockA, "corner-garage", "oil-change")).ok).toBe(false);
    } finally {
      await a.close();
      await b.close();
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it("the runtime's own timer reconciles (no one calls reconcile)", async () => {
    const prefix = `test:managed-timer:${randomBytes(6).toString("hex")}:`;
    const make = () =>
      createGatewayRuntime({
        hosts: embeddedDefaultHosts(),
        publicOrigin: "https://gateway.test",
        dataDir: dir,
        redisUrl: REDIS_URL,
        redisKeyPrefix: prefix,
        workers: false,
        clock: new TestClock(),
        managedHostsReconcileMs: 50,
        logger: { info: () => {}, warn: () => {}, error: () => {} },
      });
    const a = await make();
    const b = await make();
    try {
      expect((await a.managedHosts.activate(record(syntheticConfig("corner-garage")))).ok).toBe(true);
      for (let i = 0; i < 100 && b.hosts.get("corner-garage") === undefined; i += 1) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(b.hosts.get("corner-garage")).toBeDefined();
    } finally {
      await a.close();
      await b.close();
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
