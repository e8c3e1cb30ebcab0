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
import {
  A2A_KEY_USAGE,
  asksForHelp,
  CREDENTIALS_ROTATE_USAGE,
  CREDENTIALS_SET_USAGE,
  CREDENTIALS_USAGE,
  HELP_USAGE,
  MCP_USAGE,
  SERVE_USAGE,
  UPSTREAMS_USAGE,
  USAGE,
} from "./usage.js";

export type { RunningMcp } from "./mcp.js";
export type { RunningServer } from "./serve.js";
export type { CliIo } from "./io.js";

/** A command: its usage text (`--help`) and what runs it. */
interface Command {
  readonly usage: string;
  /** A command made of subcommands: each one's usage, for `<command> <sub> --help`. */
  readonly subcommands?: Readonly<Record<string, string>>;
  run(args: readonly string[], io: CliIo): number | Promise<number | RunningServer | RunningMcp>;
}

/** Every command; `--help` and `-h` are answered here for all of them, before any runs. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  serve: {
    usage: SERVE_USAGE,
    run: (args, io) => {
      let values: { config?: string | undefined };
      try {
        ({ values } = parseArgs({ args: [...args], options: { config: { type: "string" } }, strict: true }));
      } catch (e) {
        return usageError(io, "serve", (e as Error).message);
      }
      return startServe(values.config, io);
    },
  },
  mcp: {
    usage: MCP_USAGE,
    run: (args, io) => {
      let values: { host?: string | undefined; config?: string | undefined };
      try {
        ({ values } = parseArgs({
          args: [...args],
          options: { host: { type: "string" }, config: { type: "string" } },
          strict: true,
        }));
      } catch (e) {
        return usageError(io, "mcp", (e as Error).message);
      }
      if (values.host === undefined || values.host === "")
        return usageError(io, "mcp", "--host ID is required (the one host this server books for)");
      return startMcp(
        { host: values.host, ...(values.config !== undefined && { configPath: values.config }) },
        io,
      );
    },
  },
  upstreams: {
    usage: UPSTREAMS_USAGE,
    run: (args, io) => {
      let values: { config?: string | undefined };
      try {
        ({ values } = parseArgs({ args: [...args], options: { config: { type: "string" } }, strict: true }));
      } catch (e) {
        return usageError(io, "upstreams", (e as Error).message);
      }
      return runUpstreams(values.config, io);
    },
  },
  credentials: {
    usage: CREDENTIALS_USAGE,
    subcommands: { set: CREDENTIALS_SET_USAGE, rotate: CREDENTIALS_ROTATE_USAGE },
    run: runCredentials,
  },
  "a2a-key": { usage: A2A_KEY_USAGE, run: runA2aKey },
  help: {
    usage: HELP_USAGE,
    run: (args, io) => {
      const [name, sub] = args;
      const text = name === undefined ? USAGE : usageOf(name, sub);
      if (text === undefined) return unknownCommand(io, name ?? "");
      io.out(text);
      return 0;
    },
  },
};

const has = (name: string): boolean => Object.prototype.hasOwnProperty.call(COMMANDS, name);

/** A command's usage, or its subcommand's when it has that one. */
function usageOf(name: string, sub: string | undefined): string | undefined {
  if (!has(name)) return undefined;
  const command = COMMANDS[name];
  const subUsage =
    sub !== undefined && command?.subcommands !== undefined && Object.hasOwn(command.subcommands, sub)
      ? command.subcommands[sub]
      : undefined;
  return subUsage ?? command?.usage;
}

/** A wrong option: the error, then the command's usage, on stderr; exit 2. */
function usageError(io: CliIo, name: string, message: string): number {
  io.err(`booking-gateway ${name}: ${message}\n\n${usageOf(name, undefined) ?? USAGE}`);
  return 2;
}

function unknownCommand(io: CliIo, name: string): number {
  io.err(`booking-gateway: unknown command "${name}"\n\n${USAGE}`);
  return 2;
}

export async function runCli(
  argv: readonly string[],
  io: CliIo,
): Promise<number | RunningServer | RunningMcp> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    io.out(USAGE);
    return 0;
  }
  const command = has(name) ? COMMANDS[name] : undefined;
  if (command === undefined) return unknownCommand(io, name);
  if (asksForHelp(rest)) {
    io.out(usageOf(name, rest[0]) ?? command.usage);
    return 0;
  }
  return command.run(rest, io);
}
