/**
 * The `mcp` command serve's start banner gives an MCP client: the command that, started by
 * the client from any working directory, runs on this serve's state. Every path is absolute
 * (node, bin/booking-gateway.js, --config, the data dir, the OSBP files), since a client starts
 * its servers wherever it likes and a relative GATEWAY_DATA_DIR would make a new data dir
 * there (another operator credential, other host keys). The Redis serve runs on (REDIS_URL or
 * REDIS_URL_FILE, REDIS_CLUSTER_NODES, REDIS_KEY_PREFIX) is passed on as serve read it, so both
 * book the same holds, bookings and synthetic platform; a password in REDIS_URL is never
 * printed: it is shown as *** and named as a secret to fill in (or REDIS_URL_FILE, a path, is
 * passed instead when serve read it from one).
 */
import { isAbsolute, join, resolve } from "node:path";
import { AUDIT_LOG_PATH_ENV } from "../../edges/osbp/audit/port.js";
import { IDEMPOTENCY_PATH_ENV } from "../../edges/osbp/idempotency/file.js";
import { SYNTHETIC_MESSAGE_LOG_ENV } from "../../connectors/synthetic/index.js";
import { redact } from "../../redis/client.js";

export interface McpCommand {
  /** The node binary (absolute). */
  readonly command: string;
  /** bin/booking-gateway.js (absolute), `mcp`, `--host`, the host, and an absolute --config. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Variables in `env` shown without their secret (`***`): the client must be given the real value. */
  readonly secrets: readonly string[];
}

export interface McpCommandInput {
  readonly hostId: string;
  /** Absolute; undefined: the embedded default. */
  readonly configPath?: string;
  /** serve's environment as given (before X_FILE variables are read into X). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** serve's working directory, against which its relative paths were read. */
  readonly cwd: string;
  /** serve's data dir (absolute). */
  readonly dataDir: string;
  readonly node: string;
  readonly bin: string;
}

const set = (v: string | undefined): v is string => v !== undefined && v !== "";

/** Passed on as serve has them: they name what serve shares, and hold no secret. */
const AS_IS = ["REDIS_CLUSTER_NODES", "REDIS_KEY_PREFIX", "PUBLIC_ORIGIN", "UPSTREAM_ALLOW_PRIVATE"] as const;

/** mcp's own file settings, made absolute when serve's environment has them. */
const MCP_PATHS = [AUDIT_LOG_PATH_ENV, IDEMPOTENCY_PATH_ENV, SYNTHETIC_MESSAGE_LOG_ENV] as const;

export function mcpCommandFor(input: McpCommandInput): McpCommand {
  const { env, cwd } = input;
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  const out: Record<string, string> = { GATEWAY_DATA_DIR: input.dataDir };
  const secrets: string[] = [];
  // The audit log defaults to .osbp/ under the working directory: keep it in the data dir.
  out[AUDIT_LOG_PATH_ENV] = join(input.dataDir, "osbp", "audit", "events.jsonl");
  for (const name of MCP_PATHS) {
    const value = env[name];
    if (set(value)) out[name] = absolute(value);
  }
  const urlFile = env["REDIS_URL_FILE"];
  const url = env["REDIS_URL"];
  if (set(urlFile)) out["REDIS_URL_FILE"] = absolute(urlFile);
  else if (set(url)) {
    const shown = redact(url);
    out["REDIS_URL"] = shown;
    if (shown !== url) secrets.push("REDIS_URL");
  }
  for (const name of AS_IS) {
    const value = env[name];
    if (set(value)) out[name] = value;
  }
  return {
    command: input.node,
    args: [
      input.bin,
      "mcp",
      "--host",
      input.hostId,
      ...(input.configPath === undefined ? [] : ["--config", input.configPath]),
    ],
    env: out,
    secrets,
  };
}

/** A word as a POSIX shell reads it back: as is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The banner's lines for an MCP client (docs/mcp.md "MCP client"). */
export function mcpBannerLines(c: McpCommand, shared: { readonly redis: boolean }): string[] {
  const entry = { "booking-gateway": { command: c.command, args: c.args, env: c.env } };
  const shell = [
    ...Object.entries(c.env).map(([k, v]) => `${k}=${shellWord(v)}`),
    ...[c.command, ...c.args].map(shellWord),
  ].join(" ");
  return [
    `  3. an MCP client (docs/mcp.md "MCP client"): add this server to its mcpServers; it runs on this serve's data dir${shared.redis ? " and Redis" : ""} from any working directory:`,
    `     ${JSON.stringify(entry)}`,
    `     in a shell: ${shell}`,
    ...c.secrets.map(
      (name) =>
        `     ${name} is shown without its password (***), a secret this banner does not print: put the real value there, or set ${name}_FILE to a file holding it`,
    ),
    shared.redis
      ? "     it books on the same holds, bookings and synthetic platform as this serve"
      : "     it shares the host keys and data dir; without REDIS_URL its holds and bookings are its own (in <data dir>/embedded-state), not this serve's: give both REDIS_URL to book one calendar",
  ];
}
