/**
 * The one place upstream failures reach host health: the host's connector, wrapped so every
 * method that answers a ConnectorResult reports a failure to the host's HostHealth. The
 * booking core, the jobs and reconciliation all call the wrapped connector, so an
 * `unauthorized` from any call (availability, hold, confirm, cancel…) marks the host, without
 * a check at each call site.
 *
 * It also adds each result's upstream metadata to the running edge operation's trail
 * (upstream-trail.ts), counts the call by vendor, operation ("bookings.create": the port's
 * method, a fixed name) and outcome with its duration (src/protocol/metrics.ts), and runs it in
 * a span of its own, the child of the core's operation, carrying the upstream's request id
 * (src/protocol/tracing.ts). The connector's HTTP client opens one span per request inside it.
 *
 * A Proxy rather than a hand-written forwarder: every capability a connector offers (and any
 * it gains) is observed, and non-method members (platform, lastUpstream, a test's fault
 * plan) read through unchanged.
 */
import { performance } from "node:perf_hooks";
import { CAPABILITIES, type ConnectorError, type UpstreamMeta } from "../../connectors/port.js";
import { noMetrics, type Metrics } from "../../protocol/metrics.js";
import { failSpan, inSpan, type Span } from "../../protocol/tracing.js";
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

/** Who counts the calls and under which vendor (the connector's platform). */
export interface CallObserver {
  readonly metrics: Metrics;
  readonly vendor: string;
}

export function watchConnector<C extends object>(
  connector: C,
  health: HostHealth,
  observer: CallObserver = { metrics: noMetrics, vendor: vendorOf(connector) },
  path = "",
): C {
  // Keyed by the member's current value, so a member replaced later (a test's fault hook) is
  // watched as it is now, never through a wrapper of what it was.
  const wrapped = new WeakMap<object, unknown>();
  return new Proxy(connector, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (path === "" && CAPABILITY_MEMBERS.has(prop) && typeof value === "object" && value !== null) {
        let capability = wrapped.get(value);
        if (capability === undefined) {
          capability = watchConnector(value, health, observer, `${String(prop)}.`);
          wrapped.set(value, capability);
        }
        return capability;
      }
      if (typeof value !== "function") return value;
      let fn = wrapped.get(value);
      if (fn === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        const operation = `${path}${String(prop)}`;
        const settle = (result: unknown): unknown => {
          recordUpstream(metaOf(result));
          const failure = failureOf(result);
          if (failure !== undefined) health.upstreamFailed(failure, operation);
          return result;
        };
        // A port's method (path set) is an upstream call: counted and traced. The connector's
        // own members (a test hook, the synthetic platform's readBusy) are only watched.
        fn =
          path === ""
            ? (...args: unknown[]): unknown => {
                const out = method.apply(target, args);
                return out instanceof Promise ? out.then(settle) : out;
              }
            : (...args: unknown[]): unknown =>
                observedCall(observer, operation, () => method.apply(target, args), settle);
        wrapped.set(value, fn);
      }
      return fn;
    },
  });
}

/** The vendor a connector names (its platform), for the labels; "unknown" for a bare object. */
function vendorOf(connector: object): string {
  const platform = (connector as { platform?: { vendor?: unknown } }).platform;
  return typeof platform?.vendor === "string" ? platform.vendor : "unknown";
}

/**
 * One port call, counted and in its span (also for a port reached without the watched
 * connector: the calendar sync's reads). A method that answers synchronously (none of the
 * ports' today) is passed through as it is, and not counted.
 */
export function observedCall(
  observer: CallObserver,
  operation: string,
  call: () => unknown,
  settle: (result: unknown) => unknown = (result) => result,
): unknown {
  let sync: { value: unknown } | undefined;
  const traced = inSpan(
    `upstream ${operation}`,
    { kind: "client", attributes: { "upstream.vendor": observer.vendor, "upstream.operation": operation } },
    async (span) => {
      const started = performance.now();
      let outcome = "error";
      try {
        const out = call();
        if (!(out instanceof Promise)) {
          sync = { value: out };
          outcome = "ok";
          return out;
        }
        const result = settle(await out);
        outcome = outcomeOf(result);
        describe(span, result, outcome);
        return result;
      } finally {
        // A synchronous answer made no upstream call: nothing to count.
        if (sync === undefined)
          observer.metrics.upstreamCall({
            vendor: observer.vendor,
            endpoint: operation,
            outcome,
            seconds: (performance.now() - started) / 1000,
          });
      }
    },
  );
  // inSpan ran `call` before it returned: a synchronous answer is handed back as it was.
  return sync !== undefined ? sync.value : traced;
}

/** "ok", the connector error code, or "ok" for a method that answers no ConnectorResult. */
function outcomeOf(result: unknown): string {
  return failureOf(result)?.code ?? "ok";
}

function describe(span: Span, result: unknown, outcome: string): void {
  const meta = metaOf(result);
  span.setAttribute("upstream.outcome", outcome);
  if (meta?.request_id !== undefined) span.setAttribute("upstream.request_id", meta.request_id);
  if (meta !== undefined && meta.status > 0) span.setAttribute("http.response.status_code", meta.status);
  if (meta?.replay === true) span.setAttribute("upstream.replay", true);
  if (outcome !== "ok") failSpan(span, outcome);
}
