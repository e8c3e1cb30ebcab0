/** Process entry point for `booking-gateway`. */
import { runCli } from "./cli.js";

const result = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});

if (typeof result === "number") {
  process.exitCode = result;
} else {
  const stop = (): void => {
    result.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
