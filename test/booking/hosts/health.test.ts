import { describe, expect, it } from "vitest";
import { availability } from "../../../src/edges/schcp/availability.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import {
  buildHostRuntime,
  HostHealth,
  refreshDueCatalogs,
  createHostDirectory,
} from "../../../src/booking/hosts/index.js";
import type { HealthTransition, HostHealthPolicy } from "../../../src/booking/hosts/index.js";
import type {
  Catalog,
  CatalogSource,
  ConnectorError,
  ConnectorResult,
} from "../../../src/connectors/port.js";
import { err, ok } from "../../../src/protocol/result.js";
import {
  agent,
  caller,
  deps,
  FakeConnector,
  hostConfig,
  hostKey,
  mapleCatalog,
  NOW,
  refusalOf,
  thumb,
  valueOf,
} from "../holds/support.js";

const POLICY: HostHealthPolicy = { refreshMs: 300_000, retryMs: 5_000, reconnectMs: 600_000 };
const HOST = "maple-street-auto";
const down = (code: ConnectorError["code"], extra: Partial<ConnectorError> = {}): ConnectorError => ({
  code,
  message: `upstream said ${code}`,
  ...extra,
});

function settable(t = NOW) {
  return { now: () => t, set: (ms: number) => (t = ms), advance: (ms: number) => (t += ms) };
}

/** A fake whose catalog read answers what the test says. */
class CatalogSwitch extends FakeConnector {
  catalogError: ConnectorError | undefined;
  catalogReads = 0;
  override readonly catalog: CatalogSource = {
    read: (): Promise<ConnectorResult<Catalog>> => {
      this.catalogReads++;
      return Promise.resolve(this.catalogError === undefined ? ok(this.data) : err(this.catalogError));
    },
  };
}

describe("HostHealth: transitions (ok | degraded | needs_reconnection)", () => {
  it("a read catalog is ok; failing calls degrade; only a catalog read recovers", () => {
    const clock = settable();
    const h = new HostHealth(HOST, clock, POLICY);
    const seen: HealthTransition[] = [];
    h.onTransition((c) => seen.push(c));
    h.catalogRead(mapleCatalog());
    expect(h.status()).toMatchObject({
      health: "ok",
      since: NOW,
      catalogReadAt: NOW,
      nextCheckAt: NOW + 300_000,
    });

    clock.advance(1_000);
    h.upstreamFailed(down("unavailable"), "findAvailability");
    h.upstreamFailed(down("timeout"), "findAvailability");
    expect(h.status()).toMatchObject({ health: "degraded", since: NOW + 1_000 });
    expect(h.status().lastError).toMatchObject({
      code: "timeout",
      message: "findAvailability: upstream said timeout",
    });
    // A failing call brings the next read forward to the first retry.
    expect(h.status().nextCheckAt).toBe(NOW + 1_000 + 5_000);
    expect(h.catalog, "a degraded host keeps the catalog it had").toBeDefined();

    // Answers that are not failures change nothing.
    h.upstreamFailed(down("slot_taken"), "createBooking");
    h.upstreamFailed(down("not_found"), "getBooking");
    expect(h.health).toBe("degraded");

    clock.advance(5_000);
    h.catalogRead(mapleCatalog());
    expect(h.health).toBe("ok");
    expect(h.status().lastError?.code, "the last error is kept after recovery").toBe("timeout");
    expect(seen.map((c) => `${c.from}->${c.to}`)).toEqual(["starting->ok", "ok->degraded", "degraded->ok"]);
  });

  it("unauthorized from any call needs reconnection; a 503 meanwhile does not hide it", () => {
    const clock = settable();
    const h = new HostHealth(HOST, clock, POLICY);
    const seen: HealthTransition[] = [];
    h.onTransition((c) => seen.push(c));
    h.catalogRead(mapleCatalog());
    h.upstreamFailed(down("unauthorized"), "cancelBooking");
    h.upstreamFailed(down("unauthorized"), "findAvailability");
    h.upstreamFailed(down("unavailable"), "getBooking");
    expect(h.status()).toMatchObject({ health: "needs_reconnection", nextCheckAt: NOW + 600_000 });
    expect(h.status().lastError?.code).toBe("unavailable");
    expect(
      seen.map((c) => c.to),
      "told once per transition, not per call",
    ).toEqual(["ok", "needs_reconnection"]);
    expect(seen[1]?.error?.message).toBe("cancelBooking: upstream said unauthorized");
    h.catalogRead(mapleCatalog());
    expect(h.health).toBe("ok");
  });

  it("a degraded host retries sooner, doubling per failed read up to the refresh interval", () => {
    const clock = settable();
    const h = new HostHealth(HOST, clock, POLICY);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      h.upstreamFailed(down("unavailable"), "catalog");
      waits.push(h.status().nextCheckAt - clock.now());
      clock.set(h.status().nextCheckAt);
    }
    expect(waits).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    // Never before the platform's Retry-After.
    const h2 = new HostHealth(HOST, settable(), POLICY);
    h2.upstreamFailed(down("rate_limited", { retryAfterMs: 60_000 }), "catalog");
    expect(h2.status().nextCheckAt).toBe(NOW + 60_000);
    expect(h2.due(NOW + 59_999)).toBe(false);
    expect(h2.due(NOW + 60_000)).toBe(true);
  });
});

describe("buildHostRuntime with health", () => {
  it("an upstream failing at start is a degraded host with no catalog, not an error", async () => {
    const connector = new CatalogSwitch(mapleCatalog());
    connector.catalogError = down("unavailable");
    const seen: HealthTransition[] = [];
    const r = valueOf2(
      await buildHostRuntime(hostConfig(), connector, [hostKey()], {
        clock: settable(),
        healthPolicy: POLICY,
        onHealth: (c) => seen.push(c),
      }),
    );
    expect(r.health?.status()).toMatchObject({ health: "degraded", nextCheckAt: NOW + 5_000 });
    expect(r.health?.status().catalogReadAt).toBeUndefined();
    expect(r.catalog.services, "no catalog yet: nothing to offer").toEqual([]);
    expect(seen.map((c) => [c.from, c.to, c.error?.code])).toEqual([["starting", "degraded", "unavailable"]]);

    connector.catalogError = undefined;
    const after = await r.refreshCatalog?.();
    expect(after).toMatchObject({ health: "ok", catalogReadAt: NOW });
    expect(r.catalog).toBe(connector.data);
  });

  it("unauthorized at start needs reconnection", async () => {
    const connector = new CatalogSwitch(mapleCatalog());
    connector.catalogError = down("unauthorized");
    const r = valueOf2(await buildHostRuntime(hostConfig(), connector, [hostKey()], { clock: settable() }));
    expect(r.health?.health).toBe("needs_reconnection");
  });

  it("a refreshed catalog that no longer fits the config is not taken: the old one serves, degraded", async () => {
    const connector = new CatalogSwitch(mapleCatalog());
    const config = hostConfig({}, {}, [{ service_id: "oil-change" }]);
    const r = valueOf2(await buildHostRuntime(config, connector, [hostKey()], { clock: settable() }));
    const before = r.catalog;
    (connector as { data: Catalog }).data = mapleCatalog({
      services: mapleCatalog().services.filter((s) => s.id !== "oil-change"),
    });
    const after = await r.refreshCatalog?.();
    expect(after?.health).toBe("degraded");
    expect(after?.lastError).toMatchObject({ code: "catalog_invalid" });
    expect(after?.lastError?.message).toContain("/services/0/service_id");
    expect(r.catalog).toBe(before);
  });

  it("refreshDueCatalogs reads only the hosts that are due", async () => {
    const clock = settable();
    const connector = new CatalogSwitch(mapleCatalog());
    const r = valueOf2(
      await buildHostRuntime(hostConfig(), connector, [hostKey()], { clock, healthPolicy: POLICY }),
    );
    const hosts = createHostDirectory([r]);
    expect(await refreshDueCatalogs(hosts, clock.now())).toEqual([]);
    clock.advance(300_000);
    expect(await refreshDueCatalogs(hosts, clock.now())).toEqual([HOST]);
    expect(connector.catalogReads).toBe(2);
  });
});

describe("the booking core refuses an unhealthy host's time (§9.2)", () => {
  const body = {
    service_id: "oil-change",
    window: { start: "2026-10-15T12:00:00-04:00", end: "2026-10-15T17:00:00-04:00" },
  };

  it("unauthorized on availability: needs_reconnection, refused with no retry; later calls never reach the upstream", async () => {
    const connector = new CatalogSwitch(mapleCatalog());
    const r = valueOf2(await buildHostRuntime(hostConfig(), connector, [hostKey()], { clock: settable() }));
    const d = deps([r]);
    connector.failWith = down("unauthorized");
    const first = refusalOf(
      await availability(d, HOST, { agentKey: thumb(agent) }, body),
      "UPSTREAM_UNAVAILABLE",
      "host_needs_reconnection",
    );
    expect(first.retryAfterMs).toBeUndefined();
    expect(first.remedies?.map((m) => m.type)).toEqual(["contact"]);
    expect(r.health?.health).toBe("needs_reconnection");

    const calls = connector.calls.length;
    connector.failWith = undefined;
    refusalOf(
      await availability(d, HOST, { agentKey: thumb(agent) }, body),
      "UPSTREAM_UNAVAILABLE",
      "host_needs_reconnection",
      { policy: "host_health", health: "needs_reconnection" },
    );
    const held = await placeHold(d, HOST, await caller(), {
      idempotency_key: "k1",
      service_id: "oil-change",
      start: "2026-10-15T13:00:00-04:00",
    });
    refusalOf(held, "UPSTREAM_UNAVAILABLE", "host_needs_reconnection");
    expect(connector.calls.length, "refused before the upstream").toBe(calls);

    // The credential fixed, a refresh recovers the host.
    await r.refreshCatalog?.();
    expect(
      valueOf(await availability(d, HOST, { agentKey: thumb(agent) }, body)).slots.length,
    ).toBeGreaterThan(0);
  });

  it("degraded without a catalog: retryable 503 with Retry-After until the next read", async () => {
    const clock = settable();
    const connector = new CatalogSwitch(mapleCatalog());
    connector.catalogError = down("timeout");
    const r = valueOf2(
      await buildHostRuntime(hostConfig(), connector, [hostKey()], { clock, healthPolicy: POLICY }),
    );
    const d = deps([r]);
    const refused = refusalOf(
      await availability(d, HOST, { agentKey: thumb(agent) }, body),
      "UPSTREAM_UNAVAILABLE",
      "upstream_unavailable",
    );
    expect(refused.retryAfterMs).toBe(5_000);
    expect(connector.calls).toEqual([]);
  });
});

function valueOf2<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
