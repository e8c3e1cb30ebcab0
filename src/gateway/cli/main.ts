/**
 * Process entry point for `booking-gateway`. The one place that reads process.env and
 * installs signal handlers: SIGINT or SIGTERM closes gracefully (no new connections,
 * in-flight requests finish, workers stop, queues drain, stores close); a second signal
 * exits at once. `mcp` also ends by itself when its client closes stdin.
 */
import { runCli } from "./cli.js";

const result = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});

/** Exits once stdout has flushed: the last MCP response must reach the client. */
const exit = (code: number): void => {
  process.stdout.write("", () => process.exit(code));
};

if (typeof result === "number") {
  process.exitCode = result;
} else {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      process.stderr.write(`booking-gateway: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`booking-gateway: ${signal}, shutting down\n`);
    result.close().then(
      () => exit(0),
      (e: unknown) => {
        process.stderr.write(
          `booking-gateway: shutdown failed: ${e instanceof Error ? e.message : String(e)}\n`,
        );
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if ("done" in result) {
    // The MCP client went away (stdin closed) and the stores are closed.
    void result.done.then(() => {
      if (stopping) return;
      stopping = true;
      exit(0);
    });
  }
}
