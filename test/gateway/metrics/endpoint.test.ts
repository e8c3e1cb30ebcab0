/**
 * Who may read GET /metrics (METRICS; src/gateway/metrics/endpoint.ts): by default only the
 * operator credential as a bearer, as the operator API; with "on" anyone who reaches the port;
 * with "off" there is no such route. And the setting as `serve` reads it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { embeddedDefaultHosts } from "../../../src/booking/hosts/index.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { readServeEnv } from "../../../src/gateway/cli/serve-env.js";
import type { MetricsAccess } from "../../../src/gateway/metrics/endpoint.js";
import { createGatewayRuntime, type GatewayRuntime } from "../../../src/gateway/runtime/runtime.js";

const dirs: string[] = [];
const runtimes: GatewayRuntime[] = [];
afterAll(async () => {
  for (const r of runtimes) await r.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function appWith(metrics?: MetricsAccess) {
  const dataDir = mkdtempSync(join(tmpdir(), "metrics-endpoint-"));
  dirs.push(dataDir);
  const runtime = await createGatewayRuntime({
    hosts: embeddedDefaultHosts().slice(0, 1),
    publicOrigin: "https://gateway.test",
    dataDir,
    workers: false,
    managedHostsReconcileMs: false,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    ...(metrics !== undefined && { metrics }),
  });
  runtimes.push(runtime);
  return { app: createHttpApp(runtime), bearer: { authorization: `Bearer ${runtime.operatorToken}` } };
}

describe("GET /metrics access", () => {
  it("by default: the operator credential only (401 without it, nothing counted said)", async () => {
    const { app, bearer } = await appWith();
    const anonymous = await app.request("/metrics");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain("booking_gateway_");
    const scraped = await app.request("/metrics", { headers: bearer });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("cache-control")).toBe("no-store");
    expect(await scraped.text()).toContain("booking_gateway_holds_granted_total 0");
  });

  it('"on": open to anyone who reaches the port', async () => {
    const { app } = await appWith("on");
    const res = await app.request("/metrics");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("# TYPE booking_gateway_bookings_total counter");
  });

  it('"off": no route, whatever the credential', async () => {
    const { app, bearer } = await appWith("off");
    expect((await app.request("/metrics", { headers: bearer })).status).toBe(404);
  });

  it("serve reads METRICS: token by default, on, off; anything else is a start error", () => {
    const read = (env: Record<string, string>) => readServeEnv(env, "/tmp");
    const setting = (env: Record<string, string>) => {
      const r = read(env);
      return r.ok ? r.value.metrics : r.error;
    };
    expect(setting({})).toBe("token");
    expect(setting({ METRICS: "on" })).toBe("on");
    expect(setting({ METRICS: "off" })).toBe("off");
    expect(setting({ METRICS: "token" })).toBe("token");
    expect(setting({ METRICS: "yes" })).toBe('METRICS must be token, on or off, got "yes"');
  });
});
