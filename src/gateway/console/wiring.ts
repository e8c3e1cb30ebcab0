/**
 * The console's stores for one gateway process: in memory in the embedded default (owner
 * accounts in a file in the data directory, so they survive a restart); on Redis (its own
 * connection, keys under the gateway's prefix) when the gateway has Redis, so a session started
 * on one replica is honoured by every other, failed sign-ins are counted once across them and
 * every replica knows every owner.
 */
import { join } from "node:path";
import type { Clock } from "../../booking/api.js";
import { connectClient, createClient } from "../../holds/redis/connection.js";
import type { ScryptParams } from "./accounts-password.js";
import { FileOwnerAccountStore, MemoryOwnerAccountStore, RedisOwnerAccountStore } from "./accounts-stores.js";
import { OwnerAccounts } from "./accounts.js";
import type { ConsoleDeps } from "./routes.js";
import { MemorySessionStore, RedisSessionStore, Sessions, type SessionPolicy } from "./sessions.js";
import { MemorySignInLimiter, RedisSignInLimiter } from "./sign-in-limit.js";

export const OWNER_ACCOUNTS_FILE = "owner-accounts.json";

export interface ConsoleWiringOptions {
  readonly clock: Clock;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
  readonly sessionPolicy?: SessionPolicy;
  /** Where owner accounts are kept without Redis; in memory (lost on restart) when absent. */
  readonly dataDir?: string;
  /** Tests only: a cheaper scrypt cost. */
  readonly scrypt?: ScryptParams;
}

export async function consoleWiring(
  opts: ConsoleWiringOptions,
): Promise<{ readonly deps: ConsoleDeps; close(): Promise<void> }> {
  const now = () => opts.clock.now();
  if (opts.redisUrl === undefined) {
    const store =
      opts.dataDir === undefined
        ? new MemoryOwnerAccountStore()
        : new FileOwnerAccountStore(join(opts.dataDir, OWNER_ACCOUNTS_FILE));
    return {
      deps: {
        sessions: new Sessions(new MemorySessionStore(), now, opts.sessionPolicy),
        signInLimiter: new MemorySignInLimiter(now),
        accounts: new OwnerAccounts(store, now, opts.scrypt),
      },
      close: () => Promise.resolve(),
    };
  }
  const client = createClient({ url: opts.redisUrl });
  await connectClient(client, opts.redisUrl);
  return {
    deps: {
      sessions: new Sessions(new RedisSessionStore(client, opts.redisKeyPrefix), now, opts.sessionPolicy),
      signInLimiter: new RedisSignInLimiter(client, opts.redisKeyPrefix),
      accounts: new OwnerAccounts(new RedisOwnerAccountStore(client, opts.redisKeyPrefix), now, opts.scrypt),
    },
    close: () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      ),
  };
}
