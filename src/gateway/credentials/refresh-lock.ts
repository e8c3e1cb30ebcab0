/**
 * One refresh of a host's grant at a time across every gateway process on one vault (scale-out:
 * docs/ARCHITECTURE.md, Redis layout and scale). refresher.ts is single flight per process only; with several processes on one
 * Redis, two could find the token due at once and both spend the same refresh token. Square's
 * refresh tokens are single use and Microsoft rotates them, so the loser would get
 * invalid_grant and report the host "needs reconnection" for nothing. The refresher takes this
 * lock before it calls the token endpoint and holds it until the new grant is in the vault.
 *
 * - Redis (the vault on Redis): `SET <prefix>{<host id>}:oauth-refresh-lock <random> NX PX ttl`,
 *   released by a compare-and-delete script on that one key. The hash tag puts it in the host's
 *   Redis Cluster slot, beside its credentials key; the TTL frees it if the holder dies.
 * - A lock file (the vault in the data directory): `<data dir>/credentials/.<host id>.refresh-lock`
 *   created exclusively (O_EXCL). The data directory is not owned by one process: two `serve`s
 *   may share it (file-store.ts replaces records atomically for that reader, and the managed-
 *   host store locks its writes the same way), so "only one process can run" cannot be assumed.
 *   A file older than the TTL was left by a process that died holding it, and is taken over.
 *   Limit, accepted: two processes taking over the same stale file at the same instant can both
 *   win; that needs a crash mid-refresh first.
 * - In memory, for tests (several providers in one process stand for several processes).
 */
import { randomBytes } from "node:crypto";
import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { acquireLock, lockTtl } from "../../redis/lock.js";
import { ensureSecretDir, SECRET_FILE_MODE } from "../runtime/secret-files.js";
import { CREDENTIALS_DIR } from "./file-store.js";
import { checkHostId } from "./store.js";

/** Frees the lock; a lock already expired (or taken over) is left to its new holder. */
export type ReleaseRefreshLock = () => Promise<void>;

export interface RefreshLock {
  /** The lock for `hostId` for at most `ttlMs`, or undefined while another process holds it. */
  acquire(hostId: string, ttlMs: number): Promise<ReleaseRefreshLock | undefined>;
}

const newToken = (): string => randomBytes(16).toString("hex");
const ttlOf = lockTtl;

export class RedisRefreshLock implements RefreshLock {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    /** The gateway's REDIS_KEY_PREFIX, as the vault's RedisSealedStore uses. */
    prefix?: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  key(hostId: string): string {
    checkHostId(hostId);
    return this.#keys.hostKey(hostId, "oauth-refresh-lock");
  }

  async acquire(hostId: string, ttlMs: number): Promise<ReleaseRefreshLock | undefined> {
    // redis/lock.ts: released by compare-and-delete, only while the key holds our token.
    const lease = await acquireLock(this.redis, this.key(hostId), ttlMs);
    if (lease === undefined) return undefined;
    return async () => {
      await lease.release();
    };
  }
}

const isCode = (e: unknown, code: string): boolean =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;

export class FileRefreshLock implements RefreshLock {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, CREDENTIALS_DIR);
  }

  /** A dot file: the file store's list() skips it (only `<host id>.json` are records). */
  path(hostId: string): string {
    checkHostId(hostId);
    return join(this.dir, `.${hostId}.refresh-lock`);
  }

  async acquire(hostId: string, ttlMs: number): Promise<ReleaseRefreshLock | undefined> {
    const path = this.path(hostId);
    const token = newToken();
    await ensureSecretDir(this.dir);
    // Two rounds: the second follows the removal of a stale file.
    for (let round = 0; round < 2; round++) {
      try {
        await writeFile(path, token, { flag: "wx", mode: SECRET_FILE_MODE });
        return async () => {
          const held = await readFile(path, "utf8").catch(() => undefined);
          if (held === token) await unlink(path).catch(() => undefined);
        };
      } catch (e) {
        if (!isCode(e, "EEXIST")) throw e;
      }
      const held = await stat(path).catch(() => undefined);
      if (held !== undefined && Date.now() - held.mtimeMs <= ttlOf(ttlMs)) return undefined;
      if (held !== undefined) await unlink(path).catch(() => undefined);
    }
    return undefined;
  }
}

export class MemoryRefreshLock implements RefreshLock {
  private readonly held = new Map<string, { token: string; until: number }>();
  /** How many times a lock was granted (tests). */
  granted = 0;

  acquire(hostId: string, ttlMs: number): Promise<ReleaseRefreshLock | undefined> {
    const current = this.held.get(hostId);
    if (current !== undefined && current.until > Date.now()) return Promise.resolve(undefined);
    const token = newToken();
    this.held.set(hostId, { token, until: Date.now() + ttlOf(ttlMs) });
    this.granted += 1;
    return Promise.resolve(() => {
      if (this.held.get(hostId)?.token === token) this.held.delete(hostId);
      return Promise.resolve();
    });
  }
}
