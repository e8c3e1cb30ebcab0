/**
 * The configured hosts made live: a connector each, the host's persisted signing key, and
 * the catalog read and checked (buildHostRuntime). Configuration errors name the field in the
 * config file and stop the start; an upstream that fails at start does not: that host starts
 * degraded (or needs_reconnection), the others serve, and the operator is told loudly here,
 * once per health transition, for the life of the process.
 */
import type { Clock, HostConfig, HostDirectory, HostRuntime } from "../../booking/api.js";
import { buildHostRuntime, createHostDirectory } from "../../booking/hosts/index.js";
import type { HealthTransition, HostHealthPolicy } from "../../booking/hosts/index.js";
import type { FaultPlan, SyntheticBackend, SyntheticMessageSink } from "../../connectors/synthetic/index.js";
import { childPointer, err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";
import type { Logger } from "../http/types.js";
import { connectorFor } from "./connectors.js";
import { loadOrCreateHostKey } from "./host-keys.js";
import { loadOrCreateOperatorToken } from "./operator-token.js";

export interface BuildHostsDeps {
  readonly clock: Clock;
  readonly syntheticBackend: SyntheticBackend;
  readonly syntheticMessages?: SyntheticMessageSink;
  readonly logger: Logger;
  readonly healthPolicy?: HostHealthPolicy;
  /** Test hook: a fault plan for a host's synthetic connector, by host id. */
  readonly syntheticFaults?: (hostId: string) => FaultPlan | undefined;
}

export async function buildHosts(
  hosts: readonly HostConfig[],
  dataDir: string,
  deps: BuildHostsDeps,
): Promise<Result<{ directory: HostDirectory; generatedKeys: string[] }, FieldError>> {
  const { clock } = deps;
  const runtimes: HostRuntime[] = [];
  const generatedKeys: string[] = [];
  for (const [i, config] of hosts.entries()) {
    const at = childPointer("/hosts", i);
    const connector = connectorFor(config, at, deps);
    if (!connector.ok) return connector;
    const { key, created } = await loadOrCreateHostKey(dataDir, config.id, clock.now());
    if (created) generatedKeys.push(config.id);
    const runtime = await buildHostRuntime(config, connector.value, [key], {
      clock,
      onHealth: (change) => logHealth(deps.logger, change),
      ...(deps.healthPolicy !== undefined && { healthPolicy: deps.healthPolicy }),
    });
    if (!runtime.ok) {
      const { code, field, message } = runtime.error;
      // buildHostRuntime's fields are relative to the host ("host <id>: /services/0/service_id:
      // …"); point them into the config file instead.
      const why = message.replace(`host ${config.id}: `, "").replace(`${field}: `, "");
      return err(fieldError(code, `${at}${field}`, `${at}${field}: ${why}`));
    }
    runtimes.push(runtime.value);
  }
  return ok({ directory: createHostDirectory(runtimes), generatedKeys });
}

/** One line per transition: errors for a host that cannot serve as it should, info on recovery. */
function logHealth(logger: Logger, change: HealthTransition): void {
  const fields = {
    host_id: change.hostId,
    health: change.to,
    from: change.from,
    ...(change.error !== undefined && { error_code: change.error.code, error: change.error.message }),
  };
  if (change.to === "ok") {
    if (change.from !== "starting") logger.info(`host ${change.hostId} is healthy again`, fields);
    return;
  }
  if (change.to === "needs_reconnection") {
    logger.error(
      `HOST NEEDS RECONNECTION: ${change.hostId}'s booking system refused the gateway's credentials; ` +
        "its time is refused until the business reconnects it",
      fields,
    );
    return;
  }
  logger.error(
    change.from === "starting"
      ? `HOST DEGRADED AT START: ${change.hostId}'s catalog could not be read; it offers no time until it is`
      : `host ${change.hostId} is degraded: its booking system is failing`,
    fields,
  );
}

/** OPERATOR_TOKEN when given, else the credential kept in the data dir (generated once). */
export async function operatorCredential(
  dataDir: string,
  fromEnv: string | undefined,
): Promise<{ token: string; source: "env" | "stored" | "generated" }> {
  if (fromEnv !== undefined) return { token: fromEnv, source: "env" };
  const { token, created } = await loadOrCreateOperatorToken(dataDir);
  return { token, source: created ? "generated" : "stored" };
}
