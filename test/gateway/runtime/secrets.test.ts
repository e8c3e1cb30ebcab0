/**
 * Host signing keys, the operator credential and the embedded default's token vault key,
 * persisted in the data directory (SchCP §2.1 keys).
 */
import { mkdtemp, readFile, rm, stat, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sign, verify } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ed25519PublicKeyFromJwk } from "../../../src/protocol/jose/index.js";
import { hostKeyPath, keyId, loadOrCreateHostKey } from "../../../src/gateway/runtime/host-keys.js";
import { loadOrCreateOperatorToken, operatorTokenPath } from "../../../src/gateway/runtime/operator-token.js";
import { loadOrCreateTokenKeys, tokenKeyPath } from "../../../src/gateway/runtime/token-key-file.js";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";

const OCT_2026 = Date.UTC(2026, 9, 13, 21, 0, 0);
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-secrets-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("host signing keys", () => {
  it("generates a key with kid <hostId>-<yyyy-mm>, stored 0600 in a 0700 directory", async () => {
    const { key, created } = await loadOrCreateHostKey(dir, "maple-street-auto", OCT_2026);
    expect(created).toBe(true);
    expect(key.kid).toBe("maple-street-auto-2026-10");
    expect(key.publicJwk).toEqual({ kty: "OKP", crv: "Ed25519", x: expect.any(String) as string });
    const path = hostKeyPath(dir, "maple-street-auto");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "keys"))).mode & 0o777).toBe(0o700);
    const file = JSON.parse(await readFile(path, "utf8")) as { jwk: { d?: string } };
    expect(typeof file.jwk.d).toBe("string");
  });

  it("reads the same key back after a restart: signatures made before still verify", async () => {
    const first = await loadOrCreateHostKey(dir, "h1", OCT_2026);
    const signature = sign(null, Buffer.from("offer"), first.key.privateKey);
    // A later month and a fresh process: same file, same kid, same key.
    const again = await loadOrCreateHostKey(dir, "h1", Date.UTC(2027, 0, 1));
    expect(again.created).toBe(false);
    expect(again.key.kid).toBe(first.key.kid);
    expect(again.key.publicJwk).toEqual(first.key.publicJwk);
    expect(verify(null, Buffer.from("offer"), ed25519PublicKeyFromJwk(again.key.publicJwk), signature)).toBe(
      true,
    );
  });

  it("gives every host its own key", async () => {
    const a = await loadOrCreateHostKey(dir, "a", OCT_2026);
    const b = await loadOrCreateHostKey(dir, "b", OCT_2026);
    expect(a.key.publicJwk.x).not.toBe(b.key.publicJwk.x);
    expect(b.key.kid).toBe("b-2026-10");
  });

  it("lets exactly one of many concurrent starters create the key; all read the same", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => loadOrCreateHostKey(dir, "race", OCT_2026)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.key.publicJwk.x)).size).toBe(1);
  });

  it("refuses to start on a damaged key file instead of silently replacing the key", async () => {
    await loadOrCreateHostKey(dir, "h1", OCT_2026);
    const path = hostKeyPath(dir, "h1");
    const file = JSON.parse(await readFile(path, "utf8")) as { jwk: { x: string } };
    for (const bad of [
      "{not json",
      JSON.stringify({ ...file, v: 2 }),
      JSON.stringify({ ...file, jwk: { ...file.jwk, d: undefined } }),
      JSON.stringify({ ...file, jwk: { ...file.jwk, x: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" } }),
    ]) {
      await writeFile(path, bad);
      await expect(loadOrCreateHostKey(dir, "h1", OCT_2026)).rejects.toThrow(/unusable/);
    }
  });

  it("tightens a key file that became readable by others", async () => {
    await loadOrCreateHostKey(dir, "h1", OCT_2026);
    const path = hostKeyPath(dir, "h1");
    await chmod(path, 0o644);
    await loadOrCreateHostKey(dir, "h1", OCT_2026);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("never turns a host id into a path", () => {
    for (const bad of ["../x", "a/b", ".hidden", "", "a\\b"]) expect(() => hostKeyPath(dir, bad)).toThrow();
    expect(keyId("x", Date.UTC(2026, 0, 31))).toBe("x-2026-01");
  });
});

describe("operator credential", () => {
  it("is generated once and kept", async () => {
    const a = await loadOrCreateOperatorToken(dir);
    const b = await loadOrCreateOperatorToken(dir);
    expect(a.created).toBe(true);
    expect(b.created).toBe(false);
    expect(b.token).toBe(a.token);
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(operatorTokenPath(dir))).mode & 0o777).toBe(0o600);
  });

  it("refuses an unusable stored token", async () => {
    await writeFile(operatorTokenPath(dir), "short\n", { mode: 0o600 });
    await expect(loadOrCreateOperatorToken(dir)).rejects.toThrow(/usable/);
  });
});

describe("the embedded default's token vault key", () => {
  it("is generated once in TOKEN_KEYS's own form, 0600, and kept across restarts", async () => {
    const first = await loadOrCreateTokenKeys(dir);
    expect(first.created).toBe(true);
    expect(first.path).toBe(tokenKeyPath(dir));
    expect(first.value).toMatch(/^local:[A-Za-z0-9+/]{43}=$/);
    expect((await stat(first.path)).mode & 0o777).toBe(0o600);
    // A key ring the vault takes as it is (TOKEN_KEYS_FILE may name this file).
    expect(parseKeyRing(first.value).ok).toBe(true);
    const again = await loadOrCreateTokenKeys(dir);
    expect(again).toEqual({ ...first, created: false });
  });

  it("refuses a damaged key file, naming it, rather than sealing under a new key", async () => {
    await writeFile(tokenKeyPath(dir), "not a key ring\n", { mode: 0o600 });
    await expect(loadOrCreateTokenKeys(dir)).rejects.toThrow(
      `token key file ${tokenKeyPath(dir)} does not hold a usable TOKEN_KEYS value`,
    );
  });
});
