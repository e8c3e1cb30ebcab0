/**
 * What the transport-free platform fakes (openings-platform.ts, servicialo-platform.ts) share:
 * the faults a test can queue, a recorded request, and a reply for the nock or loopback
 * wrapper to send.
 */
export type FakeFault =
  | {
      readonly kind: "status";
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly body?: string;
    }
  | { readonly kind: "timeout" }
  | { readonly kind: "lost_response" };

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}

export interface PlatformReply {
  readonly status: number;
  /** JSON, or raw text (a fault's body). */
  readonly body: unknown;
  readonly headers: Record<string, string>;
}
