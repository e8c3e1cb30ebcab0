/**
 * Where owner accounts and invitations are kept (accounts.ts): memory for tests, a file in the
 * data directory for the embedded default (survives restarts), Redis under the gateway's prefix
 * when the gateway has Redis (every replica signs the same owners in). Invitation keys are
 * already hashes of the link's token.
 */
import { readFile, rename } from "node:fs/promises";
import { writePrivateFile } from "../../protocol/private-files.js";
import { isCluster, type RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import type { Invitation, OwnerAccount, OwnerAccountStore } from "./accounts.js";
import { type Clock, systemClock } from "../../protocol/clock.js";

interface Records {
  accounts: OwnerAccount[];
  invitations: Record<string, { invitation: Invitation; until: number }>;
}

/**
 * Shared by the memory and file stores: plain records, invitations cleaned up by wall time.
 * The records are read once and kept in memory with an index by id and by email, so a
 * console request (every page asks whether its owner is still active) reads one account, not
 * every account; a write builds the next records apart and keeps them only once saved.
 */
class RecordsStore implements OwnerAccountStore {
  /** One write at a time, so a read-modify-write is never interleaved with another. */
  #queue: Promise<unknown> = Promise.resolve();
  #current: Promise<Indexed> | undefined;

  constructor(
    private readonly load: () => Promise<Records>,
    private readonly save: (r: Records) => Promise<void>,
    private readonly wallClock: Clock,
  ) {}

  async get(ownerId: string): Promise<OwnerAccount | undefined> {
    const a = (await this.#records()).byId.get(ownerId);
    return a === undefined ? undefined : { ...a };
  }

  async byEmail(email: string): Promise<OwnerAccount | undefined> {
    const a = (await this.#records()).byEmail.get(email);
    return a === undefined ? undefined : { ...a };
  }

  async list(): Promise<OwnerAccount[]> {
    return (await this.#records()).records.accounts.map((a) => ({ ...a }));
  }

  create(account: OwnerAccount): Promise<"ok" | "exists"> {
    return this.#write((r) => {
      if (r.accounts.some((a) => a.email === account.email || a.ownerId === account.ownerId)) return "exists";
      r.accounts.push(account);
      return "ok";
    });
  }

  update(account: OwnerAccount): Promise<void> {
    return this.#write((r) => {
      r.accounts = r.accounts.map((a) => (a.ownerId === account.ownerId ? account : a));
    });
  }

  putInvitation(key: string, invitation: Invitation, ttlMs: number): Promise<void> {
    return this.#write((r) => {
      const at = this.wallClock.now();
      for (const [k, v] of Object.entries(r.invitations)) if (at >= v.until) delete r.invitations[k];
      r.invitations[key] = { invitation, until: at + ttlMs };
    });
  }

  async peekInvitation(key: string): Promise<Invitation | undefined> {
    return this.#live((await this.#records()).records, key);
  }

  takeInvitation(key: string): Promise<Invitation | undefined> {
    return this.#write((r) => {
      const found = this.#live(r, key);
      delete r.invitations[key];
      return found;
    });
  }

  #live(r: Records, key: string): Invitation | undefined {
    const v = Object.hasOwn(r.invitations, key) ? r.invitations[key] : undefined;
    return v !== undefined && this.wallClock.now() < v.until ? v.invitation : undefined;
  }

  /** The records as last saved (read from storage once). */
  #records(): Promise<Indexed> {
    this.#current ??= this.load().then(indexed, (e: unknown) => {
      this.#current = undefined;
      throw e;
    });
    return this.#current;
  }

  #write<T>(f: (r: Records) => T): Promise<T> {
    const op = async () => {
      const next = structuredClone((await this.#records()).records);
      const out = f(next);
      await this.save(next);
      this.#current = Promise.resolve(indexed(next));
      return out;
    };
    const run = this.#queue.then(op, op);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

interface Indexed {
  readonly records: Records;
  readonly byId: ReadonlyMap<string, OwnerAccount>;
  readonly byEmail: ReadonlyMap<string, OwnerAccount>;
}

const indexed = (records: Records): Indexed => ({
  records,
  byId: new Map(records.accounts.map((a) => [a.ownerId, a])),
  byEmail: new Map(records.accounts.map((a) => [a.email, a])),
});

export class MemoryOwnerAccountStore extends RecordsStore {
  constructor(wallClock: Clock = systemClock) {
    let records: Records = { accounts: [], invitations: {} };
    super(
      () => Promise.resolve(structuredClone(records)),
      (r) => {
        records = structuredClone(r);
        return Promise.resolve();
      },
      wallClock,
    );
  }
}

/**
 * One JSON file (owner-accounts.json in the data directory), readable by the gateway's user
 * only, replaced atomically (write then rename) so a crash leaves the old or the new file.
 * One gateway process per data directory; replicas use Redis.
 */
export class FileOwnerAccountStore extends RecordsStore {
  constructor(path: string, wallClock: Clock = systemClock) {
    super(
      async () => {
        try {
          const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<Records>;
          return { accounts: parsed.accounts ?? [], invitations: parsed.invitations ?? {} };
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") return { accounts: [], invitations: {} };
          throw e;
        }
      },
      async (r) => {
        const tmp = `${path}.${process.pid}.tmp`;
        await writePrivateFile(tmp, JSON.stringify(r), { privateDir: true });
        await rename(tmp, path);
      },
      wallClock,
    );
  }
}

/**
 * Keys under `${prefix}console:`: owner:{id} (the account, JSON), owner-email:{email} (its id;
 * SET NX makes an email unique across replicas), owners (the set of ids), invitation:{hash}
 * (PX TTL; GETDEL takes it once).
 *
 * On a Redis Cluster these keys lie in different slots (the names stay as on one server), so
 * create() writes the account and then adds it to `owners` as two commands there (MULTI may
 * not span slots), and list() reads the accounts one GET each instead of one MGET. A create
 * cut between the two leaves an account that signs in but is missing from list() until it is
 * updated; no partial account is ever listed (list() skips ids without a record).
 */
export class RedisOwnerAccountStore implements OwnerAccountStore {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix).under("console");
  }

  async get(ownerId: string): Promise<OwnerAccount | undefined> {
    const raw = await this.redis.get(this.#k(`owner:${ownerId}`));
    return raw === null ? undefined : (JSON.parse(raw) as OwnerAccount);
  }

  async byEmail(email: string): Promise<OwnerAccount | undefined> {
    const id = await this.redis.get(this.#k(`owner-email:${email}`));
    return id === null ? undefined : this.get(id);
  }

  async create(account: OwnerAccount): Promise<"ok" | "exists"> {
    const claimed = await this.redis.set(this.#k(`owner-email:${account.email}`), account.ownerId, "NX");
    if (claimed === null) return "exists";
    const record = this.#k(`owner:${account.ownerId}`);
    if (isCluster(this.redis)) {
      await this.redis.set(record, JSON.stringify(account));
      await this.redis.sadd(this.#k("owners"), account.ownerId);
    } else {
      await this.redis
        .multi()
        .set(record, JSON.stringify(account))
        .sadd(this.#k("owners"), account.ownerId)
        .exec();
    }
    return "ok";
  }

  async update(account: OwnerAccount): Promise<void> {
    const updated = await this.redis.set(this.#k(`owner:${account.ownerId}`), JSON.stringify(account), "XX");
    // Heals a create cut between its two writes on a cluster (see the class comment).
    if (updated !== null) await this.redis.sadd(this.#k("owners"), account.ownerId);
  }

  async list(): Promise<OwnerAccount[]> {
    const ids = await this.redis.smembers(this.#k("owners"));
    if (ids.length === 0) return [];
    const keys = ids.map((id) => this.#k(`owner:${id}`));
    // One slot per owner on a cluster: MGET would be refused (CROSSSLOT).
    const raws = isCluster(this.redis)
      ? await Promise.all(keys.map((key) => this.redis.get(key)))
      : await this.redis.mget(keys);
    return raws.flatMap((raw) => (raw === null ? [] : [JSON.parse(raw) as OwnerAccount]));
  }

  async putInvitation(key: string, invitation: Invitation, ttlMs: number): Promise<void> {
    await this.redis.set(
      this.#k(`invitation:${key}`),
      JSON.stringify(invitation),
      "PX",
      Math.max(1, Math.ceil(ttlMs)),
    );
  }

  async peekInvitation(key: string): Promise<Invitation | undefined> {
    const raw = await this.redis.get(this.#k(`invitation:${key}`));
    return raw === null ? undefined : (JSON.parse(raw) as Invitation);
  }

  async takeInvitation(key: string): Promise<Invitation | undefined> {
    const raw = await this.redis.getdel(this.#k(`invitation:${key}`));
    return raw === null ? undefined : (JSON.parse(raw) as Invitation);
  }

  #k(rest: string): string {
    return this.#keys.key(rest);
  }
}
