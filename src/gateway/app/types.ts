import type { ContactStore } from "../../booking/hosts/contacts.js";
import type { OperatorApi } from "../../booking/api.js";
import type { A2aApiKeys } from "../../edges/a2a/api-keys.js";
import type { A2aIntents } from "../../edges/a2a/port.js";
import type { ApprovalRouteDeps } from "../../edges/approval/approval-routes.js";
import type { ConnectAppDeps } from "../../edges/console/connect/wiring.js";
import type { ConsoleDeps } from "../../edges/console/kit.js";
import type { ManagedHosts } from "../../edges/console/managed-hosts.js";
import type { CalendarPushReceiver } from "../../edges/inbound/calendar-push.js";
import type { SquareWebhookReceiver } from "../../edges/inbound/square-webhooks.js";
import type { OperatorHttpDeps } from "../../edges/operator/types.js";
import type { SchcpHostApi } from "../../edges/schcp/api.js";
import type { SchcpHttpDeps } from "../../edges/schcp/http/types.js";
import type { MetricsEndpoint } from "../metrics/endpoint.js";

export type { EdgeResponse } from "../../edges/http/respond.js";
export type {
  DiscoveryDocuments,
  IdempotencyGate,
  IdempotentRequest,
  IdempotentRoute,
} from "../../edges/schcp/http/types.js";
export type { UpstreamsView } from "../../edges/operator/types.js";
export { DEFAULT_MAX_BODY_BYTES } from "../../edges/http/body.js";

/**
 * What the HTTP app needs from the running gateway: each edge's own deps, and the optional
 * edges mounted beside them. createGatewayRuntime (src/gateway/runtime) returns an object that
 * satisfies it; tests hand in fakes of the use cases.
 */
export interface HttpAppDeps extends SchcpHttpDeps, Omit<OperatorHttpDeps, "bookingRefusal"> {
  readonly api: SchcpHostApi & OperatorApi;
  /** Hosts added and set up from the console (src/gateway/managed-hosts); absent: config-file hosts only. */
  readonly managedHosts?: ManagedHosts;
  /** Calendar hosts' approval links (GET/POST /approve/{token}); absent: no such route. */
  readonly approval?: ApprovalRouteDeps;
  /** The operator console's sessions and sign-in limit (GET /, /console/...); absent: no console. */
  readonly console?: ConsoleDeps;
  /** Connect (GET /connect/{provider}/start|callback), behind console sessions; needs `console`. */
  readonly connect?: ConnectAppDeps;
  /** Square booking webhooks (POST /webhooks/square/{hostId}); absent: no such route. */
  readonly squareWebhooks?: SquareWebhookReceiver;
  /** Google / Graph calendar push (POST /push/{google,microsoft}/{hostId}); absent: no such route. */
  readonly calendarPush?: CalendarPushReceiver;
  /** The Servicialo A2A intents (src/edges/a2a); absent: no /api/servicialo routes. */
  readonly a2a?: A2aIntents;
  /** Issues a host's A2A API key from the console (GET|POST /console/hosts/{id}/a2a-key). */
  readonly a2aKeys?: A2aApiKeys;
  /** People's contact lists (SchCP §7.8), managed on the console's Contacts pages. */
  readonly contacts?: ContactStore;
  /** The Prometheus scrape (GET /metrics, src/gateway/metrics); absent: no such route. */
  readonly metrics?: MetricsEndpoint;
}
