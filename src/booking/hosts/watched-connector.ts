/**
 * The one place upstream failures reach host health: the host's connector, wrapped so every
 * method that answers a ConnectorResult reports a failure to the host's HostHealth. The
 * booking core, the jobs and reconciliation all call the wrapped connector, so an
 * `unauthorized` from any call (availability, hold, confirm, cancel…) marks the host, without
 * a check at each call site.
 *
 * It also adds each result's upstream metadata to the running edge operation's trail
 * (upstream-trail.ts).
 *
 * A Proxy rather than a hand-written forwarder: every capability a connector offers (and any
 * it gains) is observed, and non-method members (platform, lastUpstream, a test's fault
 * plan) read through unchanged.
 */
import { CAPABILITIES, type ConnectorError, type UpstreamMeta } from "../../connectors/port.js";
import { recordUpstream } from "./upstream-trail.js";
import type { HostHealth } from "./health.js";

function failureOf(value: unknown): ConnectorError | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as { ok?: unknown; error?: unknown };
  if (r.ok !== false || typeof r.error !== "object" || r.error === null) return undefined;
  const code = (r.error as { code?: unknown }).code;
  return typeof code === "string" ? (r.error as ConnectorError) : undefined;
}

/** The capability members of a Connector (connectors/port.ts): their methods are watched too. */
const CAPABILITY_MEMBERS: ReadonlySet<PropertyKey> = new Set(CAPABILITIES);

function metaOf(value: unknown): UpstreamMeta | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const meta = (value as { upstream?: unknown }).upstream;
  return typeof meta === "object" && meta !== null ? (meta as UpstreamMeta) : undefined;
}

export function watchConnector<C extends object>(connector: C, health: HostHealth, path = ""): C {
  // Keyed by the member's current value, so a member replaced later (a test's fault hook) is
  // watched as it is now, never through a wrapper of what it was.
  const wrapped = new WeakMap<object, unknown>();
  return new Proxy(connector, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (path === "" && CAPABILITY_MEMBERS.has(prop) && typeof value === "object" && value !== null) {
        let capability = wrapped.get(value);
        if (capability === undefined) {
          capability = watchConnector(value, health, `${String(prop)}.`);
          wrapped.set(value, capability);
        }
        return capability;
      }
      if (typeof value !== "function") return value;
      let fn = wrapped.get(value);
      if (fn === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        const operation = `${path}${String(prop)}`;
        fn = (...args: unknown[]): unknown => {
          const out = method.apply(target, args);
          if (!(out instanceof Promise)) return out;
          return out.then((result: unknown) => {
            recordUpstream(metaOf(result));
            const failure = failureOf(result);
            if (failure !== undefined) health.upstreamFailed(failure, operation);
            return result;
          });
        };
        wrapped.set(value, fn);
      }
      return fn;
    },
  });
}
