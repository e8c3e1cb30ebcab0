/**
 * `booking-gateway` command line. The edge for operators: parses arguments and the
 * environment, then starts the requested job. Nothing below this layer reads
 * process.env.
 */
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { createHttpApp } from "../http/app.js";

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const USAGE = `Usage: booking-gateway <command> [options]

Commands:
  serve [--config FILE]   serve the SchCP operator and host endpoints over HTTP
                          (PORT, default 8787; PUBLIC_ORIGIN, default http://127.0.0.1:<PORT>)
  help                    show this text
`;

export interface RunningServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number | RunningServer> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return startServe(rest, io);
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

async function startServe(args: readonly string[], io: CliIo): Promise<number | RunningServer> {
  let values: { config?: string | undefined };
  try {
    ({ values } = parseArgs({ args: [...args], options: { config: { type: "string" } }, strict: true }));
  } catch (e) {
    io.err(`booking-gateway serve: ${(e as Error).message}`);
    return 2;
  }
  if (values.config !== undefined) {
    io.err("booking-gateway serve: --config is not supported yet; the embedded default is served");
    return 2;
  }
  const port = parsePort(io.env["PORT"]);
  if (port === undefined) {
    io.err(`booking-gateway serve: PORT must be an integer 0-65535, got "${io.env["PORT"]}"`);
    return 2;
  }
  const publicOrigin = io.env["PUBLIC_ORIGIN"] ?? `http://127.0.0.1:${port}`;
  try {
    new URL(publicOrigin);
  } catch {
    io.err(`booking-gateway serve: PUBLIC_ORIGIN is not a URL: "${publicOrigin}"`);
    return 2;
  }
  const app = createHttpApp({ publicOrigin, operatorName: "Booking Gateway (embedded default)", hosts: [] });
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
      const url = `http://127.0.0.1:${info.port}`;
      io.out(`booking-gateway: serving on ${url} (public origin ${publicOrigin})`);
      io.out(`booking-gateway: operator discovery at ${publicOrigin}/.well-known/scheduling.json`);
      resolve({
        url,
        close: () => new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done()))),
      });
    });
  });
}

function parsePort(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return 8787;
  if (!/^[0-9]{1,5}$/.test(raw)) return undefined;
  const port = Number(raw);
  return port <= 65535 ? port : undefined;
}
