/**
 * The private Ed25519 JWK files the embedded default keeps in its data directory (the try-it
 * attester's and the try-it people's): one JSON object {kty, crv, x, d}, the form the agent
 * SDK's agentKeyFromJwk reads. The public half is re-derived from d on every read, so a file
 * pairing d with another x is refused rather than trusted.
 */
import type { KeyObject } from "node:crypto";
import {
  ed25519PrivateKeyFromJwk,
  ed25519PublicJwkOf,
  generateEd25519KeyPair,
  parseEd25519PublicJwk,
} from "../../protocol/jose/index.js";
import type { Ed25519PublicJwk } from "../../protocol/jose/index.js";

/** A new key file's text (readOrCreateSecret's `create`). */
export function newEd25519KeyFileText(): string {
  const { privateKey } = generateEd25519KeyPair();
  const d = privateKey.export({ format: "jwk" }).d;
  return `${JSON.stringify({ ...ed25519PublicJwkOf(privateKey), d })}\n`;
}

/** The key pair a file holds; `what` names the file in the error ("try-it attester key file"). */
export function readEd25519KeyFile(
  text: string,
  path: string,
  what: string,
): { privateKey: KeyObject; publicJwk: Ed25519PublicJwk } {
  const unusable = () =>
    new Error(`${what} ${path} does not hold an Ed25519 private JWK; remove it to have one generated`);
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw unusable();
  }
  const { d, ...pub } = jwk;
  const parsed = parseEd25519PublicJwk(pub, "", { allowKid: true });
  if (!parsed.ok || typeof d !== "string") throw unusable();
  let privateKey: KeyObject;
  try {
    privateKey = ed25519PrivateKeyFromJwk({ ...parsed.value, d });
  } catch {
    throw unusable();
  }
  const publicJwk = ed25519PublicJwkOf(privateKey);
  if (publicJwk.x !== parsed.value.x) throw unusable();
  return { privateKey, publicJwk };
}
