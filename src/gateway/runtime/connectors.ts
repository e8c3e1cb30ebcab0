/**
 * One Connector per configured host, from its `connector: { type, settings }`. Only the
 * synthetic platform exists so far; its settings name the scenario (the synthetic platform's
 * own data). With Redis, every process's synthetic connector shares one appointment store,
 * the way several gateway processes share one real platform.
 */
import type { Clock, HostConfig } from "../../booking/api.js";
import type { Connector } from "../../connectors/port.js";
import { createSyntheticConnector, SYNTHETIC_SCENARIOS } from "../../connectors/synthetic/index.js";
import type { FaultPlan, SyntheticBackend, SyntheticMessageSink } from "../../connectors/synthetic/index.js";
import { err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";

export interface ConnectorDeps {
  readonly clock: Clock;
  /** The synthetic platform's appointment store, shared by every synthetic host. */
  readonly syntheticBackend: SyntheticBackend;
  /** Receives every verification message a synthetic platform sends (default: none kept). */
  readonly syntheticMessages?: SyntheticMessageSink;
  /** Test hook: the fault plan of a host's synthetic connector, by host id. */
  readonly syntheticFaults?: (hostId: string) => FaultPlan | undefined;
}

export const CONNECTOR_TYPES = ["synthetic"] as const;

/** `at` is the host's pointer in the config ("/hosts/0"), so errors name the field. */
export function connectorFor(
  config: HostConfig,
  at: string,
  deps: ConnectorDeps,
): Result<Connector, FieldError> {
  const { type, settings } = config.connector;
  if (type !== "synthetic") {
    return err(
      fieldError(
        "unknown_connector",
        `${at}/connector/type`,
        `${at}/connector/type: "${type}" is not a connector this gateway has (${CONNECTOR_TYPES.join(", ")})`,
      ),
    );
  }
  const name = settings["scenario"] ?? config.id;
  const field = `${at}/connector/settings/scenario`;
  if (typeof name !== "string")
    return err(fieldError("invalid_setting", field, `${field}: must be a string`));
  const scenario = Object.prototype.hasOwnProperty.call(SYNTHETIC_SCENARIOS, name)
    ? SYNTHETIC_SCENARIOS[name]
    : undefined;
  if (scenario === undefined) {
    const known = Object.keys(SYNTHETIC_SCENARIOS).join(", ");
    return err(
      fieldError("unknown_scenario", field, `${field}: no synthetic scenario "${name}" (known: ${known})`),
    );
  }
  const faults = deps.syntheticFaults?.(config.id);
  return ok(
    createSyntheticConnector({
      scenario,
      ...(faults !== undefined && { faults }),
      clock: deps.clock,
      backend: deps.syntheticBackend,
      ...(deps.syntheticMessages !== undefined && { messages: deps.syntheticMessages }),
    }),
  );
}
