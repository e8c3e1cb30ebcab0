/**
 * examples/config/google.jsonc served without its token file (docs/connectors.md):
 * the host's health is needs_reconnection, and its last error names the file's absolute path
 * (its `accessTokenFile`, read relative to the data dir) instead of "the credential provider
 * failed" alone. `serve` in process over loopback HTTP; no request leaves the machine (the
 * credential fails before the calendar is called).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningServer } from "../../../src/gateway/cli/cli.js";

const EXAMPLE = join(import.meta.dirname, "../../../examples/config/google.jsonc");
const TOKEN = "operator-token-for-the-test-0123456789";
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-token-health-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface HostView {
  host_id: string;
  health: string;
  last_error?: { code: string; message: string };
}

it("a token file that cannot be read makes the host need reconnection, naming the file", async () => {
  const err: string[] = [];
  const result = await runCli(["serve", "--config", EXAMPLE], {
    // A relative data dir, as a user's first run has it (./.gateway): the message names it absolute.
    env: { PORT: "0", GATEWAY_DATA_DIR: "data", OPERATOR_TOKEN: TOKEN },
    out: () => undefined,
    err: (l) => err.push(l),
    cwd: dir,
  });
  if (typeof result === "number") throw new Error(`serve exited ${result}: ${err.join("\n")}`);
  const server = result as RunningServer;
  try {
    const host = async (): Promise<HostView | undefined> => {
      const res = await fetch(`${server.url}/operator/v0/hosts`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const body = (await res.json()) as { hosts: HostView[] };
      return body.hosts.find((h) => h.host_id === "studio-norte");
    };
    // The calendar's first sync, at start, is what reads the token.
    await expect.poll(async () => (await host())?.health, { timeout: 15_000 }).toBe("needs_reconnection");
    const seen = await host();
    const file = join(dir, "data", "tokens", "studio-norte.token");
    expect(seen?.last_error?.code).toBe("unauthorized");
    expect(seen?.last_error?.message).toContain(`cannot read ${file} (ENOENT)`);
    expect(seen?.last_error?.message).toContain("/hosts/0/connector/settings/accessTokenFile");
    expect(seen?.last_error?.message).toContain(
      `accessTokenFile is read relative to the data dir, GATEWAY_DATA_DIR: ${join(dir, "data")}`,
    );
    // The log says it loudly once, with the same words.
    const logged = err.filter((l) => l.includes("HOST NEEDS RECONNECTION: studio-norte"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(file);
  } finally {
    await server.close();
  }
});
