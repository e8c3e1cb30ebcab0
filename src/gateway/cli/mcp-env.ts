/**
 * `mcp`'s settings from the environment, each checked with an error that names the variable.
 * Pure: the caller passes the environment in. Relative paths resolve against the working
 * directory, as OSBP "Audit" places its default log (".osbp/audit/events.jsonl").
 */
import { isAbsolute, resolve } from "node:path";
import { DEFAULT_REDIS_KEY_PREFIX } from "../../redis/keys.js";
import { SYNTHETIC_MESSAGE_LOG_ENV } from "../../connectors/synthetic/index.js";
import { AUDIT_LOG_PATH_ENV, DEFAULT_AUDIT_LOG_PATH } from "../../edges/osbp/audit/port.js";
import { IDEMPOTENCY_PATH_ENV } from "../../edges/osbp/idempotency/file.js";
import { ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { readRedisEnv } from "./serve-env.js";

export interface McpSettings {
  /** With Redis, idempotency and the synthetic platform live there, shared with `serve`. */
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
  /** Absolute; unused with Redis. Absent: `<GATEWAY_DATA_DIR>/osbp/idempotency.json`. */
  readonly idempotencyPath?: string;
  /** Absolute. */
  readonly auditPath: string;
  /** Absolute; undefined keeps no record of the synthetic platform's messages. */
  readonly messageLog?: string;
}

const set = (v: string | undefined): v is string => v !== undefined && v !== "";

export function readMcpEnv(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Result<McpSettings, string> {
  const redis = readRedisEnv(env);
  if (!redis.ok) return redis;
  const path = (name: string, fallback: string): string => {
    const value = set(env[name]) ? env[name] : fallback;
    return isAbsolute(value) ? value : resolve(cwd, value);
  };
  const messages = env[SYNTHETIC_MESSAGE_LOG_ENV];
  return ok({
    ...(redis.value.redisUrl !== undefined && { redisUrl: redis.value.redisUrl }),
    redisKeyPrefix: redis.value.redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX,
    ...(set(env[IDEMPOTENCY_PATH_ENV]) && { idempotencyPath: path(IDEMPOTENCY_PATH_ENV, "") }),
    auditPath: path(AUDIT_LOG_PATH_ENV, DEFAULT_AUDIT_LOG_PATH),
    ...(set(messages) && { messageLog: path(SYNTHETIC_MESSAGE_LOG_ENV, messages) }),
  });
}
