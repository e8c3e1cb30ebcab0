/**
 * The Prometheus form of the Metrics port (src/gateway/metrics): one registry per runtime, so
 * two gateways in one process count apart; a scrape-time source that fails leaves its gauge
 * empty and says so, and the scrape still answers; a rate limit's refusals are counted, its
 * grants are not.
 */
import { describe, expect, it } from "vitest";
import { countedLimiter } from "../../../src/gateway/metrics/counted-limiter.js";
import { createPrometheusMetrics } from "../../../src/gateway/metrics/prometheus.js";
import { MemoryRateLimiter } from "../../../src/edges/http/rate-limit.js";
import { matching, value } from "../../support/prometheus-text.js";

const quiet = { warn: () => undefined };

describe("createPrometheusMetrics", () => {
  it("keeps a registry per runtime: two count apart, under the same names", async () => {
    const a = createPrometheusMetrics(quiet);
    const b = createPrometheusMetrics(quiet);
    a.metrics.booking("osbp", "confirmed");
    a.metrics.booking("osbp", "confirmed");
    b.metrics.booking("a2a", "pending_host");
    a.metrics.upstreamCall({ vendor: "square", endpoint: "bookings.create", outcome: "ok", seconds: 0.2 });
    const textA = (await a.scrape()).body;
    const textB = (await b.scrape()).body;
    expect(value(textA, "booking_gateway_bookings_total", { edge: "osbp", status: "confirmed" })).toBe(2);
    expect(value(textA, "booking_gateway_bookings_total", { edge: "a2a" })).toBe(0);
    expect(value(textB, "booking_gateway_bookings_total", { edge: "a2a", status: "pending_host" })).toBe(1);
    expect(value(textB, "booking_gateway_upstream_calls_total")).toBe(0);
    const call = { vendor: "square", endpoint: "bookings.create" };
    expect(value(textA, "booking_gateway_upstream_call_duration_seconds_count", call)).toBe(1);
    expect(
      value(textA, "booking_gateway_upstream_call_duration_seconds_bucket", { ...call, le: "0.25" }),
    ).toBe(1);
    expect(
      value(textA, "booking_gateway_upstream_call_duration_seconds_bucket", { ...call, le: "0.1" }),
    ).toBe(0);
  });

  it("reads the gauges' sources at scrape time; a failing one leaves its gauge empty and is logged", async () => {
    const warned: string[] = [];
    const prom = createPrometheusMetrics({
      warn: (message, fields) => void warned.push(`${message} ${String(fields?.["source"])}`),
    });
    let pending = 2;
    prom.collectFrom({
      pendingApprovals: () => Promise.resolve(pending),
      queues: () => Promise.reject(new Error("Redis is not answering")),
      calendarLag: () => Promise.resolve([{ hostId: "h1", seconds: 90 }]),
    });
    let text = (await prom.scrape()).body;
    expect(value(text, "booking_gateway_pending_approvals")).toBe(2);
    expect(matching(text, "booking_gateway_queue_jobs")).toEqual([]);
    expect(value(text, "booking_gateway_calendar_sync_lag_seconds", { host: "h1" })).toBe(90);
    expect(warned).toEqual(["a metrics source failed during a scrape queues"]);
    pending = 0;
    text = (await prom.scrape()).body;
    expect(value(text, "booking_gateway_pending_approvals")).toBe(0);
  });

  it("counts a rate limit's refusals by its name, not its grants", async () => {
    const prom = createPrometheusMetrics(quiet);
    const limiter = countedLimiter(
      new MemoryRateLimiter({ capacity: 1, refillPerSec: 0.001 }),
      "origin",
      prom.metrics,
    );
    expect((await limiter.take("o1", 0)).ok).toBe(true);
    expect((await limiter.take("o1", 0)).ok).toBe(false);
    expect((await limiter.take("o2", 0)).ok).toBe(true);
    const text = (await prom.scrape()).body;
    expect(value(text, "booking_gateway_rate_limited_total", { limit: "origin" })).toBe(1);
  });
});
