/**
 * connectClient at start: a Redis that is not there yet (still starting, or a dropped first
 * connection) is retried within a bound; one that never comes is a RedisConnectError.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectClient, createClient, RedisConnectError } from "../../src/redis/connection.js";
import { freePort, launch, redisServerInstalled } from "../support/redis.js";
import type { ChildProcess } from "node:child_process";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

describe.skipIf(!redisServerInstalled())("connectClient", () => {
  it("keeps trying while the server starts, then connects", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const client = createClient({ url });
    const late = new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        launch(port, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
          .then((child) => {
            started.push(child);
            resolve();
          })
          .catch(reject);
      }, 400);
    });
    await connectClient(client, url, { withinMs: 8000 });
    await late;
    await expect(client.ping()).resolves.toBe("PONG");
    client.disconnect();
  });

  it("gives up after its bound with the URL (password hidden) and the number of attempts", async () => {
    const port = await freePort();
    const url = `redis://:secret@127.0.0.1:${port}`;
    const client = createClient({ url });
    const error = await connectClient(client, url, { withinMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisConnectError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^cannot connect to Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port} \\(\\d+ attempts?\\)$`,
      ),
    );
    expect((error as Error).message).not.toContain("secret");
    expect(client.status).toBe("end");
  });
});
