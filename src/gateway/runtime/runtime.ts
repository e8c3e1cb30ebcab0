/**
 * createGatewayRuntime: everything a gateway process runs, wired once. The result satisfies
 * the HTTP edge's dependencies (HttpAppDeps) and adds what operators and tests need: the
 * store, the booking service, the outbox, and close().
 *
 *   hosts config -> connectors (synthetic; Redis-backed when redisUrl) -> signing keys from
 *   dataDir (persisted, kid "<hostId>-<yyyy-mm>") -> host runtimes (catalog read and checked;
 *   a host whose upstream fails starts degraded) -> outbox (in-process or BullMQ) -> booking
 *   service -> background workers (the catalog refresh among them).
 */
import type { ReplicaWaitPolicy } from "../../holds/redis/index.js";
import type { Clock } from "../../protocol/clock.js";
import type { BookingDeps, HostConfig, IdGenerator } from "../../booking/api.js";
import { DEFAULT_HEALTH_POLICY } from "../../booking/hosts/index.js";
import type { HostHealthPolicy } from "../../booking/hosts/index.js";
import type { FaultPlan } from "../../connectors/synthetic/index.js";
import {
  cachedOperatorDocument,
  operatorDocument,
  hostDiscoveryDocument,
} from "../../booking/schcp/discovery/index.js";
import { createBookingService } from "../../booking/service.js";
import { a2aWiring } from "../../a2a/intents/wiring.js";
import type { A2aApiKeys } from "../../a2a/api-keys.js";
import type { BookingService } from "../../booking/service.js";
import type { GatewayStore } from "../../holds/port.js";
import type { SyntheticMessageSink } from "../../connectors/synthetic/index.js";
import { err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";
import { createOutbox } from "../../jobs/webhooks/index.js";
import type { WebhookOutbox } from "../../jobs/webhooks/index.js";
import type { PublicFetch } from "../../jobs/outbound/public-fetch.js";
import type { Resolver } from "../../protocol/net/guarded-lookup.js";
import { PUBLIC_ONLY, type AddressPolicy } from "../../protocol/net/policy.js";
import { createPolicyFetch } from "../../protocol/net/policy-fetch.js";
import type { TokenBucketPolicy } from "../../edges/http/rate-limit.js";
import { normalizeOrigin } from "../http/target-uri.js";
import type { HttpAppDeps } from "../http/types.js";
import type { Logger } from "../../protocol/logger.js";
import { buildHost, buildHosts, operatorCredential, type BuildHostsDeps, type BuiltHost } from "./hosts.js";
import { createIdempotencyGate } from "./idempotency-gate.js";
import { createInfra } from "./infra.js";
import { jsonLinesLogger, randomIds, systemClock } from "./support.js";
import { startWorkers } from "./workers.js";
import { squareWebhookWiring } from "./square-webhook-wiring.js";
import { calendarPushWiring } from "./calendar-push-wiring.js";
import {
  approvalRoutes,
  approvalSender,
  hostMessenger,
  loadApprovalSecret,
  runCalendarHost,
  startCalendarSync,
  type HostMessageSettings,
} from "./calendar-hosts.js";
import type { CalendarHostHandle } from "../../booking/calendar/host-setup.js";
import type { CalendarSyncQueue } from "../../jobs/calendar-sync/queue.js";
import type { HostDirectory } from "../../booking/api.js";
import type { HostMessenger } from "../../jobs/outbox/index.js";
import type { WorkerIntervals, Workers } from "./workers.js";
import type { VaultCredentials } from "../credentials/host-tokens.js";
import { consoleWiring } from "../console/wiring.js";
import type { SessionPolicy } from "../console/sessions.js";
import type { OwnerCaps } from "../managed-hosts/port.js";
import { connectWiring, type ConnectProviders } from "../connect/wiring.js";
import { createSetupChoices } from "../setup/choices.js";
import { createManagedHosts, type ManagedHostsRuntime } from "../managed-hosts/managed-hosts.js";
import { openManagedHostStore } from "../managed-hosts/open-store.js";
import type { ManagedHostStore } from "../managed-hosts/port.js";

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
}

export interface GatewayRuntime extends HttpAppDeps {
  readonly store: GatewayStore;
  readonly service: BookingService;
  /** Issues a host's X-Org-Api-Key for the A2A edge (booking-gateway a2a-key). */
  readonly a2aKeys: A2aApiKeys;
  readonly outbox: WebhookOutbox;
  readonly ids: IdGenerator;
  /** Where the operator credential came from: OPERATOR_TOKEN, the data dir, or generated now. */
  readonly operatorTokenSource: "env" | "stored" | "generated";
  /** Hosts whose signing key was generated by this start. */
  readonly generatedKeys: readonly string[];
  /**
   * The calendar hosts (src/booking/calendar) and how their approvers are messaged. The list
   * changes as console-created calendar hosts are activated and deactivated.
   */
  readonly calendarHosts: readonly CalendarHostHandle[];
  /** Hosts created in the console: kept in Redis or the data dir, served live. */
  readonly managedHosts: ManagedHostsRuntime;
  readonly messenger: HostMessenger;
  /** Syncs a calendar host now and waits for it (tests, the CLI); false: not a calendar host. */
  syncCalendarNow(hostId: string): Promise<boolean>;
  /** With memoryStateDir: writes the memory stores to it now (else nothing to do). */
  persist(): Promise<void>;
  /** Stops the workers, drains the outbox, closes stores and connections. Idempotent. */
  close(): Promise<void>;
}

/** Throws GatewayConfigError for a configuration problem (use buildGatewayRuntime for a Result). */
export class GatewayConfigError extends Error {
  constructor(readonly fieldError: FieldError) {
    super(fieldError.message);
    this.name = "GatewayConfigError";
  }
}

export async function createGatewayRuntime(opts: GatewayRuntimeOptions): Promise<GatewayRuntime> {
  const built = await buildGatewayRuntime(opts);
  if (!built.ok) throw new GatewayConfigError(built.error);
  return built.value;
}

/**
 * Configuration problems (an unknown connector or scenario, a service the catalog lacks, a
 * bad origin) come back as a FieldError naming the field; infrastructure failures (Redis
 * unreachable, an unreadable key file) reject. A host's upstream failing is neither: the host
 * starts degraded and the logger says so.
 */
export async function buildGatewayRuntime(
  opts: GatewayRuntimeOptions,
): Promise<Result<GatewayRuntime, FieldError>> {
  const publicOrigin = normalizeOrigin(opts.publicOrigin);
  if (publicOrigin === undefined) {
    return err(
      fieldError(
        "invalid_origin",
        "publicOrigin",
        `publicOrigin: "${opts.publicOrigin}" is not an http(s) origin`,
      ),
    );
  }
  if (opts.hosts.length === 0) return err(fieldError("no_hosts", "/hosts", "/hosts: no host to serve"));
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? jsonLinesLogger();
  const ids = opts.ids ?? randomIds;
  // Every upstream a person or operator named is reached through the one address policy.
  const connectorFetch =
    opts.connectorFetch ??
    createPolicyFetch({
      policy: opts.upstreamPolicy ?? PUBLIC_ONLY,
      ...(opts.upstreamResolver !== undefined && { resolver: opts.upstreamResolver }),
    });

  const infra = await createInfra({
    clock,
    logger,
    ...(opts.redisReplicaWait !== undefined && { replicaWait: opts.redisReplicaWait }),
    ...(opts.redisSlotMoveWaitMs !== undefined && { slotMoveWaitMs: opts.redisSlotMoveWaitMs }),
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
    ...(opts.redisKeyPrefix !== undefined && { redisKeyPrefix: opts.redisKeyPrefix }),
    ...(opts.memoryStateDir !== undefined && { memoryStateDir: opts.memoryStateDir }),
    ...(opts.availabilityRate !== undefined && { availabilityRate: opts.availabilityRate }),
    ...(opts.originRate !== undefined && { originRate: opts.originRate }),
  });
  // Made before the hosts (their approval sender holds it): closed on every way out below.
  const messenger = hostMessenger(
    opts.dataDir,
    opts.hostMessages ?? {},
    logger,
    opts.redisUrl === undefined
      ? undefined
      : { url: opts.redisUrl, prefix: `{${opts.redisKeyPrefix ?? "schcp:"}bullmq}` },
  );
  let managedStore: ManagedHostStore | undefined;
  try {
    const secret = await loadApprovalSecret(opts.dataDir);
    // The sender runs only once a booking is made, after the directory below exists.
    const built: { directory?: HostDirectory; calendarHosts: readonly CalendarHostHandle[] } = {
      calendarHosts: [],
    };
    const buildDeps: BuildHostsDeps = {
      clock,
      logger,
      store: infra.store,
      calendarState: infra.calendarState,
      onNotice: (hostId, notice) => {
        infra.notices
          .record(hostId, notice, clock.now())
          .catch((e: unknown) =>
            logger.error("upstream notice not recorded", { host_id: hostId, error: String(e) }),
          );
      },
      onTentative: approvalSender({
        handles: () => built.calendarHosts,
        hosts: () => built.directory,
        secret,
        origin: publicOrigin,
        messenger,
        now: () => clock.now(),
        budget: infra.noticeBudget,
      }),
      fetch: connectorFetch,
      ...(opts.credentials !== undefined && { credentials: opts.credentials }),
      syntheticBackend: infra.syntheticBackend,
      pacing: infra.pacing,
      ...(opts.syntheticMessages !== undefined && { syntheticMessages: opts.syntheticMessages }),
      healthPolicy: { ...DEFAULT_HEALTH_POLICY, ...opts.hostHealth },
      ...(opts.syntheticFaults !== undefined && { syntheticFaults: opts.syntheticFaults }),
    };
    const hosts = await buildHosts(opts.hosts, opts.dataDir, buildDeps);
    if (!hosts.ok) {
      await messenger.close();
      await infra.close();
      return hosts;
    }
    const { directory, generatedKeys, calendarHosts } = hosts.value;
    built.directory = directory;
    built.calendarHosts = calendarHosts;

    // The calendar sync queue, once started (below, or by the first calendar host activated).
    const sync: { queue?: CalendarSyncQueue; start?: () => CalendarSyncQueue } = {};
    const syncFailed = (hostId: string) => (e: unknown) =>
      logger.error("calendar sync schedule not changed", { host_id: hostId, error: String(e) });
    const dropCalendarHost = (hostId: string): void => {
      const at = calendarHosts.findIndex((h) => h.hostId === hostId);
      if (at >= 0) calendarHosts.splice(at, 1);
    };
    // Console-created hosts: built like the config file's, served in the same directory. Their
    // calendar push channels (push_url) are wired at the next start only: until then a managed
    // calendar host is synced on its schedule and on request.
    managedStore = await openManagedHostStore({
      dataDir: opts.dataDir,
      redisKeyPrefix: opts.redisKeyPrefix ?? "schcp:",
      ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
    });
    const managed = createManagedHosts<BuiltHost>({
      store: managedStore,
      configIds: new Set(opts.hosts.map((h) => h.id)),
      logger,
      clock,
      live: {
        build: (config) => buildHost(config, "", opts.dataDir, buildDeps),
        serve: ({ runtime: host, calendarHost }) => {
          const hostId = host.config.id;
          directory.put(host);
          dropCalendarHost(hostId);
          if (calendarHost === undefined) {
            sync.queue?.remove(hostId).catch(syncFailed(hostId));
            return;
          }
          calendarHosts.push(calendarHost);
          if (sync.queue !== undefined) {
            sync.queue.add({ hostId, everyMs: calendarHost.section.syncEveryMs }).catch(syncFailed(hostId));
          } else if (sync.start !== undefined) {
            // The first calendar host of this process: the queue starts with it scheduled.
            sync.queue = sync.start();
          }
        },
        stop: (hostId) => {
          directory.remove(hostId);
          dropCalendarHost(hostId);
          sync.queue?.remove(hostId).catch(syncFailed(hostId));
        },
      },
    });
    await managed.load();
    const token = await operatorCredential(opts.dataDir, opts.operatorToken);
    const outbox = createOutbox(
      opts.redisUrl === undefined
        ? {
            mode: "memory",
            hosts: directory,
            clock,
            logger,
            ...(opts.webhookFetch !== undefined && { fetch: opts.webhookFetch }),
          }
        : {
            mode: "bullmq",
            hosts: directory,
            clock,
            logger,
            redisUrl: opts.redisUrl,
            prefix: `{${opts.redisKeyPrefix ?? "schcp:"}bullmq}`,
            ...(opts.webhookFetch !== undefined && { fetch: opts.webhookFetch }),
          },
    );
    const deps: BookingDeps = {
      hosts: directory,
      store: infra.store,
      clock,
      ids,
      outbox,
      bookingIndex: infra.bookingIndex,
      publicPool: infra.publicPool,
    };
    const service = createBookingService(deps);
    const a2a = await a2aWiring({
      core: service,
      booking: deps,
      logger,
      dataDir: opts.dataDir,
      ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
      ...(opts.redisKeyPrefix !== undefined && { redisKeyPrefix: opts.redisKeyPrefix }),
    });
    const squareWebhooks = await squareWebhookWiring({
      // The config file's hosts and the console's active at start (one activated later is
      // keyed at the next start, as its calendar push is).
      hosts: directory.list().map((h) => h.config),
      directory,
      store: infra.store,
      api: service,
      clock,
      logger,
      redisKeyPrefix: opts.redisKeyPrefix ?? "schcp:",
      ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
    });
    const workers: Workers | undefined =
      opts.workers === false
        ? undefined
        : startWorkers({
            deps,
            maintenance: service,
            logger,
            ...(opts.redisKeyPrefix !== undefined && { redisKeyPrefix: opts.redisKeyPrefix }),
            ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
            ...(typeof opts.workers === "object" && { intervals: opts.workers }),
          });
    // §5.8: a sync that shows a booking's time busy displaces it through the booking core.
    const displacement = {
      propose: (hostId: string, bookingId: string, input: { start: string }) =>
        service.propose(hostId, bookingId, input),
      messenger,
    };
    if (opts.workers !== false) {
      sync.start = () =>
        startCalendarSync({
          handles: calendarHosts,
          hosts: directory,
          store: infra.store,
          state: infra.calendarState,
          now: () => clock.now(),
          logger,
          displacement,
          ...(opts.calendarSyncConcurrency !== undefined && {
            syncConcurrency: opts.calendarSyncConcurrency,
          }),
          ...(opts.redisUrl !== undefined && {
            redis: { url: opts.redisUrl, prefix: `{${opts.redisKeyPrefix ?? "schcp:"}bullmq}` },
          }),
        });
      if (calendarHosts.length > 0) sync.queue = sync.start();
    }
    const calendarSync = sync.queue;
    // Push: hosts with a push_url are also synced when their calendar notifies.
    const calendarPush =
      calendarSync === undefined
        ? undefined
        : await calendarPushWiring({
            handles: calendarHosts,
            requestSync: (hostId, reason) => calendarSync.request(hostId, reason),
            logger,
            now: () => clock.now(),
            redisKeyPrefix: opts.redisKeyPrefix ?? "schcp:",
            ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
          }).catch(async (e: unknown) => {
            // Started above: stop them before the start fails.
            await calendarSync.close();
            await workers?.stop();
            throw e;
          });
    const operatorConsole = await consoleWiring({
      clock,
      redisKeyPrefix: opts.redisKeyPrefix ?? "schcp:",
      dataDir: opts.dataDir,
      ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
      ...(opts.consoleSessions !== undefined && { sessionPolicy: opts.consoleSessions }),
      ...(opts.ownerCaps !== undefined && { ownerCaps: opts.ownerCaps }),
    }).catch(async (e: unknown) => {
      // Started above: stop them before the start fails.
      await calendarPush?.close();
      await calendarSync?.close();
      await workers?.stop();
      await squareWebhooks?.close();
      throw e;
    });
    // With a vault there is always something to disconnect (CalDAV passwords too); Connect's
    // start/callback only when an OAuth client is configured (connectWiring decides).
    const connect =
      opts.credentials !== undefined
        ? await connectWiring({
            providers: opts.connect ?? {},
            publicOrigin,
            vault: opts.credentials.vault,
            ...(opts.credentials.basic !== undefined && { basicVault: opts.credentials.basic }),
            env: opts.credentials.env,
            clock,
            logger,
            redisKeyPrefix: opts.redisKeyPrefix ?? "schcp:",
            ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
          }).catch(async (e: unknown) => {
            await operatorConsole.close();
            await calendarPush?.close();
            await calendarSync?.close();
            await workers?.stop();
            await squareWebhooks?.close();
            throw e;
          })
        : undefined;
    const operatorName = opts.operatorName ?? "Booking Gateway";
    // Another replica's console changes reach this one here (a missed tick is caught by the next).
    const reconcileMs = opts.managedHostsReconcileMs ?? 2_000;
    const reconcileTimer =
      reconcileMs === false
        ? undefined
        : setInterval(() => {
            managed.reconcile().catch((e: unknown) => {
              logger.error("managed hosts not reconciled", { error: String(e) });
            });
          }, reconcileMs);
    reconcileTimer?.unref();
    let closing: Promise<void> | undefined;

    const runtime: GatewayRuntime = {
      publicOrigin,
      hosts: directory,
      api: service,
      service,
      a2a: a2a.intents,
      a2aKeys: a2a.keys,
      store: infra.store,
      outbox,
      ids,
      documents: {
        operator: () => operatorDocument(directory.list(), { publicOrigin, operatorName }),
        operatorEntity: cachedOperatorDocument(() => directory.list(), { publicOrigin, operatorName }),
        host: (hostId) => {
          const host = directory.get(hostId);
          return host === undefined ? undefined : hostDiscoveryDocument(host, { publicOrigin, operatorName });
        },
      },
      nonces: infra.store,
      idempotency: createIdempotencyGate({ store: infra.store, clock, hosts: directory }),
      rateLimiter: infra.rateLimiter,
      ...(infra.originLimiter !== undefined && {
        originRateLimit: { limiter: infra.originLimiter, trustForwardedFor: opts.trustForwardedFor === true },
      }),
      ...(opts.allowPrivateCallbacksForTests === true && { allowPrivateCallbacksForTests: true }),
      clock,
      logger,
      operatorToken: token.token,
      operatorTokenSource: token.source,
      generatedKeys,
      ...(opts.maxBodyBytes !== undefined && { maxBodyBytes: opts.maxBodyBytes }),
      validateResponses: opts.validateResponses ?? true,
      approval: approvalRoutes({ deps, service, secret, uses: infra.linkUses }),
      console:
        opts.credentials === undefined
          ? operatorConsole.deps
          : {
              ...operatorConsole.deps,
              // The setup page's calendars/locations, read with the connectors' own client and
              // origins (the same fetch, so whatever reaches the connectors reaches these).
              setupChoices: createSetupChoices({
                credentials: opts.credentials,
                ...(opts.credentials.basic !== undefined && { basicVault: opts.credentials.basic }),
                fetch: connectorFetch,
                clock,
              }),
            },
      ...(connect !== undefined && { connect: connect.deps }),
      upstreams: {
        notices: (hostId) => infra.notices.list(hostId),
        calendar: async (hostId) =>
          calendarHosts.some((h) => h.hostId === hostId)
            ? {
                reports: await infra.calendarState.reports(hostId),
                pendingEvents: await infra.calendarState.pendingOwn(hostId),
              }
            : undefined,
        syncNow: async (hostId) => {
          const queue = sync.queue;
          if (!calendarHosts.some((h) => h.hostId === hostId) || queue === undefined) return false;
          await queue.request(hostId, "operator");
          return true;
        },
      },
      ...(squareWebhooks !== undefined && { squareWebhooks: squareWebhooks.receiver }),
      ...(calendarPush !== undefined && { calendarPush: calendarPush.receiver }),
      calendarHosts,
      managedHosts: managed,
      messenger,
      persist: () => infra.persist(),
      syncCalendarNow: async (hostId) => {
        if (!calendarHosts.some((h) => h.hostId === hostId)) return false;
        await runCalendarHost(
          {
            handles: calendarHosts,
            hosts: directory,
            store: infra.store,
            state: infra.calendarState,
            now: () => clock.now(),
            logger,
            displacement,
          },
          hostId,
          "request",
        );
        return true;
      },
      close: () =>
        (closing ??= (async () => {
          clearInterval(reconcileTimer);
          await calendarPush?.close();
          await sync.queue?.close();
          await managedStore?.close();
          await workers?.stop();
          await squareWebhooks?.close();
          await operatorConsole.close();
          await connect?.close();
          await outbox.close();
          await a2a.close();
          await messenger.close();
          await infra.close();
        })()),
    };
    return ok(runtime);
  } catch (e) {
    await managedStore?.close();
    await messenger.close();
    await infra.close();
    throw e;
  }
}
