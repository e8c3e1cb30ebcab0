/**
 * The operator document (SchCP §2.3) at {origin}/.well-known/scheduling.json: the gateway
 * lists every host it serves, with each host's discovery URL and its own domain (null for a
 * host the operator publishes).
 */
import { createHash } from "node:crypto";
import type { OperatorDocument } from "../../../protocol/schcp/types.js";
import type { HostConfig, HostRuntime } from "../../../booking/api.js";
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

/** The operator document as sent: its JSON text and a strong ETag of those bytes (RFC 9110 §8.8.3). */
export interface OperatorEntity {
  readonly body: string;
  readonly etag: string;
}

/**
 * The operator document built once per set of hosts: `hosts()` answers the same array until a
 * host is added or removed (the host directory's list()), so the document (hundreds of KB at
 * thousands of hosts) is rebuilt only then, and its ETag changes with it.
 */
export function cachedOperatorDocument(
  hosts: () => ReadonlyArray<HostRuntime | HostConfig>,
  options: OperatorOptions,
): () => OperatorEntity {
  let built:
    { readonly for: ReadonlyArray<HostRuntime | HostConfig>; readonly entity: OperatorEntity } | undefined;
  return () => {
    const list = hosts();
    if (built?.for !== list) {
      const body = JSON.stringify(operatorDocument(list, options));
      const etag = `"${createHash("sha256").update(body).digest("base64url")}"`;
      built = { for: list, entity: { body, etag } };
    }
    return built.entity;
  };
}
