/**
 * End to end, over real HTTP: host health. One host's upstream fails at start:
 * the gateway starts anyway, that host is degraded and refuses its time with a retryable 503
 * while the others serve, and the catalog refresh job brings it back once its upstream
 * answers. A host whose upstream answers `unauthorized` is shown as needs_reconnection in the
 * operator API, its time is refused with host_needs_reconnection and no retry (§9.2), the
 * operator is told once, and a fixed credential recovers through the slow refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyHoldOffer } from "../../src/agent/index.js";
import { FaultPlan } from "../../src/connectors/synthetic/index.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import {
  DAY_MS,
  HOUR_MS,
  discover,
  freeSlots,
  must,
  newAgent,
  openMandate,
  refusalOf,
} from "./support/agents.js";
import { defaultConfig, startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

const MAPLE = "maple-street-auto";
const DENTAL = "harbourview-dental";
const FADES = "fades-on-queen";
const RETRY_MS = 1_000;
const REFRESH_MS = 60_000;
const RECONNECT_MS = 120_000;

interface HostView {
  host_id: string;
  name: string;
  health: string;
  since: string;
  last_error?: { code: string; message: string; at: string };
  catalog_read_at?: string;
  next_check_at: string;
}

let gw: E2eGateway;
const faults = { [MAPLE]: new FaultPlan(), [DENTAL]: new FaultPlan(), [FADES]: new FaultPlan() };

beforeAll(async () => {
  faults[DENTAL].next("catalog", "unavailable", Infinity);
  gw = await startGateway({
    runtime: {
      syntheticFaults: (hostId) => faults[hostId as keyof typeof faults],
      hostHealth: { retryMs: RETRY_MS, refreshMs: REFRESH_MS, reconnectMs: RECONNECT_MS },
      workers: { catalogTickMs: 20 },
    },
  });
});
afterAll(async () => {
  await gw?.close();
});

async function hosts(auth = true): Promise<{ status: number; json: { hosts?: HostView[] } }> {
  const res = await fetch(`${gw.origin}/operator/v0/hosts`, { headers: auth ? gw.operatorAuth : {} });
  return { status: res.status, json: (await res.json()) as { hosts?: HostView[] } };
}

async function health(hostId: string): Promise<HostView> {
  const res = await fetch(`${gw.origin}/operator/v0/${hostId}/health`, { headers: gw.operatorAuth });
  expect(res.status).toBe(200);
  return (await res.json()) as HostView;
}

/** Polls the operator API until the host is in `state` (the refresh job runs on its own timer). */
async function until(hostId: string, state: string, check: (v: HostView) => boolean = () => true) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const view = await health(hostId);
    if (view.health === state && check(view)) return view;
    if (Date.now() > deadline) throw new Error(`${hostId} stayed ${JSON.stringify(view)}, not ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const window = (tz: string) => ({
  start: formatInstant(gw.clock.now() + 2 * DAY_MS, tz),
  end: formatInstant(gw.clock.now() + 3 * DAY_MS, tz),
});
const hourAhead = (days: number) =>
  formatInstant(Math.ceil((gw.clock.now() + days * DAY_MS) / HOUR_MS) * HOUR_MS, "America/Halifax");

describe("a host whose upstream fails at start", () => {
  it("is degraded while the others serve; the operator is told loudly", async () => {
    const loud = gw.logs.filter((l) => l.level === "error" && l.message.includes("HOST DEGRADED AT START"));
    expect(loud.map((l) => l.fields?.["host_id"])).toEqual([DENTAL]);

    expect((await hosts(false)).status, "the operator credential is needed").toBe(401);
    const listed = await hosts();
    expect(listed.status).toBe(200);
    const byId = new Map(listed.json.hosts?.map((h) => [h.host_id, h]));
    expect([...byId.keys()]).toEqual([MAPLE, DENTAL, FADES]);
    expect(byId.get(DENTAL)).toMatchObject({ health: "degraded", last_error: { code: "unavailable" } });
    expect(byId.get(DENTAL)?.catalog_read_at).toBeUndefined();
    expect(byId.get(MAPLE)).toMatchObject({ health: "ok", name: "Maple Street Auto" });
    expect(byId.get(MAPLE)?.catalog_read_at).toMatch(/Z$/);

    const agent = newAgent(gw);
    const maple = await discover(agent, gw, MAPLE);
    expect((await freeSlots(agent, gw, maple, "oil-change")).length).toBeGreaterThan(0);

    // Discovery still lists the degraded host; it has no services to publish yet.
    const dental = await discover(agent, gw, DENTAL);
    expect(dental.document.services).toEqual([]);
    const asked = await agent.client.availability(dental, {
      service_id: "cleaning",
      window: window("America/Halifax"),
    });
    expect(refusalOf(asked)).toMatchObject({
      status: 503,
      code: "UPSTREAM_UNAVAILABLE",
      reason: "upstream_unavailable",
    });
    expect(!asked.ok && asked.error.retryAfterSec).toBeGreaterThanOrEqual(1);
    const m = await openMandate(agent, DENTAL);
    const held = await agent.client.hold(
      dental,
      { service_id: "cleaning", start: hourAhead(2) },
      { mandate: m.compact },
    );
    expect(refusalOf(held)).toMatchObject({ status: 503, reason: "upstream_unavailable" });
  });

  it("recovers through the refresh job once its upstream answers", async () => {
    faults[DENTAL].clear();
    gw.clock.advance(REFRESH_MS);
    const view = await until(DENTAL, "ok");
    expect(view.catalog_read_at).toBeDefined();
    expect(view.last_error?.code, "the last failure stays visible").toBe("unavailable");
    expect(gw.logs.some((l) => l.level === "info" && l.message.includes(`${DENTAL} is healthy again`))).toBe(
      true,
    );

    const agent = newAgent(gw);
    const dental = await discover(agent, gw, DENTAL);
    expect(dental.document.services.map((s) => s.id)).toContain("cleaning");
    expect((await freeSlots(agent, gw, dental, "cleaning")).length).toBeGreaterThan(0);
  });
});

describe("an upstream that answers unauthorized", () => {
  it("needs reconnection: shown to the operator, its time refused with a clear reason and no retry", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, MAPLE);
    const [slot] = await freeSlots(agent, gw, maple, "oil-change");
    const m = await openMandate(agent, MAPLE);
    const hold = must(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start },
        { mandate: m.compact },
      ),
      "hold",
    );
    const offer = must(await verifyHoldOffer(hold.body, maple), "offer");

    // The business revoked the gateway's access: the confirm's upstream create says 401.
    faults[MAPLE].next("createBooking", "unauthorized");
    const confirmed = await agent.client.confirm(
      maple,
      hold.body.hold_id,
      { offer_sha256: offer.offer.sha256 },
      { mandate: m.compact },
    );
    const refusal = refusalOf(confirmed);
    expect(refusal).toMatchObject({
      status: 503,
      code: "UPSTREAM_UNAVAILABLE",
      reason: "host_needs_reconnection",
    });
    expect(refusal.retry, "no retry.after: trying again cannot help").toBeUndefined();
    expect(!confirmed.ok && confirmed.error.retryAfterSec, "no Retry-After").toBeUndefined();
    expect(refusal.remedies?.map((r) => r.type)).toEqual(["contact"]);

    const view = await health(MAPLE);
    expect(view).toMatchObject({ health: "needs_reconnection", last_error: { code: "unauthorized" } });
    expect(view.last_error?.message).toContain("bookings.create");

    // Its time is refused before the upstream is asked; the other hosts serve.
    const asked = await agent.client.availability(maple, {
      service_id: "oil-change",
      window: window("America/Toronto"),
    });
    expect(refusalOf(asked)).toMatchObject({ status: 503, reason: "host_needs_reconnection" });
    expect(!asked.ok && asked.error.retryAfterSec).toBeUndefined();
    const again = await agent.client.hold(
      maple,
      { service_id: "oil-change", start: slot!.start },
      { mandate: m.compact },
    );
    expect(refusalOf(again)).toMatchObject({ status: 503, reason: "host_needs_reconnection" });
    const fades = await discover(agent, gw, FADES);
    expect((await freeSlots(agent, gw, fades, "haircut")).length).toBeGreaterThan(0);

    const told = gw.logs.filter((l) => l.message.includes("HOST NEEDS RECONNECTION"));
    expect(
      told.map((l) => [l.level, l.fields?.["host_id"]]),
      "told once, not per call",
    ).toEqual([["error", MAPLE]]);
  });

  it("keeps trying slowly: still refused while the credential is bad, ok once it is fixed", async () => {
    const before = await health(MAPLE);
    faults[MAPLE].next("catalog", "unauthorized");
    gw.clock.advance(RECONNECT_MS);
    const still = await until(MAPLE, "needs_reconnection", (v) => v.next_check_at !== before.next_check_at);
    expect(faults[MAPLE].pending(), "the refresh asked the upstream").toEqual([]);
    expect(still.last_error?.message).toContain("catalog");

    gw.clock.advance(RECONNECT_MS);
    await until(MAPLE, "ok");
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, MAPLE);
    expect((await freeSlots(agent, gw, maple, "oil-change")).length).toBeGreaterThan(0);
    expect(gw.logs.filter((l) => l.message.includes("HOST NEEDS RECONNECTION"))).toHaveLength(1);
  });

  it("an operator can read the catalog at once after reconnecting", async () => {
    faults[FADES].next("findAvailability", "unauthorized");
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, FADES);
    const asked = await agent.client.availability(fades, {
      service_id: "haircut",
      window: window("America/Toronto"),
    });
    expect(refusalOf(asked)).toMatchObject({ reason: "host_needs_reconnection" });
    const res = await fetch(`${gw.origin}/operator/v0/${FADES}/health/refresh`, {
      method: "POST",
      headers: gw.operatorAuth,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as HostView).health).toBe("ok");
    expect((await freeSlots(agent, gw, fades, "haircut")).length).toBeGreaterThan(0);
  });
});

describe("configuration errors still stop the start", () => {
  it("a configured service the catalog lacks names the field", async () => {
    const config = defaultConfig();
    const maple = config.hosts.find((h) => h.id === MAPLE)!;
    maple["services"] = [{ service_id: "no-such-service" }];
    await expect(startGateway({ config })).rejects.toThrow(/\/hosts\/0\/services\/0\/service_id/);
  });
});
