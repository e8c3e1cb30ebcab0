/** The transport's request, response and refusal shapes (SchCP §5.8 publicOnly fetch). */
import type { IncomingHttpHeaders } from "node:http";
import type { AddressClass } from "../../protocol/net/address-class.js";

export interface OutboundRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** At most maxResponseBytes. */
  readonly body: Uint8Array;
  readonly truncated: boolean;
  /** The address actually connected. */
  readonly remoteAddress: string;
}

export type FetchRefusalCode =
  | "invalid_url"
  | "scheme_not_allowed"
  | "credentials_in_url"
  | "non_public_address"
  | "dns_failed"
  | "connect_timeout"
  | "timeout"
  | "network_error";

export interface FetchRefusal {
  readonly code: FetchRefusalCode;
  readonly message: string;
  /** For non_public_address: the refused address and its class. */
  readonly address?: string;
  readonly addressClass?: AddressClass;
}

/** Carries a refusal through node's error plumbing (lookup callback, socket.destroy). */
export class RefusedError extends Error {
  constructor(readonly refusal: FetchRefusal) {
    super(refusal.message);
    this.name = "RefusedError";
  }
}
