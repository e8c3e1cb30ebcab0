/**
 * `booking-gateway` command line. The edge for operators: parses arguments and the
 * environment, then starts the requested job. Nothing below this layer reads process.env.
 */
import { parseArgs } from "node:util";
import type { CliIo } from "./io.js";
import { startMcp } from "./mcp.js";
import type { RunningMcp } from "./mcp.js";
import { startServe } from "./serve.js";
import { runUpstreams } from "./upstreams.js";
import { runCredentials } from "./credentials.js";
import { runA2aKey } from "./a2a-key.js";
import type { RunningServer } from "./serve.js";

export type { RunningMcp } from "./mcp.js";
export type { RunningServer } from "./serve.js";
export type { CliIo } from "./io.js";

const USAGE = `Usage: booking-gateway <command> [options]

Commands:
  serve [--config FILE]   serve the SchCP operator, discovery and host endpoints over HTTP,
                          and the operator API; without --config, the embedded default hosts
  mcp --host ID [--config FILE]
                          serve one host's OSBP v0.1.0 tools as an MCP server on stdin and
                          stdout, for an agent that launches local MCP servers; without
                          --config, the embedded default hosts and the OSBP conformance host.
                          Logs go to stderr; it exits when the client closes stdin
  upstreams [--config FILE]
                          each host's upstream (vendor, pinned API version, health) and every
                          Deprecation/Sunset notice its platform sent (read the catalogs once;
                          with REDIS_URL, also what serve processes recorded)
  credentials set --host ID --from-json FILE
                          seal a host's OAuth grant ({provider, accessToken, refreshToken,
                          expiresAt, scope, tokenEndpoint}) into the token vault, for hosts
                          with credentials: "vault" (needs TOKEN_KEYS)
  credentials rotate      re-encrypt every vault record under TOKEN_KEYS' first key
  a2a-key --host ID [--config FILE]
                          issue the host's A2A organization API key (X-Org-Api-Key, for
                          cancel and reschedule) and print it once; the previous key stops
                          working (Redis with REDIS_URL, else the data dir)
  help                    show this text

Environment (serve):
  PORT              port to listen on (default 8787; 0 picks a free one)
  HOST              address to listen on (default 127.0.0.1)
  PUBLIC_ORIGIN     the origin agents address, e.g. https://gateway.example
                    (default http://127.0.0.1:<port>); request signatures are checked
                    against it, never against the Host header (SchCP §3.2)
  REDIS_URL         use Redis for holds, nonces, idempotency and rate limits, and BullMQ for
                    webhooks, so several gateway processes can serve the same hosts;
                    redis://[user:pass@]host:port (rediss:// for TLS) for one server, or
                    redis+cluster://[user:pass@]host:port,host:port,... for a Redis Cluster
                    (the nodes only seed: the client learns the rest from the cluster)
  REDIS_CLUSTER_NODES
                    a Redis Cluster's seed nodes, host:port,host:port,... (instead of a
                    redis+cluster:// REDIS_URL; both set must name the same nodes)
  REDIS_KEY_PREFIX  prefix of the gateway's Redis keys (default "schcp:")
  REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS
                    answer a confirm, cancel or reschedule only once that many replicas
                    have it (WAIT; default 0: do not wait; timeout 200 ms, then answered
                    and logged)
  REDIS_SLOT_MOVE_WAIT_MS
                    on a Redis Cluster, how long a request waits while its business's
                    slot moves to another master (redis-cli --cluster reshard) before
                    it fails with "try again" (default 5000)
  GATEWAY_DATA_DIR  where host signing keys and the operator credential are kept
                    (default ./.gateway)
  OPERATOR_TOKEN    the operator API credential (default: generated once, kept in the data dir)
  TOKEN_KEYS        the OAuth token vault's keys, "kid:base64key,..." (32-byte keys, newest
                    first: it encrypts, all decrypt); records live in Redis with REDIS_URL, else
                    in <data dir>/credentials/
  NODE_ENV          "production" stops validating every response against its schema
  SMTP_HOST, SMTP_PORT, SMTP_SECURE, SMTP_USER, SMTP_PASSWORD, SMTP_FROM
                    mail calendar hosts' approval links through this relay
  TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM
                    or text them through Twilio (without either: printed and kept in
                    <data dir>/host-messages.jsonl)

Environment (mcp):
  OSBP_AUDIT_LOG_PATH    the JSONL audit log (default .osbp/audit/events.jsonl)
  OSBP_IDEMPOTENCY_PATH  the booking.create idempotency file (default .osbp/idempotency.json);
                         one process at a time per file
  REDIS_URL              keep idempotency in Redis instead, and share serve's synthetic
                         platform (so both protocols book the same calendar); a Redis
                         Cluster as redis+cluster://host:port,... as for serve
  REDIS_CLUSTER_NODES    or the cluster's seed nodes, host:port,..., as for serve
  REDIS_KEY_PREFIX       prefix of the Redis keys, as for serve (default "schcp:")
  SYNTHETIC_MESSAGE_LOG  append every message a synthetic platform sends (verification codes)
                         to this file, one JSON line each: the test customer's phone
`;

export async function runCli(
  argv: readonly string[],
  io: CliIo,
): Promise<number | RunningServer | RunningMcp> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve": {
      let values: { config?: string | undefined };
      try {
        ({ values } = parseArgs({ args: [...rest], options: { config: { type: "string" } }, strict: true }));
      } catch (e) {
        io.err(`booking-gateway serve: ${(e as Error).message}`);
        return 2;
      }
      return startServe(values.config, io);
    }
    case "mcp": {
      let values: { host?: string | undefined; config?: string | undefined };
      try {
        ({ values } = parseArgs({
          args: [...rest],
          options: { host: { type: "string" }, config: { type: "string" } },
          strict: true,
        }));
      } catch (e) {
        io.err(`booking-gateway mcp: ${(e as Error).message}\n\n${USAGE}`);
        return 2;
      }
      if (values.host === undefined || values.host === "") {
        io.err(`booking-gateway mcp: --host ID is required (the one host this server books for)\n\n${USAGE}`);
        return 2;
      }
      return startMcp(
        { host: values.host, ...(values.config !== undefined && { configPath: values.config }) },
        io,
      );
    }
    case "upstreams": {
      let values: { config?: string | undefined };
      try {
        ({ values } = parseArgs({ args: [...rest], options: { config: { type: "string" } }, strict: true }));
      } catch (e) {
        io.err(`booking-gateway upstreams: ${(e as Error).message}`);
        return 2;
      }
      return runUpstreams(values.config, io);
    }
    case "credentials":
      return runCredentials(rest, io);
    case "a2a-key":
      return runA2aKey(rest, io);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.out(USAGE);
      return 0;
    default:
      io.err(`booking-gateway: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}
