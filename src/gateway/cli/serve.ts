/**
 * `booking-gateway serve [--config FILE]`: the hosts (the file, or the embedded default), the
 * runtime (stores, connectors, keys, workers), the HTTP app, a listening socket, and what an
 * operator needs to know printed on stdout. The socket is bound first, so that with PORT=0
 * the default public origin names the port actually bound; requests arriving before the
 * runtime is ready get a 503.
 */
import { createAdaptorServer } from "@hono/node-server";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setUpstreamLimits } from "../../connectors/http/limits.js";
import { createHttpApp, SCHCP_VERSION } from "../app/app.js";
import { buildGatewayRuntime } from "../runtime/runtime.js";
import type { GatewayRuntime } from "../runtime/runtime.js";
import { jsonLinesLogger, logLine } from "../runtime/support.js";
import type { CliIo } from "./io.js";
import { hostsFor } from "./config-file.js";
import {
  connectBannerLine,
  connectProviderNames,
  readServeEnv,
  redactUrl,
  statusAllowPrivateOf,
  upstreamPolicyOf,
  withSecretFiles,
} from "./serve-env.js";
import { openVaultFromEnv } from "./credentials.js";
import { mcpBannerLines, mcpCommandFor, type McpCommand } from "./mcp-command.js";
import { TOKEN_KEYS_VARIABLE } from "../credentials/key-ring.js";
import { loadOrCreateTokenKeys } from "../runtime/token-key-file.js";
import { attesterKeyPath, TRY_IT_ATTESTER_ID } from "../runtime/attester-key-file.js";
import { seedTryItRule, tryItPeopleDir } from "../runtime/people-key-files.js";
import { ELLIS_RULE } from "../../booking/hosts/index.js";
import type { ServeSettings } from "./serve-env.js";
import type { Result } from "../../protocol/result.js";

export interface RunningServer {
  /** Where the socket listens (http://127.0.0.1:<port>). */
  readonly url: string;
  readonly publicOrigin: string;
  readonly runtime: GatewayRuntime;
  /** Stops taking connections, finishes what is in flight, then closes the runtime. */
  close(): Promise<void>;
}

const NOT_READY = JSON.stringify({
  error: { code: "UPSTREAM_UNAVAILABLE", reason: "upstream_unavailable", message: "the gateway is starting" },
});

export async function startServe(configPath: string | undefined, io: CliIo): Promise<number | RunningServer> {
  const cwd = io.cwd ?? process.cwd();
  const secrets = withSecretFiles(io.env, (path) => readFileSync(resolve(cwd, path), "utf8"));
  const env = secrets.ok ? secrets.value : io.env;
  const settings = secrets.ok ? readServeEnv(env, cwd) : secrets;
  // LOG_FORMAT=json: the banner and start errors become log records too, one JSON object a line.
  const json = settings.ok && settings.value.logFormat === "json";
  const say = (line: string) => io.out(json ? logLine("info", line) : `booking-gateway: ${line}`);
  const fail = (line: string) => io.err(json ? logLine("error", line) : `booking-gateway serve: ${line}`);
  if (!settings.ok) {
    fail(settings.error);
    return 2;
  }
  // Every connector reads its caps on each call (connectors/http/limits.ts): set before any runs.
  setUpstreamLimits(settings.value.upstreamLimits);
  const loaded = await hostsFor(configPath, cwd, settings.value.dataDir);
  if (!loaded.ok) {
    fail(loaded.error);
    return 2;
  }
  const hosts = loaded.value;
  // The embedded default without TOKEN_KEYS keeps a key of its own in the data dir, so an owner
  // can connect a CalDAV calendar on a plain `npm start` (token-key-file.ts says what it is not).
  let keyFile: { readonly path: string; readonly created: boolean } | undefined;
  let vaultEnv = env;
  if (configPath === undefined && (env[TOKEN_KEYS_VARIABLE] ?? "") === "") {
    try {
      const key = await loadOrCreateTokenKeys(settings.value.dataDir);
      keyFile = key;
      vaultEnv = { ...env, [TOKEN_KEYS_VARIABLE]: key.value };
    } catch (e) {
      fail(e instanceof Error ? e.message : String(e));
      return 2;
    }
  }
  // The token vault (TOKEN_KEYS): checked before the socket is bound, so a bad key is a start error.
  const vault = openVaultFromEnv(vaultEnv, settings.value);
  if (!vault.ok) {
    fail(vault.error);
    return 2;
  }
  const openVault = vault.value;
  const closeVault = () => openVault?.close() ?? Promise.resolve();

  // env carries the Node request (incoming), which the app reads bodies from directly.
  // Until the runtime is built every request is 503 (so /readyz is too), except /healthz:
  // the process is alive, and a liveness check must not restart a replica that is starting.
  let handler: (request: Request, env?: unknown) => Response | Promise<Response> = (request) =>
    new URL(request.url).pathname === "/healthz"
      ? new Response('{"ok":true}', { headers: { "content-type": "application/json" } })
      : new Response(NOT_READY, {
          status: 503,
          headers: { "content-type": "application/json", "retry-after": "1", "schcp-version": SCHCP_VERSION },
        });
  const server = createAdaptorServer({ fetch: (request: Request, env: unknown) => handler(request, env) });
  const listening = await listen(server, settings.value);
  if (!listening.ok) {
    await closeVault();
    fail(listening.error);
    return 1;
  }
  const port = listening.value;
  const publicOrigin = settings.value.publicOrigin ?? `http://127.0.0.1:${port}`;
  const closeServer = async () => {
    await closeHttpServer(server);
    await closeVault();
  };

  const logger = jsonLinesLogger((line) => io.err(line));
  let runtime: GatewayRuntime;
  let rule: Awaited<ReturnType<typeof seedTryItRule>> | undefined;
  try {
    const built = await buildGatewayRuntime({
      hosts,
      publicOrigin,
      dataDir: settings.value.dataDir,
      logger,
      validateResponses: settings.value.validateResponses,
      metrics: settings.value.metrics,
      ...(settings.value.hostMessages !== undefined && { hostMessages: settings.value.hostMessages }),
      operatorName: configPath === undefined ? "Booking Gateway (embedded default)" : "Booking Gateway",
      ...(settings.value.redisUrl !== undefined && { redisUrl: settings.value.redisUrl }),
      ...(settings.value.redisKeyPrefix !== undefined && { redisKeyPrefix: settings.value.redisKeyPrefix }),
      ...(settings.value.redisReplicaWait !== undefined && {
        redisReplicaWait: settings.value.redisReplicaWait,
      }),
      ...(settings.value.redisSlotMoveWaitMs !== undefined && {
        redisSlotMoveWaitMs: settings.value.redisSlotMoveWaitMs,
      }),
      ...(settings.value.operatorToken !== undefined && { operatorToken: settings.value.operatorToken }),
      ...(settings.value.originRate !== undefined && { originRate: settings.value.originRate }),
      trustForwardedFor: settings.value.trustForwardedFor,
      upstreamPolicy: upstreamPolicyOf(settings.value),
      // Key apps' status URLs (SchCP §3.3): the embedded default reaches the agent SDK's key-app
      // server on loopback; a configured gateway keeps the §5.8 policy unless told otherwise.
      statusAllowPrivate: statusAllowPrivateOf(settings.value, configPath),
      ...(settings.value.ownerCaps !== undefined && { ownerCaps: settings.value.ownerCaps }),
      ...(settings.value.calendarSyncConcurrency !== undefined && {
        calendarSyncConcurrency: settings.value.calendarSyncConcurrency,
      }),
      ...(openVault !== undefined && {
        credentials: {
          vault: openVault.vault,
          basic: openVault.basic,
          refreshLock: openVault.refreshLock,
          env,
        },
      }),
      // Connect seals grants in the vault: the runtime turns it on only with credentials.
      ...(connectProviderNames(settings.value.connect).length > 0 && { connect: settings.value.connect }),
    });
    if (!built.ok) {
      await closeServer();
      fail(`${configPath ?? "embedded default"}: ${built.error.message}`);
      return 2;
    }
    runtime = built.value;
  } catch (e) {
    await closeServer();
    fail(`could not start: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  // SchCP §7.9: Ellis's try-it rule, kept by their calendar (people-key-files.ts).
  if (configPath === undefined) {
    try {
      rule = await seedTryItRule(runtime, settings.value.dataDir);
    } catch (e) {
      await runtime.close();
      await closeServer();
      fail(`could not start: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
  }
  handler = createHttpApp(runtime).fetch;

  const url = `http://${settings.value.bindHost.includes(":") ? `[${settings.value.bindHost}]` : settings.value.bindHost}:${port}`;
  say(`serving ${hosts.length} host(s) on ${url} (public origin ${publicOrigin})`);
  say(`operator discovery at ${publicOrigin}/.well-known/scheduling.json`);
  for (const h of runtime.hosts.list()) {
    say(`  ${h.config.id}: ${publicOrigin}/hosts/${h.config.id}/scheduling.json`);
  }
  say(
    settings.value.redisUrl === undefined
      ? "store: in memory (holds and bookings end with this process)"
      : `store: Redis at ${redactUrl(settings.value.redisUrl)}, webhooks on BullMQ`,
  );
  say(
    `console-created hosts: ${runtime.managedHosts.liveIds().length} served, kept in ${settings.value.redisUrl === undefined ? `${settings.value.dataDir}/hosts` : "Redis"}`,
  );
  say(`host signing keys in ${settings.value.dataDir}`);
  if (configPath === undefined)
    say(
      `try-it attester "${TRY_IT_ATTESTER_ID}": trusted by the embedded hosts (SchCP §7.5), its signing key in ${attesterKeyPath(settings.value.dataDir)} (docs/schcp.md, Attestations)`,
    );
  if (configPath === undefined && rule !== undefined && rule !== "not_served") {
    say(
      `try-it people (SchCP §5.12, §7.7): noor-haddad, ellis-moreau and priya-shah are owned by keys kept in ${tryItPeopleDir(settings.value.dataDir)}, ` +
        `for trying a meeting with the agent SDK (npm run demo:meeting, docs/meetings.md)`,
    );
    say(
      `try-it rule: ${ELLIS_RULE.hostId} answers by "${ELLIS_RULE.label}" (SchCP §7.9, ${rule === "added" ? "put in the rule store now" : "kept"})`,
    );
  }
  if (openVault !== undefined) say(`OAuth token vault: ${openVault.where}`);
  else
    say(
      `token vault: off — ${TOKEN_KEYS_VARIABLE} is not set, so owners cannot connect a CalDAV calendar or an OAuth account ` +
        `from the console (set ${TOKEN_KEYS_VARIABLE}=k1:<the output of openssl rand -base64 32>)`,
    );
  if (keyFile !== undefined)
    say(
      `token vault key: ${keyFile.created ? "generated now, " : ""}kept in ${keyFile.path} (TOKEN_KEYS is not set, so the embedded default keeps its own: ` +
        `owners can connect CalDAV calendars; a deployment sets TOKEN_KEYS and keeps it apart from its backups)`,
    );
  say(connectBannerLine(settings.value.connect, openVault !== undefined, publicOrigin));
  for (const c of runtime.calendarHosts) {
    const instant = runtime.hosts.get(c.hostId)?.config.policies.confirmation === "instant";
    say(
      `calendar host ${c.hostId}: availability from its synced calendar (every ${Math.round(c.section.syncEveryMs / 1000)} s); ` +
        (instant
          ? "bookings are confirmed at once (instant confirmation)"
          : `bookings wait for its approver's link (sent by ${c.section.approver.email ?? c.section.approver.phone ?? "message"}; ` +
            `without SMTP or SMS settings the link is printed here and kept in ${settings.value.dataDir}/host-messages.jsonl)`),
    );
  }
  say(
    `operator console at ${publicOrigin}/ — open it in a browser and sign in with the operator credential below`,
  );
  say(
    `operator API at ${publicOrigin}/operator/v0/<host id>/bookings with "Authorization: Bearer <credential>"`,
  );
  if (settings.value.metrics !== "off")
    say(
      settings.value.metrics === "on"
        ? `Prometheus metrics at ${publicOrigin}/metrics, open to anyone who reaches this port (METRICS=on)`
        : `Prometheus metrics at ${publicOrigin}/metrics with "Authorization: Bearer <credential>"`,
    );
  say(
    runtime.operatorTokenSource === "env"
      ? "operator credential: from OPERATOR_TOKEN"
      : `operator credential: ${runtime.operatorToken} (${runtime.operatorTokenSource === "generated" ? "generated now, " : ""}kept in ${settings.value.dataDir})`,
  );
  const firstHost = runtime.hosts.list()[0]?.config.id;
  const mcp =
    firstHost === undefined
      ? undefined
      : mcpCommandFor({
          hostId: firstHost,
          ...(configPath !== undefined && { configPath: resolve(cwd, configPath) }),
          env: io.env,
          cwd,
          dataDir: settings.value.dataDir,
          node: process.execPath,
          bin: BIN,
        });
  for (const line of nextSteps(publicOrigin, firstHost, mcp, settings.value.redisUrl !== undefined))
    say(line);

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    publicOrigin,
    runtime,
    close: () =>
      (closing ??= (async () => {
        // The vault last: the runtime's workers may refresh a token until they stop.
        await closeHttpServer(server);
        await closeWithin(runtime.close(), RUNTIME_CLOSE_MS, () =>
          logger.error(
            `the runtime did not finish closing within ${RUNTIME_CLOSE_MS / 1000} s (a job worker or a store ` +
              "waiting on Redis); stopping without it",
          ),
        );
        await closeVault();
      })()),
  };
}

/** The CLI's entry, the same path from src/ (tsx) and from dist/. */
const BIN = fileURLToPath(new URL("../../../bin/booking-gateway.js", import.meta.url));

/** What to try next, printed last so it is what a new user reads first (README "Quick start"). */
function nextSteps(
  publicOrigin: string,
  hostId: string | undefined,
  mcp: McpCommand | undefined,
  redis: boolean,
): string[] {
  return [
    "try next:",
    `  1. open ${publicOrigin}/ in a browser (the operator console)`,
    ...(hostId === undefined
      ? []
      : [
          `  2. an agent's walk-through, in a source checkout: GATEWAY_URL=${publicOrigin} HOST_ID=${hostId} npm run demo:schcp`,
        ]),
    ...(mcp === undefined ? [] : mcpBannerLines(mcp, { redis })),
    `  readiness at ${publicOrigin}/readyz, liveness at ${publicOrigin}/healthz`,
  ];
}

type Server = ReturnType<typeof createAdaptorServer>;

function listen(server: Server, s: ServeSettings): Promise<Result<number, string>> {
  return new Promise((done) => {
    const onError = (e: NodeJS.ErrnoException) =>
      done({
        ok: false,
        error:
          e.code === "EADDRINUSE"
            ? `port ${s.port} is in use on ${s.bindHost}: set PORT to another port (PORT=0 picks a free one) or stop the other process`
            : `cannot listen on ${s.bindHost}:${s.port}: ${e.message}`,
      });
    server.once("error", onError);
    server.listen(s.port, s.bindHost, () => {
      server.off("error", onError);
      done({ ok: true, value: (server.address() as AddressInfo).port });
    });
  });
}

/**
 * How long a stop waits for the runtime's own close (job workers, stores, timers). A stop must
 * end: an orchestrator's SIGTERM is followed by SIGKILL anyway, and a close seen to wait on a
 * Redis connection that was lost and came back empty would otherwise hold the process forever.
 */
const RUNTIME_CLOSE_MS = 10_000;

/** Waits for `work` up to `ms`, then calls `late` and goes on (what was late is left to exit). */
async function closeWithin(work: Promise<void>, ms: number, late: () => void): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<"late">((done) => {
    timer = setTimeout(() => done("late"), ms);
    timer.unref();
  });
  try {
    if ((await Promise.race([work, gaveUp])) === "late") late();
  } finally {
    clearTimeout(timer);
  }
}

/** Stops accepting, lets in-flight requests finish for up to 10 s, then drops what is left. */
function closeHttpServer(server: Server): Promise<void> {
  return new Promise((done) => {
    const http = server as Server & { closeIdleConnections?: () => void; closeAllConnections?: () => void };
    const force = setTimeout(() => http.closeAllConnections?.(), 10_000);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      done();
    });
    http.closeIdleConnections?.();
  });
}
