/**
 * `booking-gateway mcp --host ID [--config FILE]`: one host's OSBP v0.1.0 tools as a local
 * stdio MCP server (OSBP "Transport"), the way an agent host launches it. The OSBP server is
 * bound to one merchant (OSBP "Non-Goals": no multi-tenant hosting), hence --host.
 *
 * stdout belongs to MCP: everything this command says goes to stderr. The process ends when
 * the client closes stdin (or on SIGINT/SIGTERM): in-flight calls finish, then the audit log,
 * the idempotency store and the synthetic platform's store close.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RedisClient } from "../../redis/client.js";
import type { Readable, Writable } from "node:stream";
import type { HostConfig } from "../../booking/api.js";
import {
  embeddedCalendarHost,
  embeddedDefaultHosts,
  seedEmbeddedCalendar,
} from "../../booking/hosts/index.js";
import { fileMessageSink } from "../../connectors/synthetic/index.js";
import { connectClient, createClient } from "../../redis/connection.js";
import { redisKeys } from "../../redis/keys.js";
import { startOsbpStdioServer } from "../../edges/osbp/mcp/stdio.js";
import { OSBP_VERSION } from "../../edges/osbp/mcp/server.js";
import { createCoreAdapter, type CoreAdapter } from "../../edges/osbp/adapter/index.js";
import { createJsonlAuditLog } from "../../edges/osbp/audit/jsonl.js";
import { conformanceHostConfig } from "../osbp-conformance/index.js";
import { FileIdempotencyStore } from "../../edges/osbp/idempotency/file.js";
import { createApprovalGate } from "../../protocol/osbp/index.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import type { OsbpIdempotencyStore } from "../../edges/osbp/idempotency/port.js";
import { RedisIdempotencyStore } from "../../edges/osbp/idempotency/redis.js";
import { buildGatewayRuntime } from "../runtime/runtime.js";
import { readOrCreateSecret } from "../runtime/secret-files.js";
import { jsonLinesLogger, systemClock } from "../runtime/support.js";
import type { CliIo } from "./io.js";
import { loadHostsConfigFile } from "./config-file.js";
import { setUpstreamLimits } from "../../connectors/http/limits.js";
import { readMcpEnv } from "./mcp-env.js";
import { readServeEnv, redactUrl, upstreamPolicyOf, withSecretFiles } from "./serve-env.js";

export interface McpArgs {
  readonly host: string;
  readonly configPath?: string;
}

/** The streams MCP runs on; default the process's own. */
export interface McpStreams {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

export interface RunningMcp {
  /** Resolves when the client has gone and every store is closed: the process may exit. */
  readonly done: Promise<void>;
  /** Stops serving (in-flight calls finish) and closes every store. Idempotent. */
  close(): Promise<void>;
}

type Closer = () => Promise<void>;

type OsbpDefaults = { serviceId?: string; scheduleId?: string };

/**
 * OSBP service.describe and availability.find let "the adapter substitute its configured
 * default" service and schedule: configured per host as connector settings
 * default_service_id and default_schedule_id (optional; without them the adapter falls back
 * to a platform's only service or schedule).
 */
function osbpDefaultsOf(config: HostConfig, at: string): Result<OsbpDefaults, string> {
  const out: OsbpDefaults = {};
  const settings = config.connector.settings;
  for (const [key, member] of [
    ["default_service_id", "serviceId"],
    ["default_schedule_id", "scheduleId"],
  ] as const) {
    const value = settings[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "")
      return err(`${at}/connector/settings/${key}: must be a non-empty string`);
    out[member] = value;
  }
  return ok(out);
}

export async function startMcp(args: McpArgs, io: CliIo & McpStreams): Promise<number | RunningMcp> {
  const fail = (line: string) => io.err(`booking-gateway mcp: ${line}`);
  const say = (line: string) => io.err(`booking-gateway mcp: ${line}`);
  const cwd = io.cwd ?? process.cwd();

  // REDIS_URL_FILE as for serve: the banner's command passes the file rather than a password.
  const secrets = withSecretFiles(io.env, (path) => readFileSync(resolve(cwd, path), "utf8"));
  if (!secrets.ok) {
    fail(secrets.error);
    return 2;
  }
  const env = secrets.value;
  const settings = readMcpEnv(env, cwd);
  if (!settings.ok) {
    fail(settings.error);
    return 2;
  }
  const s = settings.value;

  let hosts: HostConfig[];
  let embeddedCalendar = false;
  if (args.configPath === undefined) {
    hosts = [...embeddedDefaultHosts(), embeddedCalendarHost(), conformanceHostConfig()];
    embeddedCalendar = true;
  } else {
    const loaded = await loadHostsConfigFile(resolve(cwd, args.configPath));
    if (!loaded.ok) {
      fail(loaded.error);
      return 2;
    }
    hosts = loaded.value;
  }
  const index = hosts.findIndex((h) => h.id === args.host);
  const config = hosts[index];
  if (config === undefined) {
    const from = args.configPath ?? "the embedded default";
    fail(`no host "${args.host}" in ${from} (known: ${hosts.map((h) => h.id).join(", ")})`);
    return 2;
  }

  const logger = jsonLinesLogger((line) => io.err(line));
  const closers: Closer[] = [];
  // Reverse order of opening; one failing closer must not keep the others open.
  const closeAll = async (): Promise<void> => {
    for (const close of closers.splice(0).reverse()) {
      await close().catch((e: unknown) =>
        logger.error("closing failed", { error: e instanceof Error ? e.message : String(e) }),
      );
    }
  };

  try {
    const serve = readServeEnv(env, cwd);
    if (!serve.ok) {
      fail(serve.error);
      return 2;
    }
    // UPSTREAM_MAX_* and ICS_MAX_* as for serve: every connector reads its caps on each call
    // (connectors/http/limits.ts), so they are set before any runs.
    setUpstreamLimits(serve.value.upstreamLimits);
    const defaults = osbpDefaultsOf(config, `/hosts/${index}`);
    if (!defaults.ok) {
      await closeAll();
      fail(`${args.configPath ?? "embedded default"}: ${defaults.error}`);
      return 2;
    }
    // The gateway's own core for this host: with Redis, the very hosts' holds, bookings and
    // synthetic platform `serve` uses, so a hold taken over SchCP binds this OSBP server and
    // the other way round; the same data dir, so offers are signed with the host's key.
    if (embeddedCalendar && config.calendar !== undefined)
      await seedEmbeddedCalendar(serve.value.dataDir, systemClock.now());
    // Without Redis the holds, bookings, synthetic platform and calendar state are kept in the
    // data dir between processes (one at a time), so an MCP client that starts a process per
    // call finds on its next call what this one booked.
    const dataDir = serve.value.dataDir;
    const runtime = await buildGatewayRuntime({
      hosts: [config],
      publicOrigin: serve.value.publicOrigin ?? "http://127.0.0.1:8787",
      dataDir,
      logger,
      ...(s.redisUrl === undefined
        ? { memoryStateDir: join(dataDir, "embedded-state") }
        : { redisUrl: s.redisUrl }),
      redisKeyPrefix: s.redisKeyPrefix,
      upstreamPolicy: upstreamPolicyOf(serve.value),
      ...(s.messageLog !== undefined && { syntheticMessages: fileMessageSink(s.messageLog) }),
    });
    if (!runtime.ok) {
      await closeAll();
      fail(`${args.configPath ?? "embedded default"}: ${runtime.error.message}`);
      return 2;
    }
    const gateway = runtime.value;
    closers.push(() => gateway.close());

    let idempotency: OsbpIdempotencyStore;
    let approvalSecret: Uint8Array;
    const idempotencyPath = s.idempotencyPath ?? join(dataDir, "osbp", "idempotency.json");
    if (s.redisUrl === undefined) {
      idempotency = await FileIdempotencyStore.open(idempotencyPath);
      closers.push(() => idempotency.close());
      approvalSecret = await fileApprovalSecret(join(dataDir, "osbp", "approval-secret"));
    } else {
      const client = createClient({ url: s.redisUrl });
      await connectClient(client, s.redisUrl);
      closers.push(() =>
        client.quit().then(
          () => undefined,
          () => client.disconnect(),
        ),
      );
      const keys = osbpRedisKeys(s.redisKeyPrefix);
      idempotency = new RedisIdempotencyStore(client, { prefix: keys.idempotencyPrefix });
      closers.push(() => idempotency.close());
      approvalSecret = await sharedApprovalSecret(client, keys.approvalSecret);
    }

    const audit = await createJsonlAuditLog({ path: s.auditPath, clock: systemClock });
    closers.push(() => audit.close());
    const host = gateway.hosts.get(config.id);
    if (host === undefined) throw new Error(`host ${config.id} did not start`);
    const core = createCoreAdapter({
      core: gateway.service,
      hostId: config.id,
      platform: host.connector.platform,
      idempotency,
      clock: systemClock,
      defaults: defaults.value,
      logger,
      approvalGate: createApprovalGate({ clock: systemClock, secret: approvalSecret }),
    });
    const adapter = persistingAfterEachCall(core, () =>
      gateway.persist().catch((e: unknown) =>
        logger.error("the gateway state was not saved", {
          error: e instanceof Error ? e.message : String(e),
        }),
      ),
    );
    const server = await startOsbpStdioServer({
      adapter,
      audit,
      logger,
      ...(io.stdin !== undefined && { stdin: io.stdin }),
      ...(io.stdout !== undefined && { stdout: io.stdout }),
    });
    closers.push(() => server.close());

    say(`serving OSBP ${OSBP_VERSION} for host "${config.id}" on stdio`);
    say(`audit log: ${s.auditPath}`);
    say(
      s.redisUrl === undefined
        ? `idempotency: ${idempotencyPath}; holds, bookings and the synthetic platform: ${join(dataDir, "embedded-state")} (one process at a time)`
        : `holds, bookings, idempotency and the synthetic platform: Redis at ${redactUrl(s.redisUrl)} (prefix "${s.redisKeyPrefix}"), shared with serve`,
    );
    if (s.messageLog !== undefined) say(`synthetic platform messages: ${s.messageLog}`);

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => (closing ??= closeAll());
    return { done: server.closed.then(close), close };
  } catch (e) {
    await closeAll();
    fail(`could not start: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

/**
 * The approval gate's HMAC key without Redis: a 32-byte secret file in the data dir (0600 in a
 * 0700 directory, created once, never replaced), so the approved retry that reaches a fresh
 * process carries a token that process accepts (OSBP "booking.create").
 */
async function fileApprovalSecret(path: string): Promise<Uint8Array> {
  const { text } = await readOrCreateSecret(path, () => `${randomBytes(32).toString("base64url")}\n`);
  const secret = Buffer.from(text.trim(), "base64url");
  if (secret.length < 32) throw new Error(`${path} does not hold a 32-byte secret`);
  return secret;
}

/**
 * Every adapter method, then the state saved, before the answer goes out: what the client is
 * told is on disk for the next process (the calls are few and human-paced).
 */
function persistingAfterEachCall(adapter: CoreAdapter, persist: () => Promise<void>): CoreAdapter {
  const after =
    <I, O>(method: (input: I) => Promise<O>) =>
    async (input: I): Promise<O> => {
      try {
        return await method(input);
      } finally {
        await persist();
      }
    };
  return {
    get platform() {
      return adapter.platform;
    },
    get upstreamMeta() {
      return adapter.upstreamMeta;
    },
    upstreamOf: (result) => adapter.upstreamOf(result),
    describeService: after((i) => adapter.describeService(i)),
    findAvailability: after((i) => adapter.findAvailability(i)),
    explainPolicy: after((i) => adapter.explainPolicy(i)),
    sendVerification: after((i) => adapter.sendVerification(i)),
    verifyCode: after((i) => adapter.verifyCode(i)),
    createBooking: after((i) => adapter.createBooking(i)),
    getBooking: after((i) => adapter.getBooking(i)),
    listServices: () => adapter.listServices(),
  };
}

/**
 * Where `mcp` keeps its OSBP state on Redis: `<prefix>osbp:idempotency:osbp:idem:{…}` and
 * `<prefix>osbp:approval-secret` (docs/ARCHITECTURE.md, Redis layout and scale).
 */
export function osbpRedisKeys(prefix: string): { idempotencyPrefix: string; approvalSecret: string } {
  const osbp = redisKeys(prefix).under("osbp");
  return { idempotencyPrefix: osbp.under("idempotency").prefix, approvalSecret: osbp.key("approval-secret") };
}

/**
 * The approval gate's HMAC key, shared by every `mcp` process on one Redis: a token issued by
 * one process must approve the retry another process receives (OSBP "booking.create"). The
 * first process stores a random key (SET NX); the others read it.
 */
export async function sharedApprovalSecret(client: RedisClient, key: string): Promise<Uint8Array> {
  await client.set(key, randomBytes(32).toString("base64url"), "NX");
  const stored = await client.get(key);
  const secret = stored === null ? undefined : Buffer.from(stored, "base64url");
  if (secret === undefined || secret.length < 32) throw new Error(`${key} does not hold a 32-byte secret`);
  return secret;
}
