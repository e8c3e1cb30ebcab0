/**
 * `--help` and `-h` on every command (and subcommand) of `booking-gateway`, through runCli in
 * process: exit 0, that command's usage on stdout, nothing on stderr, nothing started or
 * written. The commands are read from the CLI's own table, so a new one is covered here.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, runCli } from "../../../src/gateway/cli/cli.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-help-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const result = await runCli(argv, {
    // A port that cannot be bound: were serve started, it would fail instead of printing usage.
    env: { PORT: "99999", GATEWAY_DATA_DIR: "data" },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    cwd: dir,
  });
  return { result, out: out.join("\n"), err: err.join("\n") };
}

/** Every command line that has a usage of its own: each command, and each subcommand. */
const LINES: Array<[string[], string]> = Object.entries(COMMANDS).flatMap(([name, c]) => [
  [[name], `Usage: booking-gateway ${name}`] as [string[], string],
  ...Object.keys(c.subcommands ?? {}).map(
    (sub) => [[name, sub], `Usage: booking-gateway ${name} ${sub}`] as [string[], string],
  ),
]);

describe("booking-gateway --help", () => {
  it("has the commands a user reads about in the README", () => {
    expect(Object.keys(COMMANDS).sort()).toEqual(
      ["a2a-key", "credentials", "help", "mcp", "serve", "upstreams"].sort(),
    );
    expect(LINES.map(([argv]) => argv.join(" "))).toContain("credentials set");
    expect(LINES.map(([argv]) => argv.join(" "))).toContain("credentials rotate");
  });

  it.each(
    LINES.flatMap(([argv, usage]) => ["--help", "-h"].map((flag) => [[...argv, flag], usage] as const)),
  )("%j exits 0 with its own usage", async (argv, usage) => {
    const { result, out, err } = await run([...argv]);
    expect(result).toBe(0);
    expect(out.startsWith(usage)).toBe(true);
    expect(err).toBe("");
  });

  it.each(LINES)("help %j prints the same usage as --help", async (argv, usage) => {
    const viaHelp = await run(["help", ...argv]);
    const viaFlag = await run([...argv, "--help"]);
    expect(viaHelp.result).toBe(0);
    expect(viaHelp.out.startsWith(usage)).toBe(true);
    expect(viaHelp.out).toBe(viaFlag.out);
  });

  it("answers --help even after other options, and starts nothing", async () => {
    const serve = await run(["serve", "--config", "nowhere.jsonc", "--help"]);
    expect(serve.result).toBe(0);
    expect(serve.out).toMatch(/^Usage: booking-gateway serve/);
    const mcp = await run(["mcp", "-h", "--host", "x"]);
    expect(mcp.result).toBe(0);
    expect(mcp.out).toMatch(/^Usage: booking-gateway mcp --host ID/);
    // Nothing ran: no data dir was made.
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([[["--help"]], [["-h"]], [["help"]], [[]]])(
    "%j lists every command and says how to get a command's help",
    async (argv) => {
      const { result, out } = await run(argv);
      expect(result).toBe(0);
      expect(out).toMatch(/^Usage: booking-gateway <command>/);
      for (const name of Object.keys(COMMANDS)) expect(out).toMatch(new RegExp(`^  ${name}\\b`, "m"));
      expect(out).toMatch(/booking-gateway <command> --help/);
    },
  );

  it("refuses an unknown option with exit 2 and that command's usage on stderr", async () => {
    const { result, out, err } = await run(["upstreams", "--bogus"]);
    expect(result).toBe(2);
    expect(out).toBe("");
    expect(err).toMatch(/booking-gateway upstreams: Unknown option '--bogus'/);
    expect(err).toMatch(/Usage: booking-gateway upstreams/);
    const unknown = await run(["help", "launch"]);
    expect(unknown.result).toBe(2);
    expect(unknown.err).toMatch(/unknown command "launch"/);
  });
});
