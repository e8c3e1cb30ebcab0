/**
 * The SchCP-Agent-Key header (SchCP §3.2): base64url without padding of the UTF-8 JSON of
 * an Ed25519 JWK with kty, crv and x, optionally kid, nothing else, members in any order.
 * Duplicate members and invalid UTF-8 are refused (SchCP §3.1), and so, loudly, is `d`.
 */
import { encodeBase64Url, decodeBase64Url } from "../json/base64.js";
import { parseStrictJson } from "../json/strict-json.js";
import { parseEd25519PublicJwk } from "../jose/jwk.js";
import type { Ed25519PublicJwk } from "../jose/jwk.js";
import type { Result } from "../result.js";
import { BoundedMemo } from "../bounded-memo.js";

const AGENT_KEY_HEADER = "schcp-agent-key";

/** An agent sends the same header on every request: decoded once, kept frozen, bounded. */
const decodedHeaders = new BoundedMemo<Result<Ed25519PublicJwk>>(10_000);

export function decodeAgentKeyHeader(value: string): Result<Ed25519PublicJwk> {
  const known = decodedHeaders.get(value);
  if (known !== undefined) return known;
  const decoded = decodeHeader(value);
  if (decoded.ok) Object.freeze(decoded.value);
  return decodedHeaders.set(value, Object.freeze(decoded));
}

function decodeHeader(value: string): Result<Ed25519PublicJwk> {
  const bytes = decodeBase64Url(value, AGENT_KEY_HEADER);
  if (!bytes.ok) return bytes;
  const json = parseStrictJson(bytes.value, AGENT_KEY_HEADER);
  if (!json.ok) return json;
  return parseEd25519PublicJwk(json.value, AGENT_KEY_HEADER, { allowKid: true });
}

export function encodeAgentKeyHeader(jwk: Ed25519PublicJwk): string {
  const closed: Ed25519PublicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  if (jwk.kid !== undefined) closed.kid = jwk.kid;
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify(closed)));
}
