import type { ApprovalRouteDeps } from "./approval-routes.js";
import type { ConsoleDeps } from "../console/routes.js";
import type { ConnectAppDeps } from "../connect/wiring.js";
import type { ManagedHosts } from "../managed-hosts/port.js";
import type { SquareWebhookReceiver } from "./square-webhooks.js";
import type { CalendarPushReceiver } from "./calendar-push.js";
import type { HostNotice } from "../../booking/hosts/notices.js";
import type { OwnEvent, SyncReport } from "../../booking/calendar/state.js";
import type { A2aIntents } from "../../a2a/port.js";
import type { A2aApiKeys } from "../../a2a/api-keys.js";
/**
 * What the HTTP edge needs from the running gateway. createGatewayRuntime (src/gateway/runtime)
 * returns an object that satisfies it; tests hand in fakes of the use cases.
 */
import type { Clock } from "../../protocol/clock.js";
import type { HostDirectory, OperatorApi } from "../../booking/api.js";
import type { SchcpHostApi } from "../../booking/schcp/api.js";
import type { SchcpCaller } from "../../booking/schcp/caller.js";
import type { NonceStore } from "../../holds/port.js";
import type { RefusalBody } from "../../protocol/schcp/types.js";
import type { OriginRateLimit } from "../../edges/http/origin-limit.js";
import type { RateLimiter } from "../../edges/http/types.js";
import type { Logger } from "../../protocol/logger.js";

/** A response the edge has decided on: the exact body bytes as a string (so replays are identical). */
export interface EdgeResponse {
  readonly status: number;
  readonly body: string;
  /** Seconds for Retry-After (§7.2, §9.2 retry.after). */
  readonly retryAfterSec?: number;
}

/** A refusal decided at the edge, before it is serialized. */
export interface EdgeRefusal {
  readonly status: number;
  readonly body: RefusalBody;
  readonly retryAfterSec?: number;
}

/** The mutating SchCP routes that carry idempotency_key (SchCP §9.1). */
export type IdempotentRoute =
  "placeHold" | "confirm" | "cancel" | "changeOffer" | "reschedule" | "proposalResponse";

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
 * booking core's withIdempotency by the runtime.
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

export interface UpstreamsView {
  /** A host's upstream Deprecation/Sunset notices, as recorded (src/booking/hosts/notices.ts). */
  notices(hostId: string): Promise<readonly HostNotice[]>;
  /** A calendar host's last sync per calendar and its own events still to be rewritten. */
  calendar(
    hostId: string,
  ): Promise<
    { readonly reports: readonly SyncReport[]; readonly pendingEvents: readonly OwnEvent[] } | undefined
  >;
  /** Ask for a calendar host's sync now (false: not a calendar host). */
  syncNow(hostId: string): Promise<boolean>;
}

export interface HttpAppDeps {
  /** The origin agents address (SchCP §3.2: @target-uri is rebuilt from it, never from Host). */
  readonly publicOrigin: string;
  readonly hosts: HostDirectory;
  readonly api: SchcpHostApi & OperatorApi;
  readonly documents: DiscoveryDocuments;
  /** Replay memory for request nonces: the gateway store (SchCP §3.2). */
  readonly nonces: NonceStore;
  readonly idempotency: IdempotencyGate;
  readonly rateLimiter: RateLimiter;
  /** §7.2: the per-network-origin bucket taken before any signature check; none when absent. */
  readonly originRateLimit?: OriginRateLimit;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The operator API's bearer credential. */
  readonly operatorToken: string;
  /** Request bodies above this are refused with 413 (default 64 KiB). */
  readonly maxBodyBytes?: number;
  /**
   * Validate every SchCP response against its closed schema; a failure becomes a 500 and a log
   * line (on in development and tests; the CLI turns it off when NODE_ENV=production).
   */
  readonly validateResponses?: boolean;
  /**
   * Tests only: accept http: and literal non-public callback_url addresses (a loopback server
   * standing in for an agent), as the transport's allowPrivateForTests does. Never in a
   * running gateway.
   */
  readonly allowPrivateCallbacksForTests?: boolean;
  /** Calendar hosts' approval links (GET/POST /approve/{token}); absent: no such route. */
  readonly approval?: ApprovalRouteDeps;
  /** The operator console's sessions and sign-in limit (GET /, /console/...); absent: no console. */
  readonly console?: ConsoleDeps;
  /** Connect (GET /connect/{provider}/start|callback), behind console sessions; needs `console`. */
  readonly connect?: ConnectAppDeps;
  /** Hosts added and set up from the console (src/gateway/managed-hosts); absent: config-file hosts only. */
  readonly managedHosts?: ManagedHosts;
  /** Upstream notices and calendar sync state for the operator API (operator-upstreams.ts). */
  readonly upstreams?: UpstreamsView;
  /** Square booking webhooks (POST /webhooks/square/{hostId}); absent: no such route. */
  readonly squareWebhooks?: SquareWebhookReceiver;
  /** Google / Graph calendar push (POST /push/{google,microsoft}/{hostId}); absent: no such route. */
  readonly calendarPush?: CalendarPushReceiver;
  /** The Servicialo A2A intents (src/a2a); absent: no /api/servicialo routes. */
  readonly a2a?: A2aIntents;
  /** Issues a host's A2A API key from the console (GET|POST /console/hosts/{id}/a2a-key). */
  readonly a2aKeys?: A2aApiKeys;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
