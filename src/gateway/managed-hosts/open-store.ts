/** The store a gateway keeps its console-created hosts in: Redis when it has it, else the data dir. */
import { FileManagedHostStore } from "./file-store.js";
import type { ManagedHostStore } from "../../edges/console/managed-hosts.js";
import { openRedisManagedHostStore } from "./redis-store.js";

export function openManagedHostStore(opts: {
  readonly dataDir: string;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
}): Promise<ManagedHostStore> {
  return opts.redisUrl === undefined
    ? Promise.resolve(new FileManagedHostStore(opts.dataDir))
    : openRedisManagedHostStore(opts.redisUrl, opts.redisKeyPrefix);
}
