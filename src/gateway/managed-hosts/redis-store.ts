/**
 * ManagedHostStore in Redis, shared by every replica: one hash `<prefix>managed-hosts`
 * (id -> record JSON) and a counter `<prefix>managed-hosts:version` bumped in the same script
 * as each write, so a replica that sees the counter unchanged knows nothing changed. The
 * create-or-compare-and-replace runs as one Lua script: two replicas (or two browser tabs)
 * cannot both win.
 *
 * On a Redis Cluster the script's two keys must share a slot: there the counter is
 * `<prefix>{<prefix>managed-hosts}:version`, whose hash tag is the hash's whole name (a key
 * without braces hashes whole), so both land in one slot, and it stays under the prefix like
 * every key (src/redis/keys.ts `group`). On one server the counter keeps its old name, so a
 * running deployment's replicas (old and new code) go on watching the same key.
 *
 * Each owner's hosts are indexed in a hash `<prefix>managed-hosts:owner:<owner>` (id -> state;
 * `<prefix>{<prefix>managed-hosts}:owner:<owner>` on a cluster, the same slot again), written in the
 * same script as the record, so an owner's page reads that owner's records only and a create
 * counts the owner's caps from the index, atomically with the write. A store written before the
 * index existed gets it built once (marker `…managed-hosts:indexed`), with HSETNX so it never
 * overwrites what a newer write put there; an index entry is trusted only with its record.
 */
import { isCluster, type RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import { connectClient, createClient } from "../../redis/connection.js";
import { unavailable } from "../../holds/redis/unavailable.js";
import type {
  CreateAnswer,
  ManagedHostRecord,
  ManagedHostStore,
  OwnerCaps,
} from "../../edges/console/managed-hosts.js";
import { parseRecord } from "./record-json.js";

// KEYS: hash, version, the owner's index. ARGV: id, json, ifUpdatedAt ("" = create), owner,
// state, maxDrafts and maxHosts ("" = no caps). A create under caps counts the owner's index
// entries whose record is still there (dropping the others).
const PUT = redisScript(
  "managed-hosts-put",
  `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[3] == '' then
  if cur then return 'exists' end
  if ARGV[6] ~= '' then
    local hosts, drafts = 0, 0
    local entries = redis.call('HGETALL', KEYS[3])
    for i = 1, #entries, 2 do
      if redis.call('HEXISTS', KEYS[1], entries[i]) == 1 then
        hosts = hosts + 1
        if entries[i + 1] == 'draft' then drafts = drafts + 1 end
      else
        redis.call('HDEL', KEYS[3], entries[i])
      end
    end
    if hosts >= tonumber(ARGV[7]) then return 'too_many_hosts' end
    if ARGV[5] == 'draft' and drafts >= tonumber(ARGV[6]) then return 'too_many_drafts' end
  end
else
  if not cur then return 'conflict' end
  local okd, rec = pcall(cjson.decode, cur)
  if not okd or type(rec) ~= 'table' or rec.updatedAt ~= tonumber(ARGV[3]) or rec.owner ~= ARGV[4] then
    return 'conflict'
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[5])
redis.call('INCR', KEYS[2])
return 'ok'
`,
);

// KEYS: hash, version, the owner's index. ARGV: id, owner. 0 when the stored record names
// another owner than the one whose index was given (the caller reads it again).
const DELETE = redisScript(
  "managed-hosts-delete",
  `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local okd, rec = pcall(cjson.decode, cur)
  if okd and type(rec) == 'table' and type(rec.owner) == 'string' and rec.owner ~= ARGV[2] then return 0 end
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('INCR', KEYS[2])
end
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
`,
);

/** The owner a stored record names, read leniently ("" when it names none). */
function ownerOf(text: string | null): string {
  if (text === null) return "";
  try {
    const owner = (JSON.parse(text) as { owner?: unknown }).owner;
    return typeof owner === "string" ? owner : "";
  } catch {
    return "";
  }
}

export class RedisManagedHostStore implements ManagedHostStore {
  private readonly hash: string;
  private readonly versionKey: string;
  /**
   * The counter, owner keys and the index marker: under `<prefix>managed-hosts:`, and on a
   * cluster under the hash's whole name as a hash tag (`<prefix>{<prefix>managed-hosts}:`).
   */
  private readonly near: RedisKeyspace;
  private indexed: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    prefix?: string,
    private readonly onClose: () => Promise<void> = () => Promise.resolve(),
  ) {
    const keys = redisKeys(prefix);
    this.hash = keys.key("managed-hosts");
    this.near = isCluster(redis) ? redisKeys(`${keys.group("managed-hosts")}:`) : keys.under("managed-hosts");
    this.versionKey = this.near.key("version");
  }

  private ownerKey(owner: string): string {
    return this.near.key("owner", owner);
  }

  async listOwnedBy(owner: string): Promise<ManagedHostRecord[]> {
    await this.ensureIndex();
    const ids = (await this.call("list", () => this.redis.hkeys(this.ownerKey(owner)))).sort();
    if (ids.length === 0) return [];
    const texts = await this.call("list", () => this.redis.hmget(this.hash, ...ids));
    return ids.flatMap((id, i) => {
      const text = texts[i];
      const r = text === null || text === undefined ? undefined : parseRecord(text);
      return r?.id === id && r.owner === owner ? [r] : [];
    });
  }

  async create(record: ManagedHostRecord, caps: OwnerCaps): Promise<CreateAnswer> {
    const answer = await this.write(record, undefined, caps);
    if (answer === "ok" || answer === "exists" || answer === "too_many_drafts" || answer === "too_many_hosts")
      return answer;
    throw new Error(`managed host store: unexpected answer ${String(answer)}`);
  }

  /** Builds the per-owner index once for records written before it existed (HSETNX: newer entries stay). */
  private ensureIndex(): Promise<void> {
    this.indexed ??= this.call("index", async () => {
      const marker = this.near.key("indexed");
      if ((await this.redis.exists(marker)) === 1) return;
      const all = await this.redis.hgetall(this.hash);
      const pipeline = this.redis.pipeline();
      for (const [id, text] of Object.entries(all)) {
        const r = parseRecord(text);
        if (r?.id === id) pipeline.hsetnx(this.ownerKey(r.owner), id, r.state);
      }
      pipeline.set(marker, "1");
      await pipeline.exec();
    }).catch((e: unknown) => {
      this.indexed = undefined;
      throw e;
    });
    return this.indexed;
  }

  private async write(record: ManagedHostRecord, ifUpdatedAt?: number, caps?: OwnerCaps): Promise<unknown> {
    await this.ensureIndex();
    return this.call("put", () =>
      evalScript(
        this.redis,
        PUT,
        [this.hash, this.versionKey, this.ownerKey(record.owner)],
        [
          record.id,
          JSON.stringify(record),
          ifUpdatedAt === undefined ? "" : String(ifUpdatedAt),
          record.owner,
          record.state,
          caps === undefined ? "" : String(caps.drafts),
          caps === undefined ? "" : String(caps.hosts),
        ],
      ),
    );
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
    const answer = await this.write(record, ifUpdatedAt);
    if (answer === "ok" || answer === "exists" || answer === "conflict") return answer;
    throw new Error(`managed host store: unexpected answer ${String(answer)}`);
  }

  async delete(id: string): Promise<void> {
    await this.ensureIndex();
    // The owner's index is named by the record: read it, then delete unless it changed owner.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const owner = ownerOf(await this.call("delete", () => this.redis.hget(this.hash, id)));
      const done = await this.call("delete", () =>
        evalScript(this.redis, DELETE, [this.hash, this.versionKey, this.ownerKey(owner)], [id, owner]),
      );
      if (Number(done) === 1) return;
    }
    throw unavailable("managed hosts delete", new Error(`host ${id} keeps changing owner`));
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
