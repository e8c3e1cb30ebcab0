/**
 * A start that fails part way closes what it had started (src/gateway/runtime/started.ts):
 * here Connect, the last feature wired, refuses a plain-http public origin that is not
 * loopback, after the stores, hosts, outbox, workers and console are up. The memory state
 * directory is taken by one process at a time (memory-state-file.ts), so a second start on
 * it succeeding shows the first let go of everything.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { embeddedDefaultHosts } from "../../../src/booking/hosts/index.js";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { createGatewayRuntime, type GatewayRuntimeOptions } from "../../../src/gateway/runtime/runtime.js";
import type { Logger } from "../../../src/protocol/logger.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-failed-start-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

it("closes what a failed start had started, so the next start can take the same state", async () => {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const base: GatewayRuntimeOptions = {
    hosts: embeddedDefaultHosts(),
    publicOrigin: "http://gateway.example",
    dataDir: join(dir, "data"),
    memoryStateDir: join(dir, "state"),
    logger: quiet,
    managedHostsReconcileMs: 60_000,
    credentials: {
      vault: new TokenVault(ring.value, new MemorySealedStore()),
      env: { GOOGLE_CLIENT_ID: "client", GOOGLE_CLIENT_SECRET: "secret" },
    },
  };
  await expect(
    createGatewayRuntime({
      ...base,
      connect: { google: { clientIdEnv: "GOOGLE_CLIENT_ID", clientSecretEnv: "GOOGLE_CLIENT_SECRET" } },
    }),
  ).rejects.toMatchObject({ name: "ConnectConfigError" });

  const gateway = await createGatewayRuntime(base);
  try {
    expect(gateway.hosts.list().length).toBe(embeddedDefaultHosts().length);
  } finally {
    await gateway.close();
  }
});
