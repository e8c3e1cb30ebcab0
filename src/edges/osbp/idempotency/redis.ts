/**
 * booking.create idempotency shared by every process on one Redis (the multi-instance case
 * the file store cannot serve; OSBP "Security and Privacy Considerations"). Each operation
 * is one Lua script, so begin's check-and-take, settle's holder check and release's holder
 * check are atomic across processes. The decisions are memory.ts's decideBegin, applied to
 * the entry the begin script returns; the script itself decides only "no live entry: take
 * the lease".
 *
 * Key: `${prefix}osbp:idem:{<key>}`; the braces make the idempotency key the Redis Cluster
 * hash tag. Every Redis failure rejects with IdempotencyStoreError. Whether a command that
 * failed in flight ran depends on the client's settings (see src/holds/redis/connection.ts
 * for a fail-fast configuration); a begin that may have run leaves at most a lease, which
 * expires after leaseMs.
 */
import type { RedisClient } from "../../../redis/client.js";
import type { Receipt } from "../../../protocol/osbp/index.js";
import { parseEntry, resolveTimings, type ResolvedTimings } from "./entry-codec.js";
import { messageOf } from "./errors.js";
import { decideBegin } from "./memory.js";
import {
  IdempotencyStoreError,
  type IdempotencyBegin,
  type IdempotencyTimings,
  type OsbpIdempotencyStore,
} from "./port.js";
import { evalScript, type RedisScript } from "../../../redis/script.js";
import { IDEMPOTENCY_SCRIPTS } from "./redis-scripts.js";

export interface RedisIdempotencyOptions extends IdempotencyTimings {
  /** Prepended to every key (default ""), e.g. "osbp-prod:" or a test's unique prefix. */
  readonly prefix?: string;
}

export class RedisIdempotencyStore implements OsbpIdempotencyStore {
  readonly prefix: string;
  readonly #redis: RedisClient;
  readonly #timings: ResolvedTimings;
  #closed = false;

  /**
   * `redis` stays the caller's: close() never quits or disconnects it, since the same client
   * usually serves other stores. Quit it yourself after closing everything that uses it.
   */
  constructor(redis: RedisClient, options: RedisIdempotencyOptions = {}) {
    this.#redis = redis;
    this.prefix = options.prefix ?? "";
    this.#timings = resolveTimings(options);
  }

  /** The Redis key of an idempotency key (exposed for operators and tests). */
  keyOf(key: string): string {
    return `${this.prefix}osbp:idem:{${key}}`;
  }

  async begin(key: string, payloadHash: string, now: number): Promise<IdempotencyBegin> {
    const until = now + this.#timings.leaseMs;
    const reply = await this.#run("begin", IDEMPOTENCY_SCRIPTS.begin, key, [
      payloadHash,
      String(now),
      String(until),
      String(this.#timings.leaseMs),
    ]);
    if (!Array.isArray(reply)) throw this.#corrupt(key, "begin replied with a non-array");
    if (reply[0] === "started") return { kind: "started" };
    if (reply[0] !== "existing") throw this.#corrupt(key, `begin replied ${JSON.stringify(reply[0])}`);
    const entry = this.#entryFrom(key, reply.slice(1));
    const decision = decideBegin(entry, payloadHash, now);
    // The script judged this entry live; decideBegin must agree, or the two have drifted.
    if (decision.kind === "started") throw this.#corrupt(key, "the script and decideBegin disagree");
    return decision;
  }

  async settle(key: string, payloadHash: string, receipt: Receipt, now: number): Promise<void> {
    await this.#run("settle", IDEMPOTENCY_SCRIPTS.settle, key, [
      payloadHash,
      JSON.stringify(receipt),
      String(now + this.#timings.retentionMs),
      String(this.#timings.retentionMs),
    ]);
  }

  async release(key: string, payloadHash: string): Promise<void> {
    await this.#run("release", IDEMPOTENCY_SCRIPTS.release, key, [payloadHash]);
  }

  /** Marks the store closed (later calls reject); the client is left open (see the constructor). */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  async #run(operation: string, script: RedisScript, key: string, args: string[]): Promise<unknown> {
    if (this.#closed) throw new IdempotencyStoreError("the Redis idempotency store is closed");
    try {
      return await evalScript(this.#redis, script, [this.keyOf(key)], args);
    } catch (error) {
      throw new IdempotencyStoreError(`Redis idempotency ${operation} failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  /** Rebuilds the entry from the begin script's {st, ph, un, rc}, refusing what does not parse. */
  #entryFrom(key: string, fields: unknown[]) {
    const [state, payloadHash, until, receiptJson] = fields.map((f) => (typeof f === "string" ? f : ""));
    let receipt: unknown;
    if (state === "settled") {
      try {
        receipt = JSON.parse(receiptJson ?? "");
      } catch {
        throw this.#corrupt(key, "the receipt is not JSON");
      }
    }
    const entry = parseEntry({ state, payloadHash, until: until === "" ? NaN : Number(until), receipt });
    if (typeof entry === "string") throw this.#corrupt(key, entry);
    return entry;
  }

  #corrupt(key: string, reason: string): IdempotencyStoreError {
    return new IdempotencyStoreError(
      `Redis idempotency entry ${this.keyOf(key)} is unusable (${reason}); refusing to treat it as absent`,
    );
  }
}
