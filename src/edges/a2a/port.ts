/**
 * The Servicialo A2A edge (Servicialo A2A v1.2.0, cited
 * below as "A2A §<heading>"). Two halves meet here:
 *
 *   intents/  the five intents over the booking core, each answering exactly what its REST
 *             endpoint answers (A2A §Intent Reference): status code and body
 *   jsonrpc/  the agent card and JSON-RPC 2.0 `message/send` (A2A §Transport), which routes a
 *             DataPart (or free text) to the same intents and wraps the outcome in a Message
 *
 * The REST routes and the JSON-RPC endpoint both call A2aIntents.run, so the two can never
 * disagree. `orgSlug` is the gateway's host id.
 */

export const A2A_INTENTS = [
  "list_services",
  "check_availability",
  "book_session",
  "cancel_session",
  "reschedule_session",
] as const;
export type A2aIntent = (typeof A2A_INTENTS)[number];

/** A2A §Transport "Structured alternative": the DataPart's `client`, needed by book_session. */
export interface A2aClientContact {
  readonly name?: string;
  readonly lastName?: string;
  readonly phone?: string;
  readonly email?: string;
}

export interface IntentCall {
  readonly hostId: string;
  readonly intent: A2aIntent;
  /**
   * The intent's parameters as the REST endpoint takes them (query parameters for
   * check_availability, the JSON body for book/cancel/reschedule) plus, for cancel and
   * reschedule, `sessionId` (the REST path segment).
   */
  readonly params: Readonly<Record<string, unknown>>;
  /** From the DataPart's `client` (A2A); merged into book_session's clientEmail/clientName/... */
  readonly client?: A2aClientContact;
  /** The X-Org-Api-Key header, when sent (A2A §Authentication over A2A). */
  readonly apiKey?: string;
  /** The network origin key (src/edges/http/origin-limit.ts originKey) for the abuse limits. */
  readonly origin: string;
}

export interface IntentOutcome {
  /** The REST status (200, 201, 400, 401, 402, 404, 409, 429, 502, 500). */
  readonly httpStatus: number;
  /** The REST response body, in the spec's shape (errors: A2A §Standard Error Envelope). */
  readonly body: Readonly<Record<string, unknown>>;
  /** Seconds, on a 429 (A2A §Rate Limits: Retry-After). */
  readonly retryAfterSec?: number;
}

export interface A2aHostFacts {
  readonly hostId: string;
  readonly name: string;
  readonly description?: string;
  readonly timezone: string;
  /**
   * How the host answers a booking (booking/discovery/confirmation.ts): "host_approval" when
   * the business accepts each one itself, so book_session answers pendiente_confirmacion.
   */
  readonly confirmation: "instant" | "host_approval";
  /** Which intents this host can serve (A2A §Agent Card Shape: "only verified capabilities"). */
  readonly intents: readonly A2aIntent[];
  readonly services: ReadonlyArray<{
    readonly id: string;
    readonly name: string;
    readonly description?: string;
  }>;
}

export interface A2aIntents {
  /** The host's facts for its agent card, or undefined: no such host (A2A -32001 / 404). */
  host(hostId: string): A2aHostFacts | undefined;
  run(call: IntentCall): Promise<IntentOutcome>;
}
