/**
 * `booking-gateway credentials set|rotate` (src/gateway/cli/credentials.ts) on the data
 * directory's vault: the grant is sealed (no token on disk or in the output), readable back
 * with the keys, re-encrypted under a new first key by rotate, and a bad TOKEN_KEYS or a
 * missing flag is a clear error that never quotes a key.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCredentials } from "../../../src/gateway/cli/credentials.js";
import { FileSealedStore } from "../../../src/gateway/credentials/file-store.js";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";

const key = () => randomBytes(32).toString("base64");
const ACCESS = "ya29.access-token-that-must-not-leak";
const REFRESH = "1//refresh-token-that-must-not-leak";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-credentials-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(env: Record<string, string>) {
  const out: string[] = [];
  const errs: string[] = [];
  return {
    out,
    errs,
    io: {
      env: { GATEWAY_DATA_DIR: "data", ...env },
      out: (l: string) => out.push(l),
      err: (l: string) => errs.push(l),
      cwd: dir,
    },
  };
}

describe("booking-gateway credentials", () => {
  it("set seals the grant in the data dir; rotate re-encrypts it under the new first key", async () => {
    const k1 = `k1:${key()}`;
    await writeFile(
      join(dir, "grant.json"),
      JSON.stringify({
        provider: "google",
        accessToken: ACCESS,
        refreshToken: REFRESH,
        expiresAt: 1_900_000_000_000,
      }),
    );
    const set = io({ TOKEN_KEYS: k1 });
    expect(
      await runCredentials(["set", "--host", "alice-calendar", "--from-json", "grant.json"], set.io),
    ).toBe(0);
    const stored = await readFile(join(dir, "data", "credentials", "alice-calendar.json"), "utf8");
    for (const secret of [ACCESS, REFRESH]) {
      expect(stored).not.toContain(secret);
      expect([...set.out, ...set.errs].join("\n")).not.toContain(secret);
    }
    const ring = parseKeyRing(k1);
    if (!ring.ok) throw new Error(ring.error);
    const read = await new TokenVault(ring.value, new FileSealedStore(join(dir, "data"))).get(
      "alice-calendar",
    );
    expect(read).toMatchObject({ provider: "google", accessToken: ACCESS, refreshToken: REFRESH });

    const k2 = `k2:${key()}`;
    const rotate = io({ TOKEN_KEYS: `${k2},${k1}` });
    expect(await runCredentials(["rotate"], rotate.io)).toBe(0);
    expect(rotate.out.join("\n")).toMatch(/1 record\(s\) re-encrypted/);
    const onlyNew = parseKeyRing(k2);
    if (!onlyNew.ok) throw new Error(onlyNew.error);
    const again = await new TokenVault(onlyNew.value, new FileSealedStore(join(dir, "data"))).get(
      "alice-calendar",
    );
    expect(again?.accessToken).toBe(ACCESS);
  });

  it("refuses a bad TOKEN_KEYS without quoting it, and a set without its flags", async () => {
    const short = Buffer.from("too short").toString("base64");
    const bad = io({ TOKEN_KEYS: `k1:${short}` });
    expect(await runCredentials(["rotate"], bad.io)).not.toBe(0);
    expect(bad.errs.join("\n")).toContain("TOKEN_KEYS");
    expect(bad.errs.join("\n")).not.toContain(short);
    const noHost = io({ TOKEN_KEYS: `k1:${key()}` });
    expect(await runCredentials(["set", "--from-json", "grant.json"], noHost.io)).toBe(2);
    expect(noHost.errs.join("\n")).toContain("--host");
    const unset = io({});
    expect(await runCredentials(["rotate"], unset.io)).not.toBe(0);
    expect(unset.errs.join("\n")).toContain("TOKEN_KEYS");
  });
});
