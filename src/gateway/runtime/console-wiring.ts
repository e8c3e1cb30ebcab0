/**
 * The console's stores for one gateway process: in memory in the embedded default (owner
 * accounts in a file in the data directory, so they survive a restart); on Redis (its own
 * connection, keys under the gateway's prefix) when the gateway has Redis, so a session started
 * on one replica is honoured by every other, failed sign-ins are counted once across them and
 * every replica knows every owner.
 */
import { join } from "node:path";
import type { Clock } from "../../protocol/clock.js";
import { connectClient, createClient } from "../../redis/connection.js";
import { DEFAULT_OWNER_CAPS, type OwnerCaps } from "../../edges/console/managed-hosts.js";
import type { ScryptParams } from "../../edges/console/accounts-password.js";
import {
  FileOwnerAccountStore,
  MemoryOwnerAccountStore,
  RedisOwnerAccountStore,
} from "../../edges/console/accounts-stores.js";
import { OwnerAccounts, SCRYPT_HASHER, type PasswordHasher } from "../../edges/console/accounts.js";
import type { ConsoleDeps } from "../../edges/console/kit.js";
import {
  MemorySessionStore,
  RedisSessionStore,
  Sessions,
  type SessionPolicy,
} from "../../edges/console/sessions.js";
import { DEFAULT_SIGN_IN_GATE, SignInGate, type SignInGatePolicy } from "../../edges/console/sign-in-gate.js";
import {
  DEFAULT_SIGN_IN_LIMIT,
  MemorySignInLimiter,
  RedisSignInLimiter,
  type SignInLimitPolicy,
} from "../../edges/console/sign-in-limit.js";

const OWNER_ACCOUNTS_FILE = "owner-accounts.json";

export interface ConsoleWiringOptions {
  readonly clock: Clock;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
  readonly sessionPolicy?: SessionPolicy;
  /** Where owner accounts are kept without Redis; in memory (lost on restart) when absent. */
  readonly dataDir?: string;
  /** Tests only: a cheaper scrypt cost. */
  readonly scrypt?: ScryptParams;
  /** Tests only: a hasher that counts its checks. */
  readonly passwordHasher?: PasswordHasher;
  /** Failed sign-ins per origin and window (default 5 per 15 minutes). */
  readonly signInLimit?: SignInLimitPolicy;
  /** Credential checks at once (default 1 per origin, 2 running, 8 waiting). */
  readonly signInGate?: SignInGatePolicy;
  /** Drafts and hosts one owner may have (default 20 and 50). */
  readonly ownerCaps?: OwnerCaps;
}

export async function consoleWiring(
  opts: ConsoleWiringOptions,
): Promise<{ readonly deps: ConsoleDeps; close(): Promise<void> }> {
  const limit = opts.signInLimit ?? DEFAULT_SIGN_IN_LIMIT;
  const signInGate = new SignInGate(opts.signInGate ?? DEFAULT_SIGN_IN_GATE);
  const hasher = opts.passwordHasher ?? SCRYPT_HASHER;
  const ownerCaps = opts.ownerCaps ?? DEFAULT_OWNER_CAPS;
  if (opts.redisUrl === undefined) {
    const store =
      opts.dataDir === undefined
        ? new MemoryOwnerAccountStore()
        : new FileOwnerAccountStore(join(opts.dataDir, OWNER_ACCOUNTS_FILE));
    return {
      deps: {
        sessions: new Sessions(new MemorySessionStore(), opts.clock, opts.sessionPolicy),
        signInLimiter: new MemorySignInLimiter(opts.clock, limit),
        signInGate,
        accounts: new OwnerAccounts(store, opts.clock, opts.scrypt, hasher),
        ownerCaps,
      },
      close: () => Promise.resolve(),
    };
  }
  const client = createClient({ url: opts.redisUrl });
  await connectClient(client, opts.redisUrl);
  return {
    deps: {
      sessions: new Sessions(
        new RedisSessionStore(client, opts.redisKeyPrefix),
        opts.clock,
        opts.sessionPolicy,
      ),
      signInLimiter: new RedisSignInLimiter(client, opts.redisKeyPrefix, limit),
      signInGate,
      accounts: new OwnerAccounts(
        new RedisOwnerAccountStore(client, opts.redisKeyPrefix),
        opts.clock,
        opts.scrypt,
        hasher,
      ),
      ownerCaps,
    },
    close: () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      ),
  };
}
