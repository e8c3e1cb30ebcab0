/**
 * Per-host organization API keys (A2A §Authentication over A2A: X-Org-Api-Key), for
 * cancel_session and reschedule_session. A key is 32 random bytes, base64url, prefixed with
 * its host ("gk_<host>_...") so an operator can tell keys apart; only its SHA-256 is kept
 * (Redis when the gateway has it, else a file in the data dir), compared in constant time.
 * Issuing a key replaces the previous one (rotation): the new key is shown once.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile, rename } from "node:fs/promises";
import { writePrivateFile } from "../../protocol/private-files.js";
import { join } from "node:path";
import { redisKeys } from "../../redis/keys.js";

export interface A2aApiKeys {
  /** A new key for the host, replacing any previous one; returned once, never stored in clear. */
  issue(hostId: string): Promise<string>;
  /** Whether `key` is this host's current key (never another host's). */
  verify(hostId: string, key: string | undefined): Promise<boolean>;
}

/** The store of hashes: one value per host. */
export interface KeyHashStore {
  get(hostId: string): Promise<string | undefined>;
  set(hostId: string, hash: string): Promise<void>;
}

const sha256 = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

export function createA2aApiKeys(store: KeyHashStore): A2aApiKeys {
  return {
    async issue(hostId) {
      const key = `gk_${hostId}_${randomBytes(32).toString("base64url")}`;
      await store.set(hostId, sha256(key).toString("hex"));
      return key;
    },
    async verify(hostId, key) {
      if (key === undefined || key === "" || key.length > 512) return false;
      const stored = await store.get(hostId);
      if (stored === undefined) return false;
      const want = Buffer.from(stored, "hex");
      const got = sha256(key);
      return want.length === got.length && timingSafeEqual(want, got);
    },
  };
}

/** `<dataDir>/a2a-keys.json`: { hostId: sha256 hex }, written atomically, mode 0600. */
export function fileKeyHashStore(dataDir: string): KeyHashStore {
  const path = join(dataDir, "a2a-keys.json");
  const read = async (): Promise<Record<string, string>> => {
    try {
      return JSON.parse(await readFile(path, "utf8")) as Record<string, string>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw e;
    }
  };
  return {
    get: async (hostId) => (await read())[hostId],
    set: async (hostId, hash) => {
      const all = { ...(await read()), [hostId]: hash };
      const tmp = `${path}.${process.pid}.tmp`;
      await writePrivateFile(tmp, JSON.stringify(all, null, 2), { privateDir: true });
      await rename(tmp, path);
    },
  };
}

/** The Redis commands the key store uses (an ioredis client has them). */
export interface HashCommands {
  hget(key: string, field: string): Promise<string | null>;
  hset(key: string, field: string, value: string): Promise<unknown>;
}

export function redisKeyHashStore(client: HashCommands, prefix: string): KeyHashStore {
  const key = redisKeys(prefix).key("a2a", "keys");
  return {
    get: async (hostId) => (await client.hget(key, hostId)) ?? undefined,
    set: async (hostId, hash) => void (await client.hset(key, hostId, hash)),
  };
}
