/**
 * What one upstream call tells an operator, in the shapes OSBP "Audit" declares (OSBP "Platform
 * Metadata and Versioning"): the platform's identity and the metadata of a response. Every
 * connector result carries it (src/connectors/ports/result.ts) and the OSBP audit writes it, so
 * it is declared once here, below both. Operator-facing; no customer data by construction.
 */

/** The platform's static identity and the exact native API pin it sends. */
export interface PlatformIdentity {
  /** Stable platform slug. */
  readonly vendor: string;
  /** The exact native API pin the adapter sends or encodes. */
  readonly api_version: string;
}

/** Response metadata of one upstream call; status 0: no answer arrived. */
export interface UpstreamMeta {
  /** "METHOD /path": query omitted, contact-bearing segments redacted. */
  readonly call: string;
  readonly status: number;
  /** Server header, verbatim: an infrastructure fingerprint, never an API version. */
  readonly server?: string;
  readonly request_id?: string;
  readonly api_version?: string;
  /** RFC 9745, verbatim. */
  readonly deprecation?: string;
  /** RFC 8594, verbatim HTTP-date. */
  readonly sunset?: string;
  /** Retry-After, RateLimit, RateLimit-Policy, X-RateLimit-*, keyed lowercase. */
  readonly ratelimit?: Readonly<Record<string, string>>;
  /**
   * True when the result was answered from the connector's memory, not by a call made now:
   * this is then the metadata of the earlier call that produced the answer (the create that
   * made the booking, the move or cancel that last changed it, the create the platform
   * refused). Absent on a call made for this result. Not an OSBP member: an audit that
   * follows OSBP ("upstream is absent when the tool answered locally") drops such entries.
   */
  readonly replay?: true;
}
