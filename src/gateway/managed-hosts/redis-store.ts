/**
 * ManagedHostStore in Redis, shared by every replica: one hash `<prefix>managed-hosts`
 * (id -> record JSON) and a counter `<prefix>managed-hosts:version` bumped in the same script
 * as each write, so a replica that sees the counter unchanged knows nothing changed. The
 * create-or-compare-and-replace runs as one Lua script: two replicas (or two browser tabs)
 * cannot both win.
 *
 * On a Redis Cluster the script's two keys must share a slot: there the counter is
 * `{<prefix>managed-hosts}:version`, whose hash tag is the hash's whole name (a key without
 * braces hashes whole), so both land in one slot. On one server the counter keeps its old
 * name, so a running deployment's replicas (old and new code) go on watching the same key.
 */
import { isCluster, type RedisClient } from "../../redis/client.js";
import { connectClient, createClient, unavailable } from "../../holds/redis/connection.js";
import type { ManagedHostRecord, ManagedHostStore } from "./port.js";
import { parseRecord } from "./record-json.js";

// KEYS: hash, version. ARGV: id, json, ifUpdatedAt ("" = create).
const PUT = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[3] == '' then
  if cur then return 'exists' end
else
  if not cur then return 'conflict' end
  local okd, rec = pcall(cjson.decode, cur)
  if not okd or type(rec) ~= 'table' or rec.updatedAt ~= tonumber(ARGV[3]) then return 'conflict' end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
return 'ok'
`;

// KEYS: hash, version. ARGV: id.
const DELETE = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then redis.call('INCR', KEYS[2]) end
return 1
`;

export class RedisManagedHostStore implements ManagedHostStore {
  private readonly hash: string;
  private readonly versionKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix = "schcp:",
    private readonly onClose: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.hash = `${prefix}managed-hosts`;
    this.versionKey = isCluster(redis) ? `{${this.hash}}:version` : `${prefix}managed-hosts:version`;
  }

  async list(): Promise<ManagedHostRecord[]> {
    const all = await this.call("list", () => this.redis.hgetall(this.hash));
    return Object.entries(all)
      .map(([id, text]) => ({ id, r: parseRecord(text) }))
      .filter((x): x is { id: string; r: ManagedHostRecord } => x.r?.id === x.id)
      .map((x) => x.r)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  async get(id: string): Promise<ManagedHostRecord | undefined> {
    const text = await this.call("get", () => this.redis.hget(this.hash, id));
    const r = text === null ? undefined : parseRecord(text);
    return r?.id === id ? r : undefined;
  }

  async put(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<"ok" | "exists" | "conflict"> {
    const answer = await this.call("put", () =>
      this.redis.eval(
        PUT,
        2,
        this.hash,
        this.versionKey,
        record.id,
        JSON.stringify(record),
        ifUpdatedAt === undefined ? "" : String(ifUpdatedAt),
      ),
    );
    if (answer === "ok" || answer === "exists" || answer === "conflict") return answer;
    throw new Error(`managed host store: unexpected answer ${String(answer)}`);
  }

  async delete(id: string): Promise<void> {
    await this.call("delete", () => this.redis.eval(DELETE, 2, this.hash, this.versionKey, id));
  }

  async version(): Promise<string> {
    return (await this.call("version", () => this.redis.get(this.versionKey))) ?? "0";
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private async call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw unavailable(`managed hosts ${operation}`, e);
    }
  }
}

/** A store on its own connection (closed with the store), failing fast when Redis is away. */
export async function openRedisManagedHostStore(url: string, prefix: string): Promise<RedisManagedHostStore> {
  const client = createClient({ url });
  await connectClient(client, url);
  return new RedisManagedHostStore(client, prefix, () =>
    client.quit().then(
      () => undefined,
      () => client.disconnect(),
    ),
  );
}
