/**
 * `serve`'s settings from the environment, each checked with an error that names the
 * variable. Pure: the caller passes the environment in.
 */
import type { HostMessageSettings } from "../runtime/calendar-hosts.js";
import { isAbsolute, resolve } from "node:path";
import { err, ok } from "../../protocol/result.js";
import {
  clusterUrlFromNodes,
  isClusterUrl,
  parseRedisTarget,
  redact,
  type ClusterNode,
} from "../../redis/client.js";
import { limitsFromEnv, type UpstreamLimits } from "../../connectors/http/limits.js";
import type { Result } from "../../protocol/result.js";
import { normalizeOrigin } from "../../edges/schcp/http/target-uri.js";
import { isUsableOperatorToken } from "../runtime/operator-token.js";
import type { ConnectProviders } from "../../edges/console/connect/wiring.js";
import type { OAuthProvider } from "../credentials/record.js";
import { DEFAULT_OWNER_CAPS, type OwnerCaps } from "../../edges/console/managed-hosts.js";
import type { MetricsAccess } from "../metrics/endpoint.js";

export interface ServeSettings {
  readonly port: number;
  readonly bindHost: string;
  /** undefined: http://127.0.0.1:<the port actually bound>. */
  readonly publicOrigin?: string;
  readonly redisUrl?: string;
  readonly redisKeyPrefix?: string;
  readonly redisReplicaWait?: RedisSettings["redisReplicaWait"];
  readonly redisSlotMoveWaitMs?: number;
  readonly dataDir: string;
  readonly operatorToken?: string;
  readonly validateResponses: boolean;
  /** TRUST_PROXY: key the §7.2 origin limit by the last X-Forwarded-For entry (off by default). */
  readonly trustForwardedFor: boolean;
  /** How calendar hosts' approvers are reached (SMTP_*, TWILIO_*); a file in the data dir when absent. */
  readonly hostMessages?: HostMessageSettings;
  /** ORIGIN_RATE_LIMIT "<burst>/<per second>" or "off"; undefined: the default. */
  readonly originRate?: { readonly capacity: number; readonly refillPerSec: number } | false;
  /** The OAuth clients Connect can use (readConnectEnv); on only with the token vault too. */
  readonly connect: ConnectProviders;
  /**
   * UPSTREAM_ALLOW_PRIVATE=1: upstreams (CalDAV servers, platform base URLs) may be reached on
   * loopback and private networks, over plain http too (src/protocol/net/policy.ts). Off: the
   * gateway connects only to public addresses over https, as it delivers webhooks.
   */
  readonly upstreamAllowPrivate: boolean;
  /**
   * STATUS_ALLOW_PRIVATE=1/0: whether status URLs (SchCP §3.3, key apps) may be on loopback and
   * private networks; undefined when unset (on for the embedded default, off with --config).
   */
  readonly statusAllowPrivate?: boolean;
  /** LOG_FORMAT: "text" prints the start banner for people; "json" as log records, like the logs. */
  readonly logFormat: "text" | "json";
  /** OWNER_MAX_DRAFTS, OWNER_MAX_HOSTS: what one owner may add in the console (20 and 50). */
  readonly ownerCaps?: OwnerCaps;
  /** UPSTREAM_MAX_* and ICS_MAX_* (connectors/http/limits.ts): the caps set; the rest keep defaults. */
  readonly upstreamLimits: Partial<UpstreamLimits>;
  /** CALENDAR_SYNC_CONCURRENCY: calendar syncs run at once without Redis (1-256; default 4). */
  readonly calendarSyncConcurrency?: number;
  /**
   * METRICS: who may read GET /metrics. "token" (default): the operator credential as a bearer;
   * "on": anyone who reaches the port; "off": no such route (src/gateway/metrics/endpoint.ts).
   */
  readonly metrics: MetricsAccess;
}

const set = (v: string | undefined): v is string => v !== undefined && v !== "";

/** The secrets that may come from a file (Docker and Kubernetes secrets): X_FILE names it. */
const SECRET_FILE_VARIABLES = ["OPERATOR_TOKEN", "TOKEN_KEYS", "REDIS_URL"] as const;

/**
 * The environment with each `X_FILE` read into `X` (trailing newline dropped). Setting both is
 * an error, as is a file that cannot be read; the error names the variable, never the value.
 */
export function withSecretFiles(
  env: Readonly<Record<string, string | undefined>>,
  read: (path: string) => string,
): Result<Readonly<Record<string, string | undefined>>, string> {
  const out: Record<string, string | undefined> = { ...env };
  for (const name of SECRET_FILE_VARIABLES) {
    const path = env[`${name}_FILE`];
    if (!set(path)) continue;
    if (set(env[name])) return err(`set ${name} or ${name}_FILE, not both`);
    try {
      out[name] = read(path).replace(/\r?\n$/, "");
    } catch (e) {
      const code = (e as { code?: string }).code;
      return err(`${name}_FILE: cannot read ${path}${code === undefined ? "" : ` (${code})`}`);
    }
  }
  return ok(out);
}

export function readServeEnv(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Result<ServeSettings, string> {
  const rawPort = env["PORT"];
  let port = 8787;
  if (set(rawPort)) {
    if (!/^[0-9]{1,5}$/.test(rawPort) || Number(rawPort) > 65535) {
      return err(`PORT must be an integer 0-65535, got "${rawPort}"`);
    }
    port = Number(rawPort);
  }

  let publicOrigin: string | undefined;
  if (set(env["PUBLIC_ORIGIN"])) {
    publicOrigin = normalizeOrigin(env["PUBLIC_ORIGIN"]);
    if (publicOrigin === undefined) {
      return err(
        `PUBLIC_ORIGIN must be an http(s) origin such as https://gateway.example, got "${env["PUBLIC_ORIGIN"]}"`,
      );
    }
  }

  const redis = readRedisEnv(env);
  if (!redis.ok) return redis;
  const { redisUrl, redisKeyPrefix, redisReplicaWait, redisSlotMoveWaitMs } = redis.value;

  const dir = set(env["GATEWAY_DATA_DIR"]) ? env["GATEWAY_DATA_DIR"] : ".gateway";
  const dataDir = isAbsolute(dir) ? dir : resolve(cwd, dir);

  let operatorToken: string | undefined;
  if (set(env["OPERATOR_TOKEN"])) {
    if (!isUsableOperatorToken(env["OPERATOR_TOKEN"])) {
      return err("OPERATOR_TOKEN must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + /");
    }
    operatorToken = env["OPERATOR_TOKEN"];
  }

  const trust = env["TRUST_PROXY"];
  if (set(trust) && !["0", "1", "true", "false"].includes(trust)) {
    return err(`TRUST_PROXY must be 1 or 0, got "${trust}"`);
  }
  const originRate = readOriginRate(env["ORIGIN_RATE_LIMIT"]);
  if (!originRate.ok) return originRate;

  const allowPrivate = env["UPSTREAM_ALLOW_PRIVATE"];
  if (set(allowPrivate) && !["0", "1", "true", "false"].includes(allowPrivate)) {
    return err(`UPSTREAM_ALLOW_PRIVATE must be 1 or 0, got "${allowPrivate}"`);
  }

  const statusPrivate = env["STATUS_ALLOW_PRIVATE"];
  if (set(statusPrivate) && !["0", "1", "true", "false"].includes(statusPrivate)) {
    return err(`STATUS_ALLOW_PRIVATE must be 1 or 0, got "${statusPrivate}"`);
  }

  const logFormat = env["LOG_FORMAT"];
  if (set(logFormat) && logFormat !== "text" && logFormat !== "json") {
    return err(`LOG_FORMAT must be text or json, got "${logFormat}"`);
  }

  const drafts = readCap(env, "OWNER_MAX_DRAFTS");
  if (!drafts.ok) return drafts;
  const hostsCap = readCap(env, "OWNER_MAX_HOSTS");
  if (!hostsCap.ok) return hostsCap;
  const ownerCaps =
    drafts.value === undefined && hostsCap.value === undefined
      ? undefined
      : {
          drafts: drafts.value ?? DEFAULT_OWNER_CAPS.drafts,
          hosts: hostsCap.value ?? DEFAULT_OWNER_CAPS.hosts,
        };

  const messages = readHostMessageEnv(env);
  if (!messages.ok) return messages;
  const connect = readConnectEnv(env);
  if (!connect.ok) return connect;
  const limits = limitsFromEnv(env);
  if (!limits.ok) return err(limits.error);
  const syncs = env["CALENDAR_SYNC_CONCURRENCY"];
  if (set(syncs) && !(/^\d+$/.test(syncs) && Number(syncs) >= 1 && Number(syncs) <= 256)) {
    return err(`CALENDAR_SYNC_CONCURRENCY must be a whole number from 1 to 256, got "${syncs}"`);
  }

  const metrics = env["METRICS"];
  if (set(metrics) && metrics !== "token" && metrics !== "on" && metrics !== "off") {
    return err(`METRICS must be token, on or off, got "${metrics}"`);
  }

  return ok({
    port,
    metrics: set(metrics) ? metrics : "token",
    ...(messages.value !== undefined && { hostMessages: messages.value }),
    trustForwardedFor: trust === "1" || trust === "true",
    upstreamAllowPrivate: allowPrivate === "1" || allowPrivate === "true",
    ...(set(statusPrivate) && { statusAllowPrivate: statusPrivate === "1" || statusPrivate === "true" }),
    ...(originRate.value !== undefined && { originRate: originRate.value }),
    bindHost: set(env["HOST"]) ? env["HOST"] : "127.0.0.1",
    ...(publicOrigin !== undefined && { publicOrigin }),
    ...(redisUrl !== undefined && { redisUrl }),
    ...(redisKeyPrefix !== undefined && { redisKeyPrefix }),
    ...(redisReplicaWait !== undefined && { redisReplicaWait }),
    ...(redisSlotMoveWaitMs !== undefined && { redisSlotMoveWaitMs }),
    dataDir,
    ...(operatorToken !== undefined && { operatorToken }),
    validateResponses: env["NODE_ENV"] !== "production",
    connect: connect.value,
    logFormat: logFormat === "json" ? "json" : "text",
    ...(ownerCaps !== undefined && { ownerCaps }),
    upstreamLimits: limits.value,
    ...(set(syncs) && { calendarSyncConcurrency: Number(syncs) }),
  });
}

/** The runtime's upstream address policy from UPSTREAM_ALLOW_PRIVATE (src/protocol/net/policy.ts). */
export const upstreamPolicyOf = (s: Pick<ServeSettings, "upstreamAllowPrivate">) =>
  s.upstreamAllowPrivate ? { allowPrivate: true } : {};

/**
 * Whether status URLs (SchCP §3.3) may be on loopback and private networks: STATUS_ALLOW_PRIVATE
 * when set; otherwise on for the embedded default (no --config), so the agent SDK's key app on
 * a developer's machine is reachable, and off with a config file (docs/schcp.md).
 */
export const statusAllowPrivateOf = (
  s: Pick<ServeSettings, "statusAllowPrivate">,
  configPath: string | undefined,
): boolean => s.statusAllowPrivate ?? configPath === undefined;

/** A per-owner cap: a whole number from 1 to 10000 (undefined: not set). */
function readCap(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): Result<number | undefined, string> {
  const raw = env[name];
  if (!set(raw)) return ok(undefined);
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= 1 && n <= 10_000
    ? ok(n)
    : err(`${name} must be a whole number from 1 to 10000, got "${raw}"`);
}

/** The fixed variable names of each Connect provider's OAuth client (docs/settings.md "Connect (OAuth clients)"). */
const CONNECT_ENV = {
  square: { clientIdEnv: "SQUARE_CLIENT_ID", clientSecretEnv: "SQUARE_CLIENT_SECRET" },
  google: { clientIdEnv: "GOOGLE_CLIENT_ID", clientSecretEnv: "GOOGLE_CLIENT_SECRET" },
  microsoft: { clientIdEnv: "MICROSOFT_CLIENT_ID", clientSecretEnv: "MICROSOFT_CLIENT_SECRET" },
} as const;

/**
 * A provider is on when both its client id and secret variables are set; SQUARE_ENVIRONMENT
 * (production, the default, or sandbox) and MICROSOFT_TENANT (common, the default, or a tenant
 * id or domain) refine it. Only the names are kept here: the values are read where they are used.
 */
export function readConnectEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<ConnectProviders, string> {
  const on = (p: OAuthProvider) =>
    set(env[CONNECT_ENV[p].clientIdEnv]) && set(env[CONNECT_ENV[p].clientSecretEnv]);
  const squareEnv = env["SQUARE_ENVIRONMENT"];
  if (set(squareEnv) && squareEnv !== "production" && squareEnv !== "sandbox")
    return err(`SQUARE_ENVIRONMENT must be production or sandbox, got "${squareEnv}"`);
  const tenant = env["MICROSOFT_TENANT"];
  if (set(tenant) && !/^[A-Za-z0-9.-]{1,100}$/.test(tenant))
    return err(
      `MICROSOFT_TENANT must be common, organizations, consumers or a tenant id or domain, got "${tenant}"`,
    );
  return ok({
    ...(on("square") && {
      square: { ...CONNECT_ENV.square, ...(set(squareEnv) && { environment: squareEnv }) },
    }),
    ...(on("google") && { google: { ...CONNECT_ENV.google } }),
    ...(on("microsoft") && { microsoft: { ...CONNECT_ENV.microsoft, ...(set(tenant) && { tenant }) } }),
  });
}

export const connectProviderNames = (c: ConnectProviders): OAuthProvider[] =>
  (["square", "google", "microsoft"] as const).filter((p) => c[p] !== undefined);

/** serve's start line about Connect: which providers an operator can connect, or why none. */
export function connectBannerLine(c: ConnectProviders, hasVault: boolean, publicOrigin: string): string {
  const names = connectProviderNames(c);
  if (names.length === 0)
    return (
      "Connect: off — no OAuth client configured (set SQUARE_CLIENT_ID/SQUARE_CLIENT_SECRET, " +
      "GOOGLE_CLIENT_ID/GOOGLE_CLIENT_SECRET or MICROSOFT_CLIENT_ID/MICROSOFT_CLIENT_SECRET)"
    );
  if (!hasVault)
    return `Connect: off — TOKEN_KEYS is not set, and grants are sealed in the token vault (${names.join(", ")} configured)`;
  return `Connect: ${names.join(", ")} from the console's Operate page (redirect URIs ${publicOrigin}/connect/<provider>/callback)`;
}

/**
 * SMTP_HOST, SMTP_PORT (587), SMTP_SECURE (0: STARTTLS when offered; 1: implicit TLS),
 * SMTP_USER, SMTP_PASSWORD, SMTP_FROM; TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM.
 */
export function readHostMessageEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<HostMessageSettings | undefined, string> {
  let smtp: HostMessageSettings["smtp"];
  if (set(env["SMTP_HOST"])) {
    const port = set(env["SMTP_PORT"]) ? Number(env["SMTP_PORT"]) : 587;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      return err(`SMTP_PORT must be 1-65535, got "${env["SMTP_PORT"]}"`);
    if (!set(env["SMTP_FROM"])) return err("SMTP_FROM is required with SMTP_HOST (the sender address)");
    smtp = {
      host: env["SMTP_HOST"],
      port,
      secure: env["SMTP_SECURE"] === "1" || env["SMTP_SECURE"] === "true",
      requireTls: env["SMTP_SECURE"] !== "0",
      from: env["SMTP_FROM"],
      ...(set(env["SMTP_USER"]) && { user: env["SMTP_USER"], password: env["SMTP_PASSWORD"] ?? "" }),
    };
  }
  let sms: HostMessageSettings["sms"];
  if (set(env["TWILIO_ACCOUNT_SID"])) {
    if (!set(env["TWILIO_AUTH_TOKEN"]) || !set(env["TWILIO_FROM"])) {
      return err("TWILIO_AUTH_TOKEN and TWILIO_FROM are required with TWILIO_ACCOUNT_SID");
    }
    sms = {
      accountSid: env["TWILIO_ACCOUNT_SID"],
      authToken: env["TWILIO_AUTH_TOKEN"],
      from: env["TWILIO_FROM"],
    };
  }
  if (smtp === undefined && sms === undefined) return ok(undefined);
  return ok({ ...(smtp !== undefined && { smtp }), ...(sms !== undefined && { sms }) });
}

export interface RedisSettings {
  readonly redisUrl?: string;
  readonly redisKeyPrefix?: string;
  /** REDIS_WAIT_REPLICAS / REDIS_WAIT_TIMEOUT_MS: replicas a booking write waits for. */
  readonly redisReplicaWait?: { readonly replicas: number; readonly timeoutMs: number };
  /** REDIS_SLOT_MOVE_WAIT_MS: how long a call waits out its business's slot moving (cluster). */
  readonly redisSlotMoveWaitMs?: number;
}

/**
 * REDIS_URL (or REDIS_CLUSTER_NODES) and REDIS_KEY_PREFIX, shared by every command that can
 * run on Redis. A Redis Cluster is named either by REDIS_URL=redis+cluster://
 * [user:pass@]host:port,… or by REDIS_CLUSTER_NODES=host:port,…; both set must name the same
 * seed nodes (REDIS_URL then also carries the credentials).
 */
export function readRedisEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<RedisSettings, string> {
  let redisUrl: string | undefined;
  if (set(env["REDIS_URL"])) {
    const raw = env["REDIS_URL"];
    try {
      parseRedisTarget(raw);
    } catch (e) {
      const why = isClusterUrl(raw) ? `: ${(e as Error).message}` : "";
      return err(
        `REDIS_URL must be a redis://, rediss:// or redis+cluster://host:port,… URL, got "${redact(raw)}"${why}`,
      );
    }
    redisUrl = raw;
  }
  const nodes = env["REDIS_CLUSTER_NODES"];
  if (set(nodes)) {
    const fromNodes = clusterUrlFromNodes(nodes);
    let target;
    try {
      target = parseRedisTarget(fromNodes);
    } catch (e) {
      return err(`REDIS_CLUSTER_NODES must be host:port[,host:port…]: ${(e as Error).message}`);
    }
    if (target.kind !== "cluster") return err("REDIS_CLUSTER_NODES must be host:port[,host:port…]");
    if (redisUrl === undefined) redisUrl = fromNodes;
    else {
      const fromUrl = parseRedisTarget(redisUrl);
      const same = fromUrl.kind === "cluster" && nodeList(fromUrl.nodes) === nodeList(target.nodes);
      if (!same) {
        return err(
          `REDIS_URL ("${redactUrl(redisUrl)}") and REDIS_CLUSTER_NODES ("${nodes}") name different Redis servers: set one of them`,
        );
      }
    }
  }
  const redisKeyPrefix = env["REDIS_KEY_PREFIX"];
  if (set(redisKeyPrefix) && !/^[A-Za-z0-9:._-]{1,64}$/.test(redisKeyPrefix)) {
    return err(`REDIS_KEY_PREFIX must be 1-64 characters of A-Z a-z 0-9 : . _ -, got "${redisKeyPrefix}"`);
  }
  const replicas = env["REDIS_WAIT_REPLICAS"];
  const timeout = env["REDIS_WAIT_TIMEOUT_MS"];
  if (set(replicas) && !/^[0-9]$/.test(replicas)) {
    return err(`REDIS_WAIT_REPLICAS must be a number of replicas 0-9, got "${replicas}"`);
  }
  if (set(timeout) && !/^[1-9][0-9]{0,4}$/.test(timeout)) {
    return err(`REDIS_WAIT_TIMEOUT_MS must be 1-99999 (milliseconds), got "${timeout}"`);
  }
  const slotMove = env["REDIS_SLOT_MOVE_WAIT_MS"];
  if (set(slotMove) && !/^[1-9][0-9]{0,4}$/.test(slotMove)) {
    return err(`REDIS_SLOT_MOVE_WAIT_MS must be 1-99999 (milliseconds), got "${slotMove}"`);
  }
  const redisReplicaWait =
    set(replicas) && Number(replicas) > 0
      ? { replicas: Number(replicas), timeoutMs: set(timeout) ? Number(timeout) : 200 }
      : undefined;
  return ok({
    ...(redisUrl !== undefined && { redisUrl }),
    ...(set(redisKeyPrefix) && { redisKeyPrefix }),
    ...(redisReplicaWait !== undefined && { redisReplicaWait }),
    ...(set(slotMove) && { redisSlotMoveWaitMs: Number(slotMove) }),
  });
}

function nodeList(nodes: readonly ClusterNode[]): string {
  return nodes
    .map((n) => `${n.host.toLowerCase()}:${n.port}`)
    .sort()
    .join(",");
}

/** The URL with any password replaced, for printing (a redis+cluster:// URL too). */
export function redactUrl(url: string): string {
  if (isClusterUrl(url)) return redact(url);
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** ORIGIN_RATE_LIMIT: "off", or "<burst>/<per second>" such as "2000/200". */
function readOriginRate(raw: string | undefined): Result<ServeSettings["originRate"], string> {
  if (!set(raw)) return ok(undefined);
  if (raw === "off") return ok(false);
  const m = /^([0-9]{1,9})\/([0-9]{1,9}(?:\.[0-9]{1,6})?)$/.exec(raw);
  const capacity = Number(m?.[1]);
  const refillPerSec = Number(m?.[2]);
  if (m === null || capacity < 1 || !(refillPerSec > 0)) {
    return err(`ORIGIN_RATE_LIMIT must be "off" or "<burst>/<per second>" such as "2000/200", got "${raw}"`);
  }
  return ok({ capacity, refillPerSec });
}
