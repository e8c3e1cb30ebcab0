import { describe, expect, it } from "vitest";
import {
  buildHostRuntime,
  createHostDirectory,
  embeddedDefaultHosts,
} from "../../../src/booking/hosts/index.js";
import { createSyntheticConnector, SYNTHETIC_SCENARIOS } from "../../../src/connectors/synthetic/index.js";
import type { HostRuntime } from "../../../src/booking/api.js";
import { FakeConnector, hostConfig, hostKey, mapleCatalog, NOW } from "../holds/support.js";

async function expectProblem(p: ReturnType<typeof buildHostRuntime>, field: string, code: string) {
  const r = await p;
  expect(r.ok, "expected a runtime error").toBe(false);
  if (r.ok) return;
  expect({ field: r.error.field, code: r.error.code }).toEqual({ field, code });
  expect(r.error.message).toContain(`host maple-street-auto: ${field}`);
}

describe("buildHostRuntime: config and catalog must agree", () => {
  it("reads the catalog once and keeps the keys in order (the first signs)", async () => {
    const connector = new FakeConnector(mapleCatalog());
    const keys = [hostKey("k1"), hostKey("k2")];
    const r = await buildHostRuntime(hostConfig({}, {}, [{ service_id: "oil-change" }]), connector, keys);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.catalog).toBe(connector.data);
    expect(r.value.keys.map((k) => k.kid)).toEqual(["k1", "k2"]);
  });

  it("every ServiceRules.serviceId exists in the catalog", async () => {
    const config = hostConfig({}, {}, [{ service_id: "oil-change" }, { service_id: "tyre-rotation" }]);
    await expectProblem(
      buildHostRuntime(config, new FakeConnector(mapleCatalog()), [hostKey()]),
      "/services/1/service_id",
      "unknown_service",
    );
  });

  it("needs a key, with unique kids (§2.1)", async () => {
    await expectProblem(
      buildHostRuntime(hostConfig(), new FakeConnector(mapleCatalog()), []),
      "/keys",
      "no_keys",
    );
    await expectProblem(
      buildHostRuntime(hostConfig(), new FakeConnector(mapleCatalog()), [hostKey("a"), hostKey("a")]),
      "/keys",
      "duplicate_kid",
    );
  });

  it("an unreadable catalog is not a configuration error: the host starts degraded (health.test.ts)", async () => {
    const connector = new FakeConnector(mapleCatalog());
    connector.catalogFails = true;
    const r = await buildHostRuntime(hostConfig(), connector, [hostKey()]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.health?.health).toBe("degraded");
    expect(r.value.catalog.services).toEqual([]);
  });

  it("the host's zone is the upstream location's", async () => {
    await expectProblem(
      buildHostRuntime(hostConfig({ timezone: "America/Vancouver" }), new FakeConnector(mapleCatalog()), [
        hostKey(),
      ]),
      "/timezone",
      "zone_mismatch",
    );
  });

  it("§5.2: surcharges only on priced services, in the price's currency", async () => {
    const usd = hostConfig({}, {}, [
      {
        service_id: "oil-change",
        surcharges: [{ when: "weekend", label: "W", amount: { amount: "5", currency: "USD" } }],
      },
    ]);
    await expectProblem(
      buildHostRuntime(usd, new FakeConnector(mapleCatalog()), [hostKey()]),
      "/services/0/surcharges/0/amount/currency",
      "currency_mismatch",
    );
    const unpriced = hostConfig({}, {}, [
      { service_id: "diagnosis", surcharges: [{ when: "weekend", label: "W", percent: 5 }] },
    ]);
    await expectProblem(
      buildHostRuntime(unpriced, new FakeConnector(mapleCatalog()), [hostKey()]),
      "/services/0/surcharges/0",
      "unpriced_surcharge",
    );
  });

  it("§7.2: a walk-in reserve names a resource type the host has", async () => {
    const config = hostConfig({}, { walk_in_reserve: [{ resource_type: "chair", keep: 1 }] });
    await expectProblem(
      buildHostRuntime(config, new FakeConnector(mapleCatalog()), [hostKey()]),
      "/policies/walk_in_reserve/0/resource_type",
      "unknown_resource_type",
    );
  });
});

describe("the embedded default on the synthetic connector", () => {
  it("builds all three hosts, and the directory finds them by id", async () => {
    const runtimes: HostRuntime[] = [];
    for (const config of embeddedDefaultHosts()) {
      const scenario = SYNTHETIC_SCENARIOS[String(config.connector.settings.scenario)];
      expect(scenario, config.id).toBeDefined();
      if (scenario === undefined) continue;
      const connector = createSyntheticConnector({ scenario, clock: { now: () => NOW } });
      const r = await buildHostRuntime(config, connector, [hostKey(`${config.id}-2026-10`)]);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      if (r.ok) runtimes.push(r.value);
    }
    const directory = createHostDirectory(runtimes);
    expect(directory.list().map((h) => h.config.id)).toEqual([
      "maple-street-auto",
      "harbourview-dental",
      "fades-on-queen",
    ]);
    expect(directory.get("fades-on-queen")?.catalog.resources.map((r) => r.type)).toEqual([
      "barber",
      "barber",
    ]);
    expect(directory.get("nope")).toBeUndefined();
    expect(() => createHostDirectory([...runtimes, ...runtimes])).toThrow(/twice/);
  });
});
