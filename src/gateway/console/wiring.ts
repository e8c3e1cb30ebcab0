/**
 * The console's stores for one gateway process: in memory in the embedded default; on Redis
 * (its own connection, keys under the gateway's prefix) when the gateway has Redis, so a
 * session started on one replica is honoured by every other and failed sign-ins are counted
 * once across them.
 */
import type { Clock } from "../../booking/api.js";
import { connectClient, createClient } from "../../holds/redis/connection.js";
import type { ConsoleDeps } from "./routes.js";
import { MemorySessionStore, RedisSessionStore, Sessions, type SessionPolicy } from "./sessions.js";
import { MemorySignInLimiter, RedisSignInLimiter } from "./sign-in-limit.js";

export interface ConsoleWiringOptions {
  readonly clock: Clock;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
  readonly sessionPolicy?: SessionPolicy;
}

export async function consoleWiring(
  opts: ConsoleWiringOptions,
): Promise<{ readonly deps: ConsoleDeps; close(): Promise<void> }> {
  const now = () => opts.clock.now();
  if (opts.redisUrl === undefined) {
    return {
      deps: {
        sessions: new Sessions(new MemorySessionStore(), now, opts.sessionPolicy),
        signInLimiter: new MemorySignInLimiter(now),
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
    },
    close: () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      ),
  };
}
