/**
 * The ioredis client the store runs on, configured to fail fast: no offline queue, no
 * automatic resend, no retries per request. A command issued while the connection is
 * down, or in flight when it drops, rejects at once instead of waiting (a queued command
 * could run later, after the caller gave up, and a resent script could run twice).
 * Reconnection continues in the background, so the store carries on when Redis is back.
 */
import type { RedisOptions } from "ioredis";
import { openRedis, redact, type RedisClient } from "../../redis/client.js";
import { HoldStoreUnavailableError } from "../port.js";

export interface RedisConnectionOptions {
  readonly url: string;
  /** A reply slower than this rejects (default 5 s): never a hang. */
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /** Longest pause between reconnect attempts (default 1 s). */
  readonly maxReconnectDelayMs?: number;
  /** Passed to ioredis last (tests and operators: TLS, username, …). */
  readonly redisOptions?: RedisOptions;
}

export function createClient(options: RedisConnectionOptions): RedisClient {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  // A redis+cluster:// URL opens ioredis' Cluster client (redis/client.ts) with the same
  // fail-fast settings on each node's connection.
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

/** Connects, or rejects with HoldStoreUnavailableError when Redis does not answer. */
export async function connectClient(client: RedisClient, url: string): Promise<void> {
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new HoldStoreUnavailableError(`cannot connect to Redis at ${redact(url)}`, { cause: error });
  }
}

/**
 * Every failure of the Redis round trip becomes the port's infrastructure error. The
 * message says whether the command may have run: one in flight when the connection died
 * or timed out may have been executed (atomically, whole) and the caller cannot know;
 * one refused while disconnected never left the process.
 */
export function unavailable(operation: string, error: unknown): HoldStoreUnavailableError {
  if (error instanceof HoldStoreUnavailableError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : "";
  let outcome = "";
  if (detail.includes("enableOfflineQueue")) outcome = " (not connected: it was not sent)";
  else if (name === "MaxRetriesPerRequestError" || /Connection is closed|timed out/i.test(detail)) {
    outcome = " (the connection failed with it in flight: it may have run)";
  }
  return new HoldStoreUnavailableError(`hold store ${operation} failed${outcome}: ${detail}`, {
    cause: error,
  });
}
