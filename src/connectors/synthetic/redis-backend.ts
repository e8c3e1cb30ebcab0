/**
 * The synthetic platform's database in Redis, so several gateway processes share one
 * synthetic upstream the way they would share a real platform.
 *
 * Keys, all under `<prefix>{<hostId>}:` (one Redis Cluster slot per host, so a script may
 * touch them all):
 *   ver            STRING  the host's version, bumped by every write
 *   appt           HASH    appointment id -> JSON (appointment.ts)
 *   ends           ZSET    occupying appointment ids, score = occupiedUntil
 *   keys           HASH    idempotency key -> appointment id
 *   code:<contact> STRING  pending verification code, JSON
 *   sends:<contact> ZSET   admitted verification sends, member unique, score = send time
 *
 * Reads and writes are one Lua script each, so a read is a consistent view and a write is
 * compare-and-set on `ver` with the idempotency check first (backend.ts). The scripts are
 * short and live here rather than in .lua files: tsc does not copy those into dist/.
 */
import { randomUUID } from "node:crypto";
import type { RedisClient } from "../../redis/client.js";
import { connectClient, createClient } from "../../redis/connection.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript, type RedisScript } from "../../redis/script.js";
import {
  decodeAppointment,
  encodeAppointment,
  occupiesTime,
  type SyntheticAppointment,
} from "./appointment.js";
import type {
  SyntheticBackend,
  SyntheticReadQuery,
  SyntheticSnapshot,
  SyntheticWriteOutcome,
  VerificationRecord,
} from "./backend.js";
import type { SendAdmission, VerificationSendLimit } from "./send-limit.js";

// KEYS: ver appt ends keys. ARGV: rangeStart rangeEnd ("" = no range), idemKey ("" = none), ids...
const READ = redisScript(
  "synthetic-read",
  `
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
local occupying = {}
if ARGV[1] ~= '' then
  local rangeEnd = tonumber(ARGV[2])
  local ids = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. ARGV[1], '+inf')
  for _, id in ipairs(ids) do
    local json = redis.call('HGET', KEYS[2], id)
    if json and cjson.decode(json).start < rangeEnd then occupying[#occupying + 1] = json end
  end
end
local byId = {}
for i = 4, #ARGV do byId[#byId + 1] = redis.call('HGET', KEYS[2], ARGV[i]) end
local byKey = false
if ARGV[3] ~= '' then
  local id = redis.call('HGET', KEYS[4], ARGV[3])
  if id then byKey = redis.call('HGET', KEYS[2], id) end
end
return { version, occupying, byId, byKey }
`,
);

// KEYS: ver appt ends keys. ARGV: expectedVersion id json occupiedUntil ("" = frees its time) idemKey create(0/1)
const WRITE = redisScript(
  "synthetic-write",
  `
if ARGV[6] == '1' then
  local existing = redis.call('HGET', KEYS[4], ARGV[5])
  if existing then return { 'exists', redis.call('HGET', KEYS[2], existing) } end
end
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
if version ~= tonumber(ARGV[1]) then return { 'conflict' } end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
if ARGV[4] == '' then redis.call('ZREM', KEYS[3], ARGV[2]) else redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2]) end
if ARGV[6] == '1' then redis.call('HSET', KEYS[4], ARGV[5], ARGV[2]) end
return { 'written', redis.call('INCR', KEYS[1]) }
`,
);

// The rule of send-limit.ts admitInWindow: a send at t counts while t > now - window.
// KEYS: sends. ARGV: now windowMs maxSends member keepMs
const ADMIT_SEND = redisScript(
  "synthetic-admit-send",
  `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return { 0, tonumber(oldest[2]) + window - now }
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
return { 1, 0 }
`,
);

/**
 * Codes and send logs live a day in Redis (send logs at least their window); their own
 * expiry is judged with the connector's clock, which tests set far from the server's.
 */
const CODE_TTL_MS = 86_400_000;

export interface RedisSyntheticBackendOptions {
  /** An ioredis client the caller owns (and closes). */
  readonly client: RedisClient;
  /** Prefix of every key (default "synthetic:"); tests use a unique one and never FLUSHALL. */
  readonly keyPrefix?: string;
}

class SyntheticBackendError extends Error {
  override readonly name = "SyntheticBackendError";
}

export class RedisSyntheticBackend implements SyntheticBackend {
  private readonly redis: RedisClient;
  private readonly keyspace: RedisKeyspace;
  private readonly ownsClient: boolean;

  /** `ownsClient`: close() quits the client (connect() passes true). */
  constructor(options: RedisSyntheticBackendOptions, ownsClient = false) {
    this.redis = options.client;
    this.keyspace = redisKeys(options.keyPrefix ?? "synthetic:");
    this.ownsClient = ownsClient;
  }

  /**
   * A backend on its own client (closed by close()), failing fast like every store's
   * (src/redis/connection.ts): no offline queue and no resend, so a command never runs late
   * after the caller gave up.
   */
  static async connect(url: string, keyPrefix?: string): Promise<RedisSyntheticBackend> {
    const client = createClient({ url });
    await connectClient(client, url);
    return new RedisSyntheticBackend(keyPrefix === undefined ? { client } : { client, keyPrefix }, true);
  }

  /** Quits the client when connect() made it; a caller's own client is left alone. */
  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private keys(hostId: string): string[] {
    return ["ver", "appt", "ends", "keys"].map((name) => this.keyspace.hostKey(hostId, name));
  }

  private codeKey(hostId: string, contact: string): string {
    return this.keyspace.hostKey(hostId, "code", contact);
  }

  private sendsKey(hostId: string, contact: string): string {
    return this.keyspace.hostKey(hostId, "sends", contact);
  }

  async read(hostId: string, query: SyntheticReadQuery): Promise<SyntheticSnapshot> {
    const ids = query.ids ?? [];
    const { range } = query;
    const reply = await this.run(READ, this.keys(hostId), [
      range === undefined ? "" : String(range.start),
      range === undefined ? "" : String(range.end),
      query.idempotencyKey ?? "",
      ...ids,
    ]);
    if (!Array.isArray(reply) || reply.length !== 4) throw new SyntheticBackendError("unexpected read reply");
    const [version, occupying, byIdReply, byKeyReply] = reply as [unknown, unknown, unknown, unknown];
    if (typeof version !== "number" || !Array.isArray(occupying) || !Array.isArray(byIdReply))
      throw new SyntheticBackendError("unexpected read reply");
    const byId = new Map<string, SyntheticAppointment>();
    ids.forEach((id, i) => {
      const json: unknown = byIdReply[i];
      if (typeof json === "string") byId.set(id, decode(json));
    });
    const snapshot = { version, occupying: occupying.map((json: unknown) => decode(json)), byId };
    return typeof byKeyReply === "string" ? { ...snapshot, byKey: decode(byKeyReply) } : snapshot;
  }

  async write(
    hostId: string,
    expectedVersion: number,
    appointment: SyntheticAppointment,
    create: boolean,
  ): Promise<SyntheticWriteOutcome> {
    const reply = await this.run(WRITE, this.keys(hostId), [
      String(expectedVersion),
      appointment.id,
      encodeAppointment(appointment),
      occupiesTime(appointment) ? String(appointment.occupiedUntil) : "",
      appointment.idempotencyKey,
      create ? "1" : "0",
    ]);
    if (!Array.isArray(reply)) throw new SyntheticBackendError("unexpected write reply");
    const [outcome, value] = reply as [unknown, unknown];
    if (outcome === "conflict") return { outcome: "conflict" };
    if (outcome === "exists") return { outcome: "exists", appointment: decode(value) };
    if (outcome === "written" && typeof value === "number") return { outcome: "written", version: value };
    throw new SyntheticBackendError("unexpected write reply");
  }

  async putCode(hostId: string, contact: string, record: VerificationRecord): Promise<void> {
    await this.redis.set(this.codeKey(hostId, contact), JSON.stringify(record), "PX", CODE_TTL_MS);
  }

  async getCode(hostId: string, contact: string): Promise<VerificationRecord | undefined> {
    const json = await this.redis.get(this.codeKey(hostId, contact));
    if (json === null) return undefined;
    const v = JSON.parse(json) as Partial<VerificationRecord>;
    if (typeof v.code !== "string" || typeof v.expiresAt !== "number")
      throw new SyntheticBackendError("corrupt verification record");
    return { code: v.code, expiresAt: v.expiresAt };
  }

  async deleteCode(hostId: string, contact: string): Promise<void> {
    await this.redis.del(this.codeKey(hostId, contact));
  }

  async admitSend(
    hostId: string,
    contact: string,
    now: number,
    limit: VerificationSendLimit,
  ): Promise<SendAdmission> {
    const reply = await this.run(
      ADMIT_SEND,
      [this.sendsKey(hostId, contact)],
      [
        String(now),
        String(limit.windowMs),
        String(limit.maxSends),
        `${now}:${randomUUID()}`,
        String(Math.max(limit.windowMs, CODE_TTL_MS)),
      ],
    );
    if (!Array.isArray(reply) || reply.length !== 2) throw new SyntheticBackendError("unexpected send reply");
    const [admitted, retryAfterMs] = reply as [unknown, unknown];
    if (admitted === 1) return { admitted: true };
    if (admitted === 0 && typeof retryAfterMs === "number") return { admitted: false, retryAfterMs };
    throw new SyntheticBackendError("unexpected send reply");
  }

  private run(script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return evalScript(this.redis, script, keys, args);
  }
}

function decode(json: unknown): SyntheticAppointment {
  const a = typeof json === "string" ? decodeAppointment(json) : undefined;
  if (a === undefined) throw new SyntheticBackendError("corrupt appointment record");
  return a;
}
