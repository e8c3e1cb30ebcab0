/**
 * RedisHoldStore: the production GatewayStore (src/holds/port.ts). Every operation that
 * reads and writes is one Lua script (lua/*.lua), atomic across any number of gateway
 * processes and one round trip; a hold is placed by exactly one EVALSHA. Every key of a
 * host shares the Cluster slot `{hostId}` (keys.ts).
 *
 * Failures of Redis (unreachable, a dropped connection, a timeout, a script error) reject
 * with HoldStoreUnavailableError; scripts write only after all their checks pass, so
 * nothing is ever half-written. Domain outcomes are results, as the port says.
 *
 * This class is the thin public face: holds.ts, bookings.ts, occupancy.ts and side-stores.ts
 * do the work.
 */
import * as waitlist from "./waitlist.js";
import type {
  FreedOffer,
  FreedOutcome,
  WaitlistJoin,
  WaitlistJoinRefusal,
  WaitlistRecord,
  WaitlistStatus,
} from "../waitlist-port.js";
import type { Result } from "../../protocol/result.js";
import { randomUUID } from "node:crypto";
import { isCluster, type RedisClient } from "../../redis/client.js";
import { DEFAULT_REDIS_KEY_PREFIX } from "../../redis/keys.js";
import type {
  BookingIndexEntry,
  BookingListQuery,
  BookingPage,
  BookingRecord,
  NewBooking,
  ExpiryEvent,
  GatewayStore,
  HoldOutcome,
  HoldRecord,
  PlaceHoldRequest,
  IdempotencyBegin,
  IdempotencyScope,
  Interval,
  OccupancyEntry,
  ReleaseResult,
  ReputationCounts,
  ReputationOutcome,
  ReputationSubject,
  StoredResponse,
  Transition,
} from "../port.js";
import * as bookings from "./bookings.js";
import { connectClient, createClient, type RedisConnectionOptions } from "../../redis/connection.js";
import { unavailable } from "./unavailable.js";
import { StoreContext } from "./context.js";
import * as holds from "./holds.js";
import { listOccupancy } from "./occupancy.js";
import { RedisKeys } from "./keys.js";
import { luaDirectory, readScripts, ScriptRunner } from "./scripts.js";
import { ReplicaWait, type ReplicaShortfall, type ReplicaWaitPolicy } from "./replica-wait.js";
import { SideStores } from "./side-stores.js";

export interface RedisStoreOptions {
  /** Prepended to every key (default "schcp:"); tests give each run its own. */
  readonly keyPrefix?: string;
  /** How long Redis keeps a hold record after it ended (default 7 days; 0 = forever). */
  readonly endedHoldRetentionMs?: number;
  /** The sweeper prunes occupancy entries that ended this long before `now` (default 1 day). */
  readonly pruneAfterMs?: number;
  /**
   * Wait for replicas after writing a booking (confirm, cancel, reschedule) before answering,
   * so an answered booking survives a master's crash (replica-wait.ts). Default: no waiting.
   */
  readonly replicaWait?: ReplicaWaitPolicy;
  readonly onReplicaShortfall?: ReplicaShortfall;
  /**
   * On a Redis Cluster, how long a call waits for its host's slot to finish moving to another
   * master (`redis-cli --cluster reshard`) before it fails with HoldStoreUnavailableError
   * (default 5 s). Nothing is written while it waits (lua/slot-guard.lua).
   */
  readonly slotMoveWaitMs?: number;
}

export interface RedisGatewayStoreOptions extends RedisConnectionOptions, RedisStoreOptions {}

const DAY = 24 * 60 * 60 * 1000;

/** A cluster's scripts carry the slot guard and wait out slot moves (scripts.ts). */
function runner(redis: RedisClient, options: RedisStoreOptions): ScriptRunner {
  const cluster = isCluster(redis);
  return new ScriptRunner(redis, readScripts(luaDirectory(), { slotGuard: cluster }), {
    slotMoveWaitMs: options.slotMoveWaitMs,
  });
}

/** Connects, loads the scripts, and returns the store; rejects if Redis does not answer. */
export async function createRedisGatewayStore(options: RedisGatewayStoreOptions): Promise<RedisHoldStore> {
  const client = createClient(options);
  // A Redis that does not answer is the store's infrastructure error, as every failure here.
  await connectClient(client, options.url, { withinMs: options.startWithinMs }).catch((error: unknown) => {
    throw unavailable("connect", error);
  });
  const store = new RedisHoldStore(client, options);
  try {
    await store.loadScripts();
  } catch (error) {
    client.disconnect();
    throw unavailable("script load", error);
  }
  return store;
}

export class RedisHoldStore implements GatewayStore {
  readonly keys: RedisKeys;
  private readonly ctx: StoreContext;
  private readonly side: SideStores;
  private readonly replicas: ReplicaWait;
  /** Hosts this process has registered in the global hosts set (one SADD per host). */
  private readonly knownHosts = new Set<string>();

  /** `redis` should come from src/redis/connection.ts createClient (fail-fast settings). */
  constructor(
    readonly redis: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    this.keys = new RedisKeys(options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX);
    this.ctx = new StoreContext(redis, this.keys, runner(redis, options), {
      retentionMs: options.endedHoldRetentionMs ?? 7 * DAY,
      pruneAfterMs: options.pruneAfterMs ?? DAY,
    });
    this.side = new SideStores(this.ctx);
    this.replicas = new ReplicaWait(
      redis,
      options.replicaWait ?? { replicas: 0, timeoutMs: 0 },
      options.onReplicaShortfall,
    );
  }

  /** A booking write, then (when configured) its replicas' acknowledgement. */
  private async replicated<T>(
    operation: string,
    hostId: string,
    write: Promise<Transition<T>>,
  ): Promise<Transition<T>> {
    const result = await write;
    if (result.ok) await this.replicas.after(operation, hostId, this.keys.host(hostId));
    return result;
  }

  /** SCRIPT LOAD every script, so the first call of each is one round trip. */
  loadScripts(): Promise<void> {
    return this.ctx.runner.loadAll();
  }

  /** How many times a script was loaded again after NOSCRIPT (a restarted Redis). */
  get scriptReloads(): number {
    return this.ctx.runner.reloads;
  }

  /** How long a call waits out its host's slot moving (a cluster only). */
  get slotMoveWaitMs(): number {
    return this.ctx.runner.slotMoveWaitMs;
  }

  /** How many calls were made again because their host's slot was moving (a cluster only). */
  get slotMoveRetries(): number {
    return this.ctx.runner.slotMoveRetries;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  placeHold(request: PlaceHoldRequest): Promise<HoldOutcome> {
    if (this.knownHosts.has(request.hostId)) return holds.placeHold(this.ctx, request);
    return this.registerHost(request.hostId).then(() => holds.placeHold(this.ctx, request));
  }

  /** listHosts needs a global key (outside the host's slot): one SADD per host per process. */
  private async registerHost(hostId: string): Promise<void> {
    await this.ctx.call("placeHold", () => this.redis.sadd(this.keys.hosts(), hostId));
    this.knownHosts.add(hostId);
  }

  // ---- the waitlist (§5.9): waitlist.ts

  async joinWaitlist(join: WaitlistJoin): Promise<Result<WaitlistRecord, WaitlistJoinRefusal>> {
    if (!this.knownHosts.has(join.hostId)) await this.registerHost(join.hostId);
    return waitlist.joinWaitlist(this.ctx, join);
  }
  getWaitlistEntry(hostId: string, entryId: string): Promise<WaitlistRecord | undefined> {
    return waitlist.getWaitlistEntry(this.ctx, hostId, entryId);
  }
  waitingEntries(hostId: string, limit: number): Promise<readonly WaitlistRecord[]> {
    return waitlist.lineEntries(this.ctx, hostId, "wlq", limit);
  }
  offeredEntries(hostId: string, limit: number): Promise<readonly WaitlistRecord[]> {
    return waitlist.lineEntries(this.ctx, hostId, "wlo", limit);
  }
  setWaitlistStatus(
    hostId: string,
    entryId: string,
    from: readonly WaitlistStatus[],
    to: WaitlistStatus,
  ): Promise<WaitlistRecord | undefined> {
    return waitlist.setWaitlistStatus(this.ctx, hostId, entryId, from, to);
  }
  async offerFreed(offer: FreedOffer): Promise<FreedOutcome> {
    if (!this.knownHosts.has(offer.hostId)) await this.registerHost(offer.hostId);
    return waitlist.offerFreed(this.ctx, offer);
  }

  getHold(hostId: string, holdId: string, now: number): Promise<HoldRecord | undefined> {
    return holds.getHold(this.ctx, hostId, holdId, now);
  }
  releaseHold(hostId: string, holdId: string, now: number): Promise<Transition<ReleaseResult>> {
    return holds.releaseHold(this.ctx, hostId, holdId, now);
  }
  beginConfirm(
    hostId: string,
    holdId: string,
    now: number,
    leaseMs: number,
  ): Promise<Transition<{ hold: HoldRecord; fence: number }>> {
    return holds.beginConfirm(this.ctx, hostId, holdId, now, leaseMs);
  }
  completeConfirm(
    hostId: string,
    holdId: string,
    fence: number,
    booking: NewBooking,
    now: number,
  ): Promise<Transition<BookingRecord>> {
    return this.replicated(
      "completeConfirm",
      hostId,
      holds.completeConfirm(this.ctx, hostId, holdId, fence, booking, now),
    );
  }
  abortConfirm(
    hostId: string,
    holdId: string,
    fence: number,
    disposition: "release" | "held",
    now: number,
  ): Promise<Transition<HoldRecord>> {
    return holds.abortConfirm(this.ctx, hostId, holdId, fence, disposition, now);
  }
  claimStuckConfirming(
    hostId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<ReadonlyArray<{ hold: HoldRecord; fence: number }>> {
    return holds.claimStuckConfirming(this.ctx, hostId, now, leaseMs, limit);
  }
  sweepExpired(hostId: string, now: number, limit: number): Promise<number> {
    return holds.sweepExpired(this.ctx, hostId, now, limit);
  }
  listHosts(): Promise<readonly string[]> {
    return this.ctx.call("listHosts", () => this.redis.smembers(this.keys.hosts()));
  }
  takeExpiryEvents(hostId: string, limit: number): Promise<readonly ExpiryEvent[]> {
    return holds.takeExpiryEvents(this.ctx, hostId, limit);
  }

  getBooking(hostId: string, bookingId: string): Promise<BookingRecord | undefined> {
    return bookings.getBooking(this.ctx, hostId, bookingId);
  }
  listBookingIds(hostId: string, limit: number): Promise<readonly string[]> {
    return bookings.listBookingIds(this.ctx, hostId, limit);
  }
  listBookings(hostId: string, query: BookingListQuery): Promise<BookingPage> {
    return bookings.listBookings(this.ctx, hostId, query);
  }
  bookingsOverlapping(
    hostId: string,
    resourceIds: readonly string[],
    range: Interval,
  ): Promise<readonly BookingRecord[]> {
    return bookings.bookingsOverlapping(this.ctx, hostId, resourceIds, range);
  }
  bookingsDue(hostId: string, now: number, limit: number, offset = 0): Promise<readonly string[]> {
    return bookings.bookingsDue(this.ctx, hostId, now, limit, offset);
  }
  bookingIdByKey(hostId: string, key: string): Promise<string | undefined> {
    return bookings.bookingIdByKey(this.ctx, hostId, key);
  }
  backfillBookingIndex(
    hostId: string,
    describe: (payload: string) => BookingIndexEntry | undefined,
  ): Promise<number> {
    return bookings.backfillBookingIndex(this.ctx, hostId, describe);
  }
  releaseBooking(hostId: string, bookingId: string, now: number): Promise<Transition<BookingRecord>> {
    return this.replicated(
      "releaseBooking",
      hostId,
      bookings.releaseBooking(this.ctx, hostId, bookingId, now),
    );
  }
  moveBookingToHold(
    hostId: string,
    bookingId: string,
    holdId: string,
    now: number,
  ): Promise<Transition<BookingRecord>> {
    return this.replicated(
      "moveBookingToHold",
      hostId,
      bookings.moveBookingToHold(this.ctx, hostId, bookingId, holdId, now),
    );
  }
  updateBookingPayload(
    hostId: string,
    bookingId: string,
    payload: string,
    ifPayload?: string,
    index?: BookingIndexEntry,
  ): Promise<Transition<BookingRecord>> {
    return bookings.updateBooking(this.ctx, hostId, bookingId, "pl", payload, ifPayload, index);
  }
  listOccupancy(
    hostId: string,
    resourceIds: readonly string[],
    range: Interval,
    now: number,
  ): Promise<ReadonlyMap<string, readonly OccupancyEntry[]>> {
    return listOccupancy(this.ctx, hostId, resourceIds, range, now);
  }
  markAttendance(
    hostId: string,
    bookingId: string,
    attendance: "completed" | "no_show",
    end?: number,
  ): Promise<Transition<BookingRecord>> {
    return bookings.updateBooking(this.ctx, hostId, bookingId, "att", attendance, undefined, undefined, end);
  }
  isPrincipalProven(hostId: string, principal: string, now: number): Promise<boolean> {
    return bookings.isPrincipalProven(this.ctx, hostId, principal, now);
  }
  replaceBusy(hostId: string, resourceId: string, source: string, busy: readonly Interval[]): Promise<void> {
    return bookings.replaceBusy(this.ctx, hostId, resourceId, source, busy);
  }
  countForMandate(hostId: string, rootIss: string, jti: string, excludeHoldId?: string): Promise<number> {
    return bookings.countForMandate(this.ctx, hostId, rootIss, jti, excludeHoldId);
  }

  recordOutcome(subject: ReputationSubject, outcome: ReputationOutcome, now: number): Promise<void> {
    return this.side.recordOutcome(subject, outcome, now);
  }
  reputation(subject: ReputationSubject, now: number): Promise<ReputationCounts> {
    return this.side.reputation(subject, now);
  }
  rememberIfNew(keyid: string, nonce: string, expiresAtSec: number): Promise<boolean> {
    return this.side.rememberIfNew(keyid, nonce, expiresAtSec);
  }
  beginIdempotent(
    scope: IdempotencyScope,
    requestHash: string,
    now: number,
    lockMs: number,
  ): Promise<IdempotencyBegin> {
    return this.side.beginIdempotent(scope, requestHash, now, lockMs, randomUUID());
  }
  completeIdempotent(
    scope: IdempotencyScope,
    fence: string,
    record: { requestHash: string; principal: string | null; response: StoredResponse },
    now: number,
    retainMs: number,
  ): Promise<boolean> {
    return this.side.completeIdempotent(scope, fence, record, now, retainMs);
  }
  abandonIdempotent(scope: IdempotencyScope, fence: string): Promise<void> {
    return this.side.abandonIdempotent(scope, fence);
  }
}
