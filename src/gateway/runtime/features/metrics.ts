/**
 * Metrics (docs/ARCHITECTURE.md, Metrics): this runtime's own Prometheus registry
 * (src/gateway/metrics), the Metrics port every other feature records through (handed out in
 * RuntimeBasics), and GET /metrics unless METRICS=off. The gauges read at scrape time are
 * pointed at the runtime's queues and stores once they exist (`collectFrom`).
 */
import type { Logger } from "../../../protocol/logger.js";
import type { MetricsEndpoint } from "../../metrics/endpoint.js";
import { createPrometheusMetrics, type PrometheusMetrics } from "../../metrics/prometheus.js";
import type { GatewayRuntimeOptions } from "../options.js";

export type MetricsFeatureOptions = Pick<GatewayRuntimeOptions, "metrics">;

export interface MetricsFeature {
  readonly prometheus: PrometheusMetrics;
  /** What the HTTP app serves at /metrics; absent with METRICS=off. */
  readonly endpoint?: MetricsEndpoint;
}

/** Nothing to close: the registry holds no timer or connection. */
export function mountMetrics(opts: MetricsFeatureOptions, logger: Pick<Logger, "warn">): MetricsFeature {
  const prometheus = createPrometheusMetrics(logger);
  const access = opts.metrics ?? "token";
  return {
    prometheus,
    ...(access !== "off" && { endpoint: { open: access === "on", scrape: () => prometheus.scrape() } }),
  };
}
