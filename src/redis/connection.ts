/**
 * The client every Redis store runs on, configured to fail fast: no offline queue, no
 * automatic resend, no retries per request. A command issued while the connection is
 * down, or in flight when it drops, rejects at once instead of waiting (a queued command
 * could run later, after the caller gave up, and a resent script could run twice).
 * Reconnection continues in the background, so the store carries on when Redis is back.
 *
 * A redis+cluster:// URL opens ioredis' Cluster client (client.ts) with the same settings on
 * each node's connection. Clients with other needs open their own through `openRedis`: BullMQ's
 * (which must wait, maxRetriesPerRequest null), the periodic jobs' lock and the token vault's.
 */
import type { RedisOptions } from "ioredis";
import { openRedis, redact, type RedisClient } from "./client.js";

export interface RedisConnectionOptions {
  readonly url: string;
  /** A reply slower than this rejects (default 5 s): never a hang. */
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /** How long a start keeps trying to connect (connectClient's withinMs, default 10 s). */
  readonly startWithinMs?: number;
  /** Longest pause between reconnect attempts (default 1 s). */
  readonly maxReconnectDelayMs?: number;
  /** Passed to ioredis last (tests and operators: TLS, username, …). */
  readonly redisOptions?: RedisOptions;
}

/** A fail-fast client, not connected yet (`connectClient`). */
export function createClient(options: RedisConnectionOptions): RedisClient {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  const client = openRedis(options.url, {
    redisOptions: {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs ?? 5000,
      connectTimeout: options.connectTimeoutMs ?? 2000,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), maxDelay),
      ...options.redisOptions,
    },
  });
  // Connection errors surface on the commands that fail; an unhandled 'error' event
  // would crash the process.
  client.on("error", () => undefined);
  return client;
}

/** Redis did not answer a client's connect (the message names the URL, its password hidden). */
export class RedisConnectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RedisConnectError";
  }
}

/** How long a start keeps trying to reach Redis before it gives up (ConnectOptions.withinMs). */
export const CONNECT_WITHIN_MS = 10_000;

export interface ConnectOptions {
  /**
   * Keep trying this long (default 10 s): a server that is still starting (compose brings Redis
   * up beside the gateway) or that drops one connection under load must not stop a start.
   */
  readonly withinMs?: number;
}

/**
 * Connects, retrying with backoff until `withinMs` has passed; then disconnects and rejects
 * with RedisConnectError naming the last cause. ioredis' own connect() rejects on the first
 * closed socket ("Connection is closed") even though it would reconnect in the background.
 */
export async function connectClient(
  client: RedisClient,
  url: string,
  options: ConnectOptions = {},
): Promise<void> {
  const deadline = Date.now() + (options.withinMs ?? CONNECT_WITHIN_MS);
  for (let attempt = 0; ; attempt += 1) {
    try {
      await client.connect();
      return;
    } catch (error) {
      client.disconnect();
      const pause = Math.min(100 * 2 ** attempt, 1000);
      if (Date.now() + pause >= deadline) {
        const tries = attempt + 1;
        throw new RedisConnectError(
          `cannot connect to Redis at ${redact(url)} (${tries} ${tries === 1 ? "attempt" : "attempts"})`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
