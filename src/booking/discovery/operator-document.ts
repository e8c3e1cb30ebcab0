/**
 * The operator document (SchCP §2.3) at {origin}/.well-known/scheduling.json: the gateway
 * lists every host it serves, with each host's discovery URL and its own domain (null for a
 * host the operator publishes).
 */
import type { OperatorDocument } from "../../protocol/schcp/types.js";
import type { HostConfig, HostRuntime } from "../api.js";
import { hostDiscoveryUrl } from "./host-document.js";

export interface OperatorOptions {
  readonly publicOrigin: string;
  readonly operatorName: string;
}

export function operatorDocument(
  hosts: ReadonlyArray<HostRuntime | HostConfig>,
  options: OperatorOptions,
): OperatorDocument {
  const configs = hosts.map((h) => ("config" in h ? h.config : h));
  return {
    schcp: "0.4",
    operator: { name: options.operatorName, domain: new URL(options.publicOrigin).hostname },
    hosts: configs.map((c) => ({
      id: c.id,
      discovery: hostDiscoveryUrl(options.publicOrigin, c.id),
      host_domain: c.domain,
    })),
  };
}
