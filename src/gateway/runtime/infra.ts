/**
 * The shared infrastructure of one gateway process, in one of two modes:
 * - memory (the embedded default): MemoryHoldStore, an in-process synthetic platform, an
 *   in-process token bucket; nothing outlives the process;
 * - Redis (REDIS_URL): the Redis GatewayStore, a Redis-backed synthetic platform and a Redis
 *   token bucket, so several gateway processes serve the same hosts and a restart loses no
 *   hold, booking, nonce or idempotency record.
 */
import type { Logger } from "../../protocol/logger.js";
import type { Metrics } from "../../protocol/metrics.js";
import { countedLimiter } from "../metrics/counted-limiter.js";
import { DEFAULT_REDIS_KEY_PREFIX, redisKeys } from "../../redis/keys.js";
import type { Clock } from "../../protocol/clock.js";
import type { BookingIndex } from "../../booking/api.js";
import { storeBookingIndex } from "../../booking/bookings/booking-index.js";
import { MemorySyntheticBackend, RedisSyntheticBackend } from "../../connectors/synthetic/index.js";
import type { SyntheticBackend } from "../../connectors/synthetic/index.js";
import { MemoryHoldStore } from "../../holds/memory/memory-store.js";
import type { GatewayStore } from "../../holds/port.js";
import { createRedisGatewayStore, type ReplicaWaitPolicy } from "../../holds/redis/index.js";
import { connectClient, createClient } from "../../redis/connection.js";
import { DEFAULT_AVAILABILITY_RATE, MemoryRateLimiter } from "../../edges/http/rate-limit.js";
import type { TokenBucketPolicy } from "../../edges/http/rate-limit.js";
import { DEFAULT_ORIGIN_RATE } from "../../edges/http/origin-limit.js";
import type { RateLimiter } from "../../edges/http/types.js";
import { RedisRateLimiter } from "./redis-rate-limit.js";
import { LeasedRateLimiter } from "../../edges/http/leased-rate-limit.js";
import { MemoryContactStore, RedisContactStore, type ContactStore } from "../../booking/hosts/contacts.js";
import { openMemoryStateFile, type SnapshotParts } from "./memory-state-file.js";
import {
  MemoryCalendarStateStore,
  RedisCalendarStateStore,
  type CalendarStateStore,
} from "../../booking/calendar/state.js";
import { MemoryNoticeBook, RedisNoticeBook, type NoticeBook } from "../../booking/hosts/notices.js";
import { MemoryLinkUseStore, RedisLinkUseStore, type LinkUseStore } from "../../booking/approval/links.js";
import { MemoryPacingGate, type PacingGate } from "../../connectors/http/pacing.js";
import { RedisPacingGate } from "./redis-pacing.js";
import { warnOfLegacyQueues } from "./legacy-keys.js";
import { MemoryNoticeBudget, RedisNoticeBudget, type NoticeBudget } from "../../booking/approval/notify.js";
import { MemoryPublicPool, RedisPublicPool, type PublicPoolStore } from "../../booking/public-pool/index.js";
import { MemoryRuleStore, RedisRuleStore, type RuleStore } from "../../booking/answers/index.js";

export interface Infra {
  readonly store: GatewayStore;
  readonly syntheticBackend: SyntheticBackend;
  readonly rateLimiter: RateLimiter;
  /** §7.2 per network origin (src/edges/http/origin-limit.ts); absent when turned off. */
  readonly originLimiter?: RateLimiter;
  /** Lists a host's bookings for the operator API: the store's own index, written with each booking. */
  readonly bookingIndex: BookingIndex;
  /** Calendar hosts' synced events, cursors, reports and own events (src/booking/calendar). */
  readonly calendarState: CalendarStateStore;
  /** Upstream Deprecation/Sunset notices per host. */
  readonly notices: NoticeBook;
  /** Approval links already used. */
  readonly linkUses: LinkUseStore;
  /** Upstream accounts told to wait (Retry-After), shared by every caller and, with Redis, process. */
  readonly pacing: PacingGate;
  /** With a memory state file: writes the state now (after each call that may have changed it). */
  persist(): Promise<void>;
  /** Newcomers' places at each host (src/booking/public-pool), shared through Redis when there is one. */
  readonly publicPool: PublicPoolStore;
  /** The rules people signed for their calendars (SchCP §7.9). */
  readonly rules: RuleStore;
  /** Approval links sent per host and window (src/booking/approval/notify.ts). */
  readonly noticeBudget: NoticeBudget;
  /** Contacts-only hosts' contact lists (SchCP §7.8, src/booking/hosts/contacts.ts). */
  readonly contacts: ContactStore;
  close(): Promise<void>;
}

export interface InfraOptions {
  readonly clock: Clock;
  readonly redisUrl?: string;
  /** Prefix of every Redis key this gateway writes (default "schcp:"); tests give each run its own. */
  readonly redisKeyPrefix?: string;
  readonly availabilityRate?: TokenBucketPolicy;
  /** The per-network-origin bucket (default DEFAULT_ORIGIN_RATE); false turns it off. */
  readonly originRate?: TokenBucketPolicy | false;
  /** Replicas a booking write waits for (holds/redis/replica-wait.ts); none by default. */
  readonly replicaWait?: ReplicaWaitPolicy;
  /** On a Redis Cluster, how long a store call waits out its host's slot moving (default 5 s). */
  readonly slotMoveWaitMs?: number;
  /** Where a booking answered before its replicas had it is reported. */
  readonly logger?: Logger;
  /** Counts the rate limits' refusals ("availability", "origin"). */
  readonly metrics?: Metrics;
  /**
   * Without Redis: keep the memory stores in this directory between processes (one process
   * at a time, memory-state-file.ts), for commands run once per client session (`mcp`).
   */
  readonly memoryStateDir?: string;
}

export async function createInfra(opts: InfraOptions): Promise<Infra> {
  const rate = opts.availabilityRate ?? DEFAULT_AVAILABILITY_RATE;
  const originRate = opts.originRate === undefined ? DEFAULT_ORIGIN_RATE : opts.originRate;
  const counted = (limiter: RateLimiter, limit: string): RateLimiter =>
    opts.metrics === undefined ? limiter : countedLimiter(limiter, limit, opts.metrics);
  if (opts.redisUrl === undefined) {
    const store = new MemoryHoldStore({ clock: opts.clock });
    const syntheticBackend = new MemorySyntheticBackend();
    const calendarState = new MemoryCalendarStateStore();
    const linkUses = new MemoryLinkUseStore(opts.clock);
    const file =
      opts.memoryStateDir === undefined
        ? undefined
        : await openMemoryStateFile(opts.memoryStateDir, {
            holds: store,
            synthetic: syntheticBackend,
            calendar: calendarState,
            links: linkUses,
          } as unknown as SnapshotParts);
    return {
      store,
      syntheticBackend,
      rateLimiter: counted(new MemoryRateLimiter(rate), "availability"),
      ...(originRate !== false && { originLimiter: counted(new MemoryRateLimiter(originRate), "origin") }),
      bookingIndex: storeBookingIndex(store),
      calendarState,
      notices: new MemoryNoticeBook(),
      linkUses,
      pacing: new MemoryPacingGate(),
      publicPool: new MemoryPublicPool(),
      rules: new MemoryRuleStore(),
      noticeBudget: new MemoryNoticeBudget(),
      contacts: new MemoryContactStore(),
      persist: () => file?.save() ?? Promise.resolve(),
      close: () => file?.close() ?? Promise.resolve(),
    };
  }
  const prefix = opts.redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  };
  try {
    const store = await createRedisGatewayStore({
      url: opts.redisUrl,
      keyPrefix: prefix,
      ...(opts.slotMoveWaitMs !== undefined && { slotMoveWaitMs: opts.slotMoveWaitMs }),
      ...(opts.replicaWait !== undefined && {
        replicaWait: opts.replicaWait,
        onReplicaShortfall: (e) =>
          opts.logger?.warn("a booking was answered before its Redis replicas had it (WAIT timed out)", {
            operation: e.operation,
            host_id: e.hostId,
            acknowledged: e.acknowledged,
            wanted: e.wanted,
          }),
      }),
    });
    closers.push(() => store.close());
    const backend = await RedisSyntheticBackend.connect(
      opts.redisUrl,
      redisKeys(prefix).under("synthetic").prefix,
    );
    closers.push(() => backend.close());
    const client = createClient({ url: opts.redisUrl });
    await connectClient(client, opts.redisUrl);
    closers.push(() =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      ),
    );
    if (opts.logger !== undefined) await warnOfLegacyQueues(client, prefix, opts.logger);
    return {
      store,
      syntheticBackend: backend,
      // Leased a few tokens at a time: most requests make no Redis call (leased-rate-limit.ts).
      rateLimiter: counted(new LeasedRateLimiter(new RedisRateLimiter(client, rate, prefix)), "availability"),
      ...(originRate !== false && {
        originLimiter: counted(
          new LeasedRateLimiter(new RedisRateLimiter(client, originRate, prefix, "origin")),
          "origin",
        ),
      }),
      bookingIndex: storeBookingIndex(store),
      calendarState: new RedisCalendarStateStore(client, prefix),
      notices: new RedisNoticeBook(client, prefix),
      linkUses: new RedisLinkUseStore(client, prefix, opts.clock),
      pacing: new RedisPacingGate(client, prefix, (error) =>
        opts.logger?.warn("upstream pacing: Redis did not answer; this process's own wait still holds", {
          error: error instanceof Error ? error.message : String(error),
        }),
      ),
      publicPool: new RedisPublicPool(client, prefix),
      rules: new RedisRuleStore(client, prefix),
      noticeBudget: new RedisNoticeBudget(client, prefix),
      contacts: new RedisContactStore(client, prefix),
      // Every Redis write is already shared.
      persist: () => Promise.resolve(),
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
