/**
 * One way to open Redis for every store here: a single server (`redis://`, `rediss://`) or a
 * Redis Cluster. The gateway passes one string around (`redisUrl`); a cluster is
 * named by the URL form
 *
 *   redis+cluster://[user:password@]host:port[,host:port…]    (rediss+cluster:// for TLS)
 *
 * or by REDIS_CLUSTER_NODES=host:port,… (serve-env turns that into this form). The seed nodes
 * only bootstrap: ioredis asks them for the slot map (CLUSTER SLOTS) and follows MOVED/ASK.
 *
 * Stores are written against `RedisClient`, the union of ioredis' two clients, which share
 * every command method. What differs on a cluster, and what every store must respect:
 *  - a multi-key command, a MULTI or a Lua script must name keys of ONE slot (hash tags:
 *    `{…}`); per-host keys carry `{<hostId>}` (keys.ts), so a host's script runs
 *    on the shard that owns it, and keys of different hosts spread over the shards;
 *  - SCAN and KEYS walk one node: use `eachMaster` to walk the whole keyspace;
 *  - BullMQ keeps a queue's keys in one slot only when its prefix holds a hash tag: the
 *    gateway's queue prefix is `<REDIS_KEY_PREFIX>{<REDIS_KEY_PREFIX>bullmq}` (keys.ts `group`).
 *
 * Fail-fast, as the single-server client (connection.ts): no offline queue and no
 * resend of a command that was in flight when a connection died (it may have run). A
 * redirection (MOVED, ASK, TRYAGAIN, CLUSTERDOWN) means the node did NOT run the command, so
 * ioredis may follow it safely; that is how a master failover ends in a retry.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";

export type RedisClient = Redis | Cluster;

export interface ClusterNode {
  readonly host: string;
  readonly port: number;
}

export type RedisTarget =
  | { readonly kind: "single"; readonly url: string }
  | {
      readonly kind: "cluster";
      readonly nodes: readonly ClusterNode[];
      readonly username?: string;
      readonly password?: string;
      readonly tls: boolean;
    };

const CLUSTER_SCHEMES = new Set(["redis+cluster:", "rediss+cluster:"]);

export function isClusterUrl(url: string): boolean {
  const scheme = /^[a-z+]+:/i.exec(url)?.[0]?.toLowerCase();
  return scheme !== undefined && CLUSTER_SCHEMES.has(scheme);
}

/** `host:port,host:port` (REDIS_CLUSTER_NODES) as the cluster URL form. */
export function clusterUrlFromNodes(nodes: string): string {
  return `redis+cluster://${nodes.trim()}`;
}

/**
 * Reads a redisUrl. Throws with a message naming what is wrong (callers validating
 * configuration show it to the operator).
 */
export function parseRedisTarget(url: string): RedisTarget {
  if (!isClusterUrl(url)) {
    const parsed = new URL(url);
    if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
      throw new Error(
        `a Redis URL must start with redis://, rediss:// or redis+cluster://, got "${redact(url)}"`,
      );
    }
    return { kind: "single", url };
  }
  const tls = url.toLowerCase().startsWith("rediss+");
  const rest = url.slice(url.indexOf("://") + 3);
  const at = rest.lastIndexOf("@");
  const auth = at >= 0 ? rest.slice(0, at) : "";
  const hostList = (at >= 0 ? rest.slice(at + 1) : rest).replace(/\/+$/, "");
  const nodes = hostList.split(",").map((entry) => parseNode(entry.trim()));
  if (nodes.length === 0) throw new Error("a Redis Cluster URL needs at least one host:port");
  let username: string | undefined;
  let password: string | undefined;
  if (auth !== "") {
    const colon = auth.indexOf(":");
    const user = decodeURIComponent(colon >= 0 ? auth.slice(0, colon) : auth);
    const pass = colon >= 0 ? decodeURIComponent(auth.slice(colon + 1)) : undefined;
    if (user !== "") username = user;
    if (pass !== undefined && pass !== "") password = pass;
  }
  return {
    kind: "cluster",
    nodes,
    tls,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
  };
}

function parseNode(entry: string): ClusterNode {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$/.exec(entry);
  const port = Number(m?.[2]);
  if (m === null || m[1] === undefined || port < 1 || port > 65535) {
    throw new Error(`a Redis Cluster node must be host:port, got "${entry}"`);
  }
  return { host: m[1].replace(/^\[|\]$/g, ""), port };
}

export interface OpenRedisOptions {
  /** Options for each server connection (both kinds): timeouts, retryStrategy, … */
  readonly redisOptions?: RedisOptions;
  /** Cluster-only options, merged over the defaults below. */
  readonly clusterOptions?: ClusterOptions;
}

/**
 * A client for the target. Single: `new Redis(url, redisOptions)`. Cluster: ioredis' Cluster
 * client with the seed nodes; `redisOptions` apply to each node's connection (except those
 * the Cluster client owns: retryStrategy and the offline queue, set here cluster-wide).
 */
export function openRedis(url: string, options: OpenRedisOptions = {}): RedisClient {
  const target = parseRedisTarget(url);
  const redisOptions = options.redisOptions ?? {};
  if (target.kind === "single") return new Redis(url, redisOptions);
  const {
    retryStrategy,
    enableOfflineQueue,
    lazyConnect,
    host: _host,
    port: _port,
    path: _path,
    ...perNode
  } = redisOptions;
  void _host;
  void _port;
  void _path;
  const cluster = new Cluster(
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      ...(lazyConnect !== undefined && { lazyConnect }),
      enableOfflineQueue: enableOfflineQueue ?? true,
      // Redirections mean "not run here": follow them, a few times at most.
      maxRedirections: 16,
      retryDelayOnMoved: 0,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      // A master that moved is learnt from MOVED at once; the periodic refresh catches nodes
      // added or removed while nothing was redirected.
      slotsRefreshInterval: 5000,
      slotsRefreshTimeout: 2000,
      ...(retryStrategy !== undefined && {
        clusterRetryStrategy: (times: number) => retryStrategy?.(times) ?? null,
      }),
      redisOptions: {
        ...perNode,
        ...(target.username !== undefined && { username: target.username }),
        ...(target.password !== undefined && { password: target.password }),
        ...(target.tls && { tls: {} }),
      },
      ...options.clusterOptions,
    },
  );
  return cluster;
}

export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/**
 * Runs `fn` on every master (a single server is its own master): for SCAN, KEYS, INFO and
 * SCRIPT LOAD, which act on one node.
 */
export async function eachMaster<T>(client: RedisClient, fn: (node: Redis) => Promise<T>): Promise<T[]> {
  if (!isCluster(client)) return [await fn(client)];
  // A Cluster client knows its masters only once it has read the slot map.
  await whenReady(client);
  return Promise.all(client.nodes("master").map((node) => fn(node)));
}

async function whenReady(cluster: Cluster, timeoutMs = 5000): Promise<void> {
  if (cluster.status === "ready") return;
  if (cluster.status === "wait") return cluster.connect();
  await new Promise<void>((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      cluster.off("ready", onReady);
      reject(new Error(`the Redis Cluster client was not ready within ${timeoutMs} ms (${cluster.status})`));
    }, timeoutMs);
    cluster.once("ready", onReady);
  });
}

/** The URL with any password replaced, for logs and errors. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:@/]*:)[^@]*@/, "$1***@");
}
