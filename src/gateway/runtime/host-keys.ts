/**
 * Each host's Ed25519 signing key (SchCP §2.1 keys), persisted across restarts: offers and
 * receipts already handed out name the key by kid, and agents verify them against discovery,
 * so a key that changed on restart would make every outstanding offer unverifiable.
 *
 * One JSON file per host, <dataDir>/keys/<hostId>.json, mode 0600:
 *   { "v": 1, "kid": "maple-street-auto-2026-10", "created": "2026-10-13T21:00:00.000Z",
 *     "jwk": { "kty": "OKP", "crv": "Ed25519", "x": "…", "d": "…" } }
 * The kid is "<hostId>-<yyyy-mm>" of the month the key was generated, so a rotated key
 * gets a new kid. A file that exists but cannot be read as a key stops the gateway: a
 * silently regenerated key would orphan every signature made with the old one.
 */
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { ed25519PrivateKeyFromJwk, ed25519PublicJwkOf } from "../../protocol/jose/index.js";
import type { Ed25519PrivateJwk } from "../../protocol/jose/index.js";
import { parseStrictJson } from "../../protocol/json/index.js";
import type { HostSigningKey } from "../../protocol/schcp/offer/index.js";
import { readOrCreateSecret } from "./secret-files.js";

/** Host ids become file names: only these characters, never a path. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function hostKeyPath(dataDir: string, hostId: string): string {
  if (!SAFE_ID.test(hostId)) throw new Error(`host id "${hostId}" cannot name a key file`);
  return join(dataDir, "keys", `${hostId}.json`);
}

export function keyId(hostId: string, epochMs: number): string {
  const d = new Date(epochMs);
  return `${hostId}-${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
}

function newKeyFile(hostId: string, nowMs: number): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const file = {
    v: 1,
    kid: keyId(hostId, nowMs),
    created: new Date(nowMs).toISOString(),
    jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d },
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function decodeKeyFile(text: string, path: string): HostSigningKey {
  const fail = (why: string): never => {
    throw new Error(
      `host key file ${path} is unusable (${why}); restore it, or remove it to generate a new key`,
    );
  };
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return fail(parsed.error.message);
  const file = parsed.value as { v?: unknown; kid?: unknown; jwk?: Partial<Ed25519PrivateJwk> } | null;
  if (file === null || typeof file !== "object" || file.v !== 1) return fail("not a version 1 key file");
  if (typeof file.kid !== "string" || file.kid === "") return fail("kid missing");
  const jwk = file.jwk;
  if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || typeof jwk.d !== "string") {
    return fail("jwk is not an Ed25519 private JWK");
  }
  let privateKey;
  try {
    privateKey = ed25519PrivateKeyFromJwk(jwk as Ed25519PrivateJwk);
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
  const publicJwk = ed25519PublicJwkOf(privateKey);
  // The stored x must be the private key's own public half, or discovery would publish a stranger.
  if (publicJwk.x !== jwk.x) return fail("x does not match d");
  return { kid: file.kid, privateKey, publicJwk };
}

/** The host's signing key, generated and stored on first use. */
export async function loadOrCreateHostKey(
  dataDir: string,
  hostId: string,
  nowMs: number,
): Promise<{ readonly key: HostSigningKey; readonly created: boolean }> {
  const path = hostKeyPath(dataDir, hostId);
  const { text, created } = await readOrCreateSecret(path, () => newKeyFile(hostId, nowMs));
  return { key: decodeKeyFile(text, path), created };
}
