/**
 * booking.create idempotency shared by every process on one Redis (the multi-instance case
 * the file store cannot serve; OSBP "Security and Privacy Considerations"). Each operation
 * is one Lua script, so begin's check-and-take, settle's holder check and release's holder
 * check are atomic across processes. The decisions are the core's decideBegin
 * (src/booking/idempotency/entry.ts), applied to the entry the begin script returns; the
 * script itself decides only "no live entry: take the lease".
 *
 * Key: `${prefix}osbp:idem:{<organization>:<idempotency_key>}`; the braces make the stored key
 * the Redis Cluster hash tag. Every Redis failure rejects with IdempotencyStoreError. Whether a
 * command that failed in flight ran depends on the client's settings (see
 * src/redis/connection.ts for a fail-fast configuration); a begin that may have run
 * leaves at most a lease, which expires after leaseMs.
 */
import {
  decideBegin,
  type IdempotencyAttempt,
  type IdempotencyBegin,
  type IdempotencyEntry,
  type IdempotencyKey,
} from "../../../booking/idempotency/index.js";
import type { RedisClient } from "../../../redis/client.js";
import { hashTag, redisKeys } from "../../../redis/keys.js";
import type { Receipt } from "../../../protocol/osbp/index.js";
import { parseEntry, resolveTimings, type ResolvedTimings } from "./entry-codec.js";
import { messageOf } from "./errors.js";
import {
  IdempotencyStoreError,
  storedKey,
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
  keyOf(id: IdempotencyKey): string {
    return redisKeys(this.prefix).key("osbp", "idem", hashTag(storedKey(id)));
  }

  async begin(id: IdempotencyKey, fingerprint: string, now: number): Promise<IdempotencyBegin<Receipt>> {
    const until = now + this.#timings.leaseMs;
    const reply = await this.#run("begin", IDEMPOTENCY_SCRIPTS.begin, id, [
      fingerprint,
      String(now),
      String(until),
      String(this.#timings.leaseMs),
    ]);
    if (!Array.isArray(reply)) throw this.#corrupt(id, "begin replied with a non-array");
    if (reply[0] === "started") return { kind: "started", claim: fingerprint };
    if (reply[0] !== "existing") throw this.#corrupt(id, `begin replied ${JSON.stringify(reply[0])}`);
    const entry = this.#entryFrom(id, reply.slice(1));
    const decision = decideBegin(entry, fingerprint, now);
    // The script judged this entry live; decideBegin must agree, or the two have drifted.
    if (decision.kind === "free") throw this.#corrupt(id, "the script and decideBegin disagree");
    return decision;
  }

  async settle(attempt: IdempotencyAttempt, receipt: Receipt, now: number): Promise<void> {
    await this.#run("settle", IDEMPOTENCY_SCRIPTS.settle, attempt.id, [
      attempt.claim,
      JSON.stringify(receipt),
      String(now + this.#timings.retentionMs),
      String(this.#timings.retentionMs),
    ]);
  }

  async release(attempt: IdempotencyAttempt): Promise<void> {
    await this.#run("release", IDEMPOTENCY_SCRIPTS.release, attempt.id, [attempt.claim]);
  }

  /** Marks the store closed (later calls reject); the client is left open (see the constructor). */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  async #run(operation: string, script: RedisScript, id: IdempotencyKey, args: string[]): Promise<unknown> {
    if (this.#closed) throw new IdempotencyStoreError("the Redis idempotency store is closed");
    try {
      return await evalScript(this.#redis, script, [this.keyOf(id)], args);
    } catch (error) {
      throw new IdempotencyStoreError(`Redis idempotency ${operation} failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  /** Rebuilds the entry from the begin script's {st, ph, un, rc}, refusing what does not parse. */
  #entryFrom(id: IdempotencyKey, fields: unknown[]): IdempotencyEntry<Receipt> {
    const [state, payloadHash, until, receiptJson] = fields.map((f) => (typeof f === "string" ? f : ""));
    let receipt: unknown;
    if (state === "settled") {
      try {
        receipt = JSON.parse(receiptJson ?? "");
      } catch {
        throw this.#corrupt(id, "the receipt is not JSON");
      }
    }
    const entry = parseEntry({ state, payloadHash, until: until === "" ? NaN : Number(until), receipt });
    if (typeof entry === "string") throw this.#corrupt(id, entry);
    return entry;
  }

  #corrupt(id: IdempotencyKey, reason: string): IdempotencyStoreError {
    return new IdempotencyStoreError(
      `Redis idempotency entry ${this.keyOf(id)} is unusable (${reason}); refusing to treat it as absent`,
    );
  }
}
