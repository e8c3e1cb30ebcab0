/**
 * The configured hosts made live: a connector each, the host's persisted signing key, and
 * the catalog read and checked (buildHostRuntime). Errors name the field in the config file.
 */
import type { Clock, HostConfig, HostDirectory, HostRuntime } from "../../booking/api.js";
import { buildHostRuntime, createHostDirectory } from "../../booking/hosts/index.js";
import type { SyntheticBackend, SyntheticMessageSink } from "../../connectors/synthetic/index.js";
import { childPointer, err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";
import { connectorFor } from "./connectors.js";
import { loadOrCreateHostKey } from "./host-keys.js";
import { loadOrCreateOperatorToken } from "./operator-token.js";

export async function buildHosts(
  hosts: readonly HostConfig[],
  dataDir: string,
  deps: {
    readonly clock: Clock;
    readonly syntheticBackend: SyntheticBackend;
    readonly syntheticMessages?: SyntheticMessageSink;
  },
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
    const runtime = await buildHostRuntime(config, connector.value, [key]);
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

/** OPERATOR_TOKEN when given, else the credential kept in the data dir (generated once). */
export async function operatorCredential(
  dataDir: string,
  fromEnv: string | undefined,
): Promise<{ token: string; source: "env" | "stored" | "generated" }> {
  if (fromEnv !== undefined) return { token: fromEnv, source: "env" };
  const { token, created } = await loadOrCreateOperatorToken(dataDir);
  return { token, source: created ? "generated" : "stored" };
}
