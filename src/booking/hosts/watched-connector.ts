/**
 * The one place upstream failures reach host health: the host's connector, wrapped so every
 * method that answers a ConnectorResult reports a failure to the host's HostHealth. The
 * booking core, the jobs and reconciliation all call the wrapped connector, so an
 * `unauthorized` from any call (availability, hold, confirm, cancel…) marks the host, without
 * a check at each call site.
 *
 * A Proxy rather than a hand-written forwarder: every capability a connector offers (and any
 * it gains) is observed, and non-method members (platform, lastUpstream, a test's fault
 * plan) read through unchanged.
 */
import type { ConnectorError } from "../../connectors/port.js";
import type { HostHealth } from "./health.js";

function failureOf(value: unknown): ConnectorError | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as { ok?: unknown; error?: unknown };
  if (r.ok !== false || typeof r.error !== "object" || r.error === null) return undefined;
  const code = (r.error as { code?: unknown }).code;
  return typeof code === "string" ? (r.error as ConnectorError) : undefined;
}

export function watchConnector<C extends object>(connector: C, health: HostHealth): C {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(connector, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      let fn = wrapped.get(prop);
      if (fn === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        const operation = String(prop);
        fn = (...args: unknown[]): unknown => {
          const out = method.apply(target, args);
          if (!(out instanceof Promise)) return out;
          return out.then((result: unknown) => {
            const failure = failureOf(result);
            if (failure !== undefined) health.upstreamFailed(failure, operation);
            return result;
          });
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
