/**
 * A real CalDAV server for the CalDAV connector's tests: xandikos (Debian package `xandikos`,
 * or `pip install xandikos`), one per test file, on a free loopback port with its own temporary
 * data directory, stopped and removed afterwards. Started as
 *
 *   xandikos --defaults -d <tmpdir> -l 127.0.0.1 -p <port>
 *
 * (--defaults creates the principal /user/ with the calendar /user/calendars/calendar/).
 * xandikos has no authentication of its own. When it is not installed the tests FAIL with a
 * message saying how to install it: CI installs it, and a skipped suite would look like a pass.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Xandikos {
  /** "http://127.0.0.1:<port>/" */
  readonly serverUrl: string;
  /** The calendar --defaults made: "/user/calendars/calendar/". */
  readonly defaultCalendar: string;
  /** A new, empty calendar collection (MKCALENDAR), for a test of its own; answers its path. */
  makeCalendar(name: string): Promise<string>;
  stop(): Promise<void>;
}

const BINARY = "xandikos";
const READY_TIMEOUT_MS = 60_000;
/** For the test file's beforeAll: longer than the wait for the server to answer. */
export const XANDIKOS_START_TIMEOUT_MS = READY_TIMEOUT_MS + 15_000;

export const XANDIKOS_MISSING =
  "xandikos is not installed: the CalDAV connector tests run against a real CalDAV server. " +
  "Install it with `sudo apt-get install xandikos` (Debian/Ubuntu) or `pip install xandikos`.";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startXandikos(): Promise<Xandikos> {
  const probe = spawnSync(BINARY, ["--version"], { encoding: "utf8" });
  if (probe.error !== undefined) throw new Error(XANDIKOS_MISSING);

  const dir = mkdtempSync(join(tmpdir(), "xandikos-"));
  const port = await freePort();
  const child = spawn(BINARY, ["--defaults", "-d", dir, "-l", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const serverUrl = `http://127.0.0.1:${port}/`;
  const defaultCalendar = "/user/calendars/calendar/";

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const killed = await Promise.race([exited(child).then(() => true), sleep(10_000).then(() => false)]);
      if (!killed) {
        child.kill("SIGKILL");
        await exited(child);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`xandikos exited (${child.exitCode}) before answering:\n${output}`);
    }
    try {
      const answer = await fetch(new URL(defaultCalendar, serverUrl), {
        method: "PROPFIND",
        headers: { depth: "0" },
      });
      await answer.arrayBuffer();
      if (answer.status === 207) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`xandikos did not answer on ${serverUrl} within ${READY_TIMEOUT_MS} ms:\n${output}`);
    }
    await sleep(100);
  }

  return {
    serverUrl,
    defaultCalendar,
    async makeCalendar(name) {
      const path = `/user/calendars/${encodeURIComponent(name)}/`;
      const answer = await fetch(new URL(path, serverUrl), { method: "MKCALENDAR" });
      await answer.arrayBuffer();
      if (answer.status !== 201) throw new Error(`MKCALENDAR ${path} answered ${answer.status}`);
      return path;
    },
    stop,
  };
}
