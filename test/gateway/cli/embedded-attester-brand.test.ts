/**
 * `booking-gateway serve` without --config (the embedded default), over real HTTP: the try-it
 * attester (SchCP §7.5) whose key the data dir holds, trusted by every embedded host, and the
 * embedded brand of two locations that list each other (§2.4). A --config start gets no attester.
 */
import { readFile, stat, mkdtemp, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Attester, KeyApp, SchcpClient, agentKeyFromJwk, createAgentKey } from "../../../src/agent/index.js";
import { EMBEDDED_DEFAULT_CONFIG } from "../../../src/booking/hosts/index.js";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningServer } from "../../../src/gateway/cli/cli.js";
import { checkAttestation } from "../../../src/protocol/schcp/attestation/index.js";
import { parseEd25519PublicJwk } from "../../../src/protocol/jose/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-attester-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function serve(args: string[]) {
  const out: string[] = [];
  const io = {
    env: { GATEWAY_DATA_DIR: join(dir, "data"), PORT: "0" },
    out: (l: string) => out.push(l),
    err: () => undefined,
    cwd: dir,
  };
  const result = await runCli(["serve", ...args], io);
  if (typeof result !== "object") throw new Error(`serve ended with ${String(result)}: ${out.join("\n")}`);
  return { server: result as RunningServer, out };
}

describe("the embedded default's try-it attester (§7.5)", () => {
  it("is generated on first start into <data dir>/try-it-attester.jwk (0600), listed in every embedded host's trust.attesters, and its attestations are honoured", async () => {
    const { server, out } = await serve([]);
    try {
      const path = join(dir, "data", "try-it-attester.jwk");
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(out.join("\n")).toContain(`its signing key in ${path}`);
      const key = agentKeyFromJwk(JSON.parse(await readFile(path, "utf8")));
      if (!key.ok) throw new Error(key.error.message);

      const client = new SchcpClient({ agentKey: createAgentKey() });
      const op = await client.discoverOperator(server.publicOrigin);
      if (!op.ok) throw new Error(op.error.message);
      for (const listed of op.value.document.hosts) {
        const host = await client.discoverHost(listed.discovery);
        if (!host.ok) throw new Error(host.error.message);
        expect(host.value.document.trust?.attesters).toEqual([
          { id: "try-it-attester", name: "Try-it attester (embedded default)", keys: [key.value.publicJwk] },
        ]);
        expect(host.value.document.capabilities).toContain("attestations");
      }

      // As docs/schcp.md says: sign with the SDK's Attester over the file's key; the host honours it.
      const attester = new Attester({ id: "try-it-attester", key: key.value });
      const principal = new KeyApp({ principalKey: createAgentKey() }).principal;
      const att = await attester.attest({ principal, assurance: "try_it" });
      const maple = await client.discoverHost(
        `${server.publicOrigin}/hosts/maple-street-auto/scheduling.json`,
      );
      if (!maple.ok) throw new Error(maple.error.message);
      const trusted = (maple.value.document.trust?.attesters ?? []).map((a) => ({
        id: a.id,
        keys: a.keys.map((k) => {
          const p = parseEd25519PublicJwk(k, "");
          if (!p.ok) throw new Error(p.error.message);
          return p.value;
        }),
      }));
      expect(
        await checkAttestation(att, { principal, trusted, nowSec: Math.floor(Date.now() / 1000) }),
      ).toMatchObject({
        honoured: true,
        attester: "try-it-attester",
      });
    } finally {
      await server.close();
    }
    // A second start keeps the same key.
    const before = await readFile(join(dir, "data", "try-it-attester.jwk"), "utf8");
    const again = await serve([]);
    await again.server.close();
    expect(await readFile(join(dir, "data", "try-it-attester.jwk"), "utf8")).toBe(before);
  });

  it("a --config start trusts no attester and makes no key file", async () => {
    await writeFile(join(dir, "hosts.json"), JSON.stringify({ hosts: [EMBEDDED_DEFAULT_CONFIG.hosts[0]] }));
    const { server } = await serve(["--config", "hosts.json"]);
    try {
      const res = await fetch(`${server.publicOrigin}/hosts/maple-street-auto/scheduling.json`);
      const doc = (await res.json()) as { trust?: unknown; capabilities: string[] };
      expect(doc.trust).toBeUndefined();
      expect(doc.capabilities).not.toContain("attestations");
      expect(existsSync(join(dir, "data", "try-it-attester.jwk"))).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe("the embedded default's brand (§2.4)", () => {
  it("maple-street-auto and maple-street-auto-east list each other at the public origin's URLs: both verified", async () => {
    const { server } = await serve([]);
    try {
      const client = new SchcpClient({ agentKey: createAgentKey() });
      const r = await client.verifyBrand(`${server.publicOrigin}/hosts/maple-street-auto/scheduling.json`);
      if (!r.ok) throw new Error(r.error.message);
      expect(r.value.brand.id).toBe("maple-street-group");
      expect(r.value.siblings).toEqual([
        expect.objectContaining({
          hostId: "maple-street-auto-east",
          discovery: `${server.publicOrigin}/hosts/maple-street-auto-east/scheduling.json`,
          verified: true,
        }),
      ]);
      const back = await client.verifyBrand(
        `${server.publicOrigin}/hosts/maple-street-auto-east/scheduling.json`,
      );
      expect(back.ok && back.value.siblings).toEqual([
        expect.objectContaining({ hostId: "maple-street-auto", verified: true }),
      ]);
    } finally {
      await server.close();
    }
  });
});
