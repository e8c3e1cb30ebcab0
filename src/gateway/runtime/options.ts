/**
 * What a gateway process is started with (createGatewayRuntime), and the few things every
 * feature wiring (features/) shares once the start has settled them.
 */
import type { ReplicaWaitPolicy } from "../../holds/redis/index.js";
import { DEFAULT_REDIS_KEY_PREFIX, redisKeys } from "../../redis/keys.js";
import type { Clock } from "../../protocol/clock.js";
import type { HostConfig, IdGenerator } from "../../booking/api.js";
import type { HostHealthPolicy } from "../../booking/hosts/index.js";
import type { FaultPlan, SyntheticMessageSink } from "../../connectors/synthetic/index.js";
import type { PublicFetch } from "../../jobs/outbound/public-fetch.js";
import type { Resolver } from "../../protocol/net/guarded-lookup.js";
import type { AddressPolicy } from "../../protocol/net/policy.js";
import type { TokenBucketPolicy } from "../../edges/http/rate-limit.js";
import type { Logger } from "../../protocol/logger.js";
import type { Metrics } from "../../protocol/metrics.js";
import type { MetricsAccess } from "../metrics/endpoint.js";
import type { HostMessageSettings } from "./calendar-hosts.js";
import type { WorkerIntervals } from "./workers.js";
import type { VaultCredentials } from "../credentials/host-tokens.js";
import type { SessionPolicy } from "../../edges/console/sessions.js";
import type { OwnerCaps } from "../../edges/console/managed-hosts.js";
import type { ConnectProviders } from "../../edges/console/connect/wiring.js";

export interface GatewayRuntimeOptions {
  readonly hosts: readonly HostConfig[];
  /** The origin agents address (PUBLIC_ORIGIN). */
  readonly publicOrigin: string;
  /** Redis for the store, the synthetic platform, rate limits and BullMQ; memory when absent. */
  readonly redisUrl?: string;
  /** Host signing keys and the operator credential live here. */
  readonly dataDir: string;
  /**
   * Without Redis: keep holds, bookings, the synthetic platform and calendar state in this
   * directory between processes, one process at a time (infra.ts). `mcp` sets it.
   */
  readonly memoryStateDir?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly ids?: IdGenerator;
  readonly operatorName?: string;
  /** Overrides the credential kept in dataDir (OPERATOR_TOKEN). */
  readonly operatorToken?: string;
  /** Redis key prefix for the store, platform and limits (default "schcp:"); BullMQ's too. */
  readonly redisKeyPrefix?: string;
  /** Replicas a booking write waits for before it is answered (REDIS_WAIT_REPLICAS). */
  readonly redisReplicaWait?: ReplicaWaitPolicy;
  /** On a Redis Cluster, how long a call waits out its host's slot moving (REDIS_SLOT_MOVE_WAIT_MS). */
  readonly redisSlotMoveWaitMs?: number;
  readonly availabilityRate?: TokenBucketPolicy;
  /**
   * Without Redis: calendar syncs at start and on schedule running at once (default 4). With
   * Redis each process's BullMQ worker already takes one at a time.
   */
  readonly calendarSyncConcurrency?: number;
  /** §7.2 per network origin, before signature checks (default DEFAULT_ORIGIN_RATE); false: off. */
  readonly originRate?: TokenBucketPolicy | false;
  /** Key the origin limit by the last X-Forwarded-For entry (behind a trusted proxy only; TRUST_PROXY). */
  readonly trustForwardedFor?: boolean;
  /** Tests only: accept literal non-public callback_url addresses at the request (HttpAppDeps). */
  readonly allowPrivateCallbacksForTests?: boolean;
  /** Background workers (sweeper, reconciliation, approval timeouts, catalogs): on by default. */
  readonly workers?: boolean | WorkerIntervals;
  /**
   * When catalogs are read again (booking/hosts/health.ts): refreshMs (5 min), retryMs for a
   * degraded host (5 s, doubling), reconnectMs for one that needs reconnection (5 min).
   */
  readonly hostHealth?: Partial<HostHealthPolicy>;
  /** Test hook: a fault plan for a host's synthetic connector, by host id. */
  readonly syntheticFaults?: (hostId: string) => FaultPlan | undefined;
  /** The webhook transport (tests); the public-only one by default (SchCP §5.8). */
  readonly webhookFetch?: PublicFetch;
  /**
   * The transport to principals' key apps (SchCP §3.3 status URLs: revocation and shared
   * booking limits; tests). By default the webhooks' outbound policy (§5.8), widened to loopback
   * and private networks only by `statusAllowPrivate`.
   */
  readonly statusFetch?: PublicFetch;
  /**
   * STATUS_ALLOW_PRIVATE: status URLs (§3.3) may be on loopback and private networks, over plain
   * http too, e.g. the agent SDK's key-app status server on a developer's machine. The CLI turns
   * it on for the embedded default only; off (the §5.8 policy) otherwise.
   */
  readonly statusAllowPrivate?: boolean;
  /**
   * Certificates (PEM) trusted beside Node's roots for status URLs: status URLs are https only
   * (the MandateClaims schema), so a local key app serves its own certificate (docs/schcp.md).
   */
  readonly statusCa?: readonly string[];
  readonly maxBodyBytes?: number;
  readonly validateResponses?: boolean;
  /** Where the synthetic platform "sends" verification codes (the customer's phone). */
  readonly syntheticMessages?: SyntheticMessageSink;
  /** How calendar hosts' approvers are reached (SMTP, SMS); a file in dataDir when absent. */
  readonly hostMessages?: HostMessageSettings;
  /**
   * The HTTP client connectors use (tests: a recording fetch). By default a fetch that obeys
   * the outbound address policy (src/protocol/net/policy-fetch.ts) with `upstreamPolicy`.
   */
  readonly connectorFetch?: typeof fetch;
  /**
   * Which addresses upstreams may be reached at (src/protocol/net/policy.ts): public ones over
   * https by default; UPSTREAM_ALLOW_PRIVATE=1 widens it to loopback and private networks.
   */
  readonly upstreamPolicy?: AddressPolicy;
  /**
   * How long one CalDAV request may take before it is ended as a timeout (default 20 s,
   * src/connectors/caldav/connector.ts).
   */
  readonly caldavTimeoutMs?: number;
  /** Tests only: how upstream host names resolve (e.g. a public-looking name to loopback). */
  readonly upstreamResolver?: Resolver;
  /** The token vault for `credentials: "vault"` hosts (TOKEN_KEYS; src/gateway/credentials). */
  readonly credentials?: VaultCredentials;
  /** Operator console sessions' idle and absolute expiry (default 30 min, 12 h). */
  readonly consoleSessions?: SessionPolicy;
  /** Drafts and hosts one owner may have in the console (OWNER_MAX_DRAFTS, OWNER_MAX_HOSTS; 20 and 50). */
  readonly ownerCaps?: OwnerCaps;
  /**
   * The OAuth clients for Connect (/connect/...); on when at least one is given and
   * `credentials` is set (grants go into its vault; client secrets are read from its env).
   */
  readonly connect?: ConnectProviders;
  /**
   * How often this process applies what other processes changed in the console-created hosts
   * (default 2 s; false: only when managedHosts.reconcile() is called, as tests do).
   */
  readonly managedHostsReconcileMs?: number | false;
  /**
   * Who may read GET /metrics (METRICS): "token" (the default) only with the operator's bearer
   * credential, as the operator API; "on" anyone who reaches the port (a scrape over a private
   * network); "off" no route. The counts are recorded either way.
   */
  readonly metrics?: MetricsAccess;
}

/** Settled at the start of buildGatewayRuntime and read by several feature wirings. */
export interface RuntimeBasics {
  /** The normalized publicOrigin. */
  readonly publicOrigin: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly ids: IdGenerator;
  /** The connectors' HTTP client: opts.connectorFetch, else the upstream address policy's. */
  readonly connectorFetch: typeof fetch;
  /** What every feature counts through (this runtime's registry, features/metrics.ts). */
  readonly metrics: Metrics;
}

/** The Redis key prefix (default "schcp:"). */
export const keyPrefix = (opts: Pick<GatewayRuntimeOptions, "redisKeyPrefix">): string =>
  opts.redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;

/**
 * BullMQ's prefix under the key prefix, `<prefix>{<prefix>bullmq}`: one hash slot on a Cluster,
 * and every queue key under `<prefix>*` like the rest (src/redis/keys.ts `group`).
 */
export const bullmqPrefix = (opts: Pick<GatewayRuntimeOptions, "redisKeyPrefix">): string =>
  redisKeys(keyPrefix(opts)).group("bullmq");
