/**
 * The SchCP caller as the HTTP and MCP edges verified it (§3.2 signature, §3.3 mandate chain),
 * and its translation into the core's Caller: the chain becomes an Authority, so the core
 * checks it as it checks any other edge's grant.
 */
import type { GatewayStore } from "../../holds/port.js";
import type { MandateChain } from "../../protocol/schcp/mandate/index.js";
import type { Caller } from "../../booking/api.js";
import { mandateAuthority } from "./mandate-authority.js";

export interface SchcpCaller {
  /** RFC 7638 thumbprint of the key that signed the request. */
  readonly agentKey: string;
  /** The verified mandate chain, when the request carried SchCP-Mandate. */
  readonly mandate?: MandateChain;
  /** §7.5: an attester the edge honoured for this principal. */
  readonly attester?: string;
}

export function coreCaller(
  store: Pick<GatewayStore, "countForMandate">,
  hostId: string,
  caller: SchcpCaller,
): Caller {
  return {
    agentKey: caller.agentKey,
    ...(caller.mandate !== undefined && { authority: mandateAuthority(store, hostId, caller.mandate) }),
    ...(caller.attester !== undefined && { attester: caller.attester }),
  };
}
