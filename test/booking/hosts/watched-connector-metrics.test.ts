/**
 * The watched connector counts each port call (src/booking/hosts/watched-connector.ts;
 * docs/ARCHITECTURE.md, Metrics): by the connector's vendor, the port operation as a fixed name,
 * and the outcome, "ok" or the connector's error code, or "error" when the call threw. The
 * connector's own members that are not ports are not counted.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_HEALTH_POLICY, HostHealth } from "../../../src/booking/hosts/index.js";
import { watchConnector } from "../../../src/booking/hosts/watched-connector.js";
import { noMetrics, type Metrics, type UpstreamCallSample } from "../../../src/protocol/metrics.js";

function recording(): { metrics: Metrics; calls: UpstreamCallSample[] } {
  const calls: UpstreamCallSample[] = [];
  return { metrics: { ...noMetrics, upstreamCall: (s) => void calls.push(s) }, calls };
}

const meta = { call: "POST /v2/bookings", status: 429, request_id: "r-1" };

const connector = {
  platform: { vendor: "square", api_version: "2026-08-20" },
  kind: "platform" as const,
  bookings: {
    create: () =>
      Promise.resolve({
        ok: false,
        error: { code: "rate_limited", message: "wait", retryAfterMs: 1_000 },
        upstream: meta,
      }),
    get: () => Promise.resolve({ ok: true, value: null, upstream: { ...meta, status: 200 } }),
    cancel: () => Promise.reject(new Error("a connector bug")),
  },
  lastCodeFor: () => Promise.resolve("123456"),
};

describe("watched connector: upstream calls counted", () => {
  it("by vendor, operation and outcome, with a duration; a throw is counted as error", async () => {
    const { metrics, calls } = recording();
    const health = new HostHealth("h1", { now: () => 0 }, DEFAULT_HEALTH_POLICY);
    const watched = watchConnector(connector, health, { metrics, vendor: "square" });
    await watched.bookings.create();
    await watched.bookings.get();
    await expect(watched.bookings.cancel()).rejects.toThrow("a connector bug");
    await watched.lastCodeFor();
    expect(calls.map(({ seconds: _s, ...rest }) => rest)).toEqual([
      { vendor: "square", endpoint: "bookings.create", outcome: "rate_limited" },
      { vendor: "square", endpoint: "bookings.get", outcome: "ok" },
      { vendor: "square", endpoint: "bookings.cancel", outcome: "error" },
    ]);
    for (const c of calls) expect(c.seconds).toBeGreaterThanOrEqual(0);
  });
});
