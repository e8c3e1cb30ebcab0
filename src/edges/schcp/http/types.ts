import type { HostDirectory } from "../../../booking/api.js";
import type { NonceMemory } from "../../../protocol/http-signatures/index.js";
import type { Clock } from "../../../protocol/clock.js";
import type { Logger } from "../../../protocol/logger.js";
import type { RefusalBody } from "../../../protocol/schcp/types.js";
import type { OriginRateLimit } from "../../http/origin-limit.js";
import type { RateLimiter } from "../../http/types.js";
import type { SchcpHostApi } from "../api.js";
import type { EdgeRefusal, EdgeResponse } from "../../http/respond.js";
import type { SchcpCaller } from "../caller.js";
import type { MandateStatusPort } from "../../../protocol/schcp/mandate/index.js";

/** A SchCP refusal decided at the edge, before it is serialized (SchCP §9.2). */
export type SchcpEdgeRefusal = EdgeRefusal<RefusalBody>;

/** The mutating SchCP routes that carry idempotency_key (SchCP §9.1). */
export type IdempotentRoute =
  | "placeHold"
  | "confirm"
  | "cancel"
  | "changeOffer"
  | "reschedule"
  | "proposalResponse"
  | "respond"
  | "commit"
  | "reviseMeeting"
  | "withdrawMeetingRevision"
  | "joinWaitlist";

export interface IdempotentRequest {
  readonly route: IdempotentRoute;
  readonly hostId: string;
  readonly caller: SchcpCaller;
  readonly idempotencyKey: string;
  readonly method: string;
  /** Path and query as addressed (the host id and the hold or booking id are in it). */
  readonly path: string;
  readonly body: Uint8Array;
}

/**
 * SchCP §9.1 around one mutating request: runs `execute` once per (agent key, idempotency
 * key), replays its stored answer for the same body, refuses a different body. Wired to the
 * core's one idempotency mechanism by the runtime (src/edges/schcp/idempotency.ts).
 */
export interface IdempotencyGate {
  run(request: IdempotentRequest, execute: () => Promise<EdgeResponse>): Promise<EdgeResponse>;
}

/** Discovery documents (SchCP §2.1, §2.3), built by the booking core's discovery module. */
export interface DiscoveryDocuments {
  operator(): unknown;
  /** The operator document as sent, with its strong ETag, kept until the hosts change. */
  operatorEntity?(): { readonly body: string; readonly etag: string };
  /** undefined for an unknown host. */
  host(hostId: string): unknown;
}

/** What the SchCP routes need from the running gateway (the composition root hands it in). */
export interface SchcpHttpDeps {
  /** The origin agents address (SchCP §3.2: @target-uri is rebuilt from it, never from Host). */
  readonly publicOrigin: string;
  readonly hosts: HostDirectory;
  readonly api: SchcpHostApi;
  readonly documents: DiscoveryDocuments;
  /** Replay memory for request nonces: the gateway store (SchCP §3.2). */
  readonly nonces: NonceMemory;
  readonly idempotency: IdempotencyGate;
  readonly rateLimiter: RateLimiter;
  /** §7.2: the per-network-origin bucket taken before any signature check; none when absent. */
  readonly originRateLimit?: OriginRateLimit;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Request bodies above this are refused with 413 (default 64 KiB). */
  readonly maxBodyBytes?: number;
  /**
   * Validate every SchCP response against its closed schema; a failure becomes a 500 and a log
   * line (on in development and tests; the CLI turns it off when NODE_ENV=production).
   */
  readonly validateResponses?: boolean;
  /**
   * §3.3 check 7: a link's revocation status, asked of its status URL under the outbound policy
   * of §5.8 and cached per link (CachingMandateStatus); not consulted when absent.
   */
  readonly mandateStatus?: MandateStatusPort;
  /**
   * Tests only: accept http: and literal non-public callback_url addresses (a loopback server
   * standing in for an agent), as the transport's allowPrivate does. Never in a
   * running gateway.
   */
  readonly allowPrivateCallbacksForTests?: boolean;
}
