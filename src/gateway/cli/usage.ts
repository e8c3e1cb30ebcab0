/**
 * The usage texts of `booking-gateway` and of each command: `booking-gateway --help` lists the
 * commands, `booking-gateway <command> --help` (or `-h`, or `help <command>`) prints the one.
 */

/** Environment every command that opens the gateway's stores reads (serve's own, below). */
const STORES_ENV = `  GATEWAY_DATA_DIR  the data dir serve uses (default ./.gateway, against the working directory)
  REDIS_URL, REDIS_CLUSTER_NODES, REDIS_KEY_PREFIX
                    the Redis serve uses, when it uses one (see booking-gateway serve --help)`;

export const SERVE_USAGE = `Usage: booking-gateway serve [--config FILE]

Serve the SchCP operator, discovery and host endpoints over HTTP, the operator API and the
console; without --config, the embedded default hosts. FILE is a hosts config: .json (strict)
or .jsonc (comments and trailing commas allowed; see examples/config/).

Options:
  --config FILE     the hosts config file
  -h, --help        show this text

Environment:
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
                    (default ./.gateway); relative paths in a config (accessTokenFile,
                    an ics-dir path) are read from it
  OPERATOR_TOKEN    the operator API credential (default: generated once, kept in the data dir)
  TOKEN_KEYS        the OAuth token vault's keys, "kid:base64key,..." (32-byte keys, newest
                    first: it encrypts, all decrypt); records live in Redis with REDIS_URL, else
                    in <data dir>/credentials/
  OPERATOR_TOKEN_FILE, TOKEN_KEYS_FILE, REDIS_URL_FILE
                    read that variable from a file (container secrets)
  LOG_FORMAT        "json": the start banner as JSON log records too (default "text")
  NODE_ENV          "production" stops validating every response against its schema
  SMTP_HOST, SMTP_PORT, SMTP_SECURE, SMTP_USER, SMTP_PASSWORD, SMTP_FROM
                    mail calendar hosts' approval links through this relay
  TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM
                    or text them through Twilio (without either: printed and kept in
                    <data dir>/host-messages.jsonl)
`;

export const MCP_USAGE = `Usage: booking-gateway mcp --host ID [--config FILE]

Serve one host's OSBP v0.1.0 tools as an MCP server on stdin and stdout, for an agent that
launches local MCP servers; without --config, the embedded default hosts and the OSBP
conformance host. Logs go to stderr; it exits when the client closes stdin. serve's start
banner prints this command with absolute paths and the environment that shares its state.

Options:
  --host ID         the one host this server books for (required)
  --config FILE     the hosts config file, as for serve
  -h, --help        show this text

Environment:
${STORES_ENV}
  REDIS_URL_FILE    read REDIS_URL from a file, as for serve
  PUBLIC_ORIGIN     as for serve
  OSBP_AUDIT_LOG_PATH    the JSONL audit log (default .osbp/audit/events.jsonl)
  OSBP_IDEMPOTENCY_PATH  the booking.create idempotency file (default
                         <data dir>/osbp/idempotency.json); one process at a time per file
  SYNTHETIC_MESSAGE_LOG  append every message a synthetic platform sends (verification codes)
                         to this file, one JSON line each: the test customer's phone
  With REDIS_URL, idempotency lives in Redis and the hosts' holds, bookings and synthetic
  platform are serve's own; without it they are kept in <data dir>/embedded-state, one
  process at a time.
`;

export const UPSTREAMS_USAGE = `Usage: booking-gateway upstreams [--config FILE]

Each host's upstream (vendor, pinned API version, health) and every Deprecation/Sunset notice
its platform sent. Reads the catalogs once; with REDIS_URL, also what serve processes recorded.

Options:
  --config FILE     the hosts config file, as for serve (default: the embedded hosts)
  -h, --help        show this text

Environment:
${STORES_ENV}
`;

export const CREDENTIALS_SET_USAGE = `Usage: booking-gateway credentials set --host ID --from-json FILE

Seal a host's OAuth grant into the token vault, for hosts with credentials: "vault". FILE
holds {provider, accessToken, refreshToken?, expiresAt?, scope?, tokenEndpoint?}; nothing
printed carries a token, and FILE may be deleted afterwards.

Options:
  --host ID         the host the grant is for
  --from-json FILE  the grant
  -h, --help        show this text

Environment:
  TOKEN_KEYS        the vault's keys, as for serve (required)
${STORES_ENV}
`;

export const CREDENTIALS_ROTATE_USAGE = `Usage: booking-gateway credentials rotate

Re-encrypt every token vault record under the first key of TOKEN_KEYS.

Options:
  -h, --help        show this text

Environment:
  TOKEN_KEYS        the vault's keys, as for serve (required)
${STORES_ENV}
`;

export const CREDENTIALS_USAGE = `Usage: booking-gateway credentials <set|rotate> [options]

  credentials set --host ID --from-json FILE
                    seal a host's OAuth grant into the token vault
  credentials rotate
                    re-encrypt every vault record under TOKEN_KEYS' first key

booking-gateway credentials <set|rotate> --help shows each one's options.
`;

export const A2A_KEY_USAGE = `Usage: booking-gateway a2a-key --host ID [--config FILE]

Issue the host's A2A organization API key (X-Org-Api-Key, for cancel and reschedule) and print
it once; the previous key stops working. Kept hashed in Redis with REDIS_URL, else in the data
dir.

Options:
  --host ID         a host of the config (or of the embedded default)
  --config FILE     the hosts config file, as for serve
  -h, --help        show this text

Environment:
${STORES_ENV}
`;

export const HELP_USAGE = `Usage: booking-gateway help [COMMAND]

Show the list of commands, or one command's usage.
`;

export const USAGE = `Usage: booking-gateway <command> [options]

Commands:
  serve [--config FILE]   serve the SchCP operator, discovery and host endpoints over HTTP,
                          the operator API and the console; without --config, the embedded
                          default hosts
  mcp --host ID [--config FILE]
                          serve one host's OSBP v0.1.0 tools as an MCP server on stdin and
                          stdout, for an agent that launches local MCP servers
  upstreams [--config FILE]
                          each host's upstream (vendor, pinned API version, health) and every
                          Deprecation/Sunset notice its platform sent
  credentials set --host ID --from-json FILE
                          seal a host's OAuth grant into the token vault
  credentials rotate      re-encrypt every vault record under TOKEN_KEYS' first key
  a2a-key --host ID [--config FILE]
                          issue the host's A2A organization API key and print it once
  help [COMMAND]          show this text, or a command's

Run booking-gateway <command> --help (or -h) for a command's options and environment.
`;

/** `--help` or `-h` among a command's arguments (before a `--` that ends the options). */
export function asksForHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}
