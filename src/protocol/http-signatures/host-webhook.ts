/**
 * Host-signed webhook deliveries (SchCP §5.8: "The request is signed (RFC 9421) with the host
 * key from the discovery document"). The form is §3.2's one exact form, with the host key's
 * kid as keyid instead of an agent thumbprint and no SchCP-Mandate:
 *
 *   Signature-Input: schcp=("@method" "@target-uri" "content-digest");created=N;
 *                    keyid="<host kid>";nonce="<b64url>";alg="ed25519"
 *
 * plus SchCP-Host (§5.8 "Deliveries carry host_id and the SchCP-Host header") and
 * Content-Type: application/json. The form, signature base and digest come from the §3.2
 * modules; only what differs (key lookup by kid, the SchCP-Host binding) lives here.
 */
import { randomBytes, sign } from "node:crypto";
import { decodeBase64Url, encodeBase64, encodeBase64Url } from "../json/base64.js";
import { parseStrictJson } from "../json/strict-json.js";
import { jwkThumbprint, parseEd25519PublicJwk } from "../jose/jwk.js";
import type { Ed25519PublicJwk } from "../jose/jwk.js";
import { err, ok } from "../result.js";
import type { Result } from "../result.js";
import type { HostSigningKey } from "../schcp/offer/host-key.js";
import type { Jwk } from "../schcp/types.js";
import { contentDigestSha256, verifyContentDigest } from "./content-digest.js";
import type { NonceMemory } from "./nonce-memory.js";
import {
  SCHCP_HEADERS,
  SCHCP_LABEL,
  SCHCP_MAX_SKEW_SEC,
  SCHCP_MIN_NONCE_BYTES,
  SCHCP_NONCE_TTL_SEC,
  refusal,
  schcpComponents,
  schcpSignatureParams,
} from "./schcp-form.js";
import type { SignatureRefusal } from "./schcp-form.js";
import type { HeaderLookup } from "./schcp-verify.js";
import { readSchcpSignature, readSchcpSignatureInput, verifyWithJwk } from "./schcp-read.js";
import { buildSignatureBase } from "./signature-base.js";

const SCHCP_HOST_HEADER = "schcp-host";

export interface SignHostWebhookInput {
  /** The callback URL exactly as the request is sent (the "@target-uri"). */
  targetUri: string;
  hostId: string;
  /** The JSON bytes of the WebhookEvent; never empty. */
  body: Uint8Array;
  /** The host's signing key; its kid is the one its discovery document lists (§2.1). */
  key: HostSigningKey;
  /** Unix seconds. */
  created: number;
  /** Fresh random nonce unless given (tests). */
  nonce?: string;
  /** POST unless given. */
  method?: string;
}

export interface HostWebhookHeaders {
  "content-type": "application/json";
  "schcp-host": string;
  "content-digest": string;
  "signature-input": string;
  signature: string;
}

// A kid must sit inside an sf-string unescaped, and a header value must survive OWS trimming.
const SF_STRING_SAFE = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** Signs one delivery. Bad arguments are the caller's own values, so they throw. */
export function signHostWebhook(input: SignHostWebhookInput): HostWebhookHeaders {
  if (!Number.isSafeInteger(input.created))
    throw new TypeError("signHostWebhook: created must be an integer");
  if (input.body.length === 0) throw new TypeError("signHostWebhook: a webhook delivery carries a body");
  if (!SF_STRING_SAFE.test(input.key.kid)) throw new TypeError("signHostWebhook: kid is not a plain string");
  if (!HEADER_VALUE.test(input.hostId)) throw new TypeError("signHostWebhook: hostId is not a header value");
  const nonce = input.nonce ?? encodeBase64Url(randomBytes(SCHCP_MIN_NONCE_BYTES));
  const nonceBytes = decodeBase64Url(nonce, "nonce");
  if (!nonceBytes.ok || nonceBytes.value.length < SCHCP_MIN_NONCE_BYTES) {
    throw new TypeError("signHostWebhook: nonce must be base64url of at least 16 bytes");
  }
  const digest = contentDigestSha256(input.body);
  const components = schcpComponents(true, false);
  const params = schcpSignatureParams(components, input.created, input.key.kid, nonce);
  const base = buildSignatureBase(components, params, {
    method: (input.method ?? "POST").toUpperCase(),
    targetUri: input.targetUri,
    headers: [[SCHCP_HEADERS.contentDigest, digest]],
  });
  if (!base.ok) throw new TypeError(`signHostWebhook: ${base.error.message}`);
  const signature = sign(null, Buffer.from(base.value, "utf8"), input.key.privateKey);
  return {
    "content-type": "application/json",
    "schcp-host": input.hostId,
    "content-digest": digest,
    "signature-input": `${SCHCP_LABEL}=${params}`,
    signature: `${SCHCP_LABEL}=:${encodeBase64(signature)}:`,
  };
}

export interface VerifyHostWebhookInput {
  method: string;
  /** The agent's own public URL for the callback, as it gave it (never from the Host header). */
  targetUri: string;
  headers: HeaderLookup;
  body: Uint8Array;
  nowSec: number;
  /** The keys of the discovery document of the host that SchCP-Host names (§2.1). */
  discoveryKeys: readonly Jwk[];
  nonces: NonceMemory;
}

export interface VerifiedHostWebhook {
  /** The SchCP-Host value, equal to the signed body's host_id. */
  hostId: string;
  kid: string;
  created: number;
  nonce: string;
}

type Check<T> = Result<T, SignatureRefusal>;
const bad = (message: string, field?: string) => err(refusal("bad_signature", message, field));

/**
 * The agent side: §3.2's rules with the host's discovery key. Every failure is bad_signature
 * except a stale created (stale_signature) and a reused nonce (replayed_nonce); the nonce is
 * spent only once everything else passed.
 */
export async function verifyHostWebhook(input: VerifyHostWebhookInput): Promise<Check<VerifiedHostWebhook>> {
  // A NaN clock would pass every freshness comparison: the caller's bug, so it throws.
  if (!Number.isFinite(input.nowSec))
    throw new TypeError("verifyHostWebhook: nowSec must be a finite number");
  const h = readHeaders(input.headers);
  if (!h.ok) return h;
  const { signatureInput, signature, contentDigest, host } = h.value;
  if (signatureInput === undefined) return bad("Signature-Input is missing", SCHCP_HEADERS.signatureInput);
  if (signature === undefined) return bad("Signature is missing", SCHCP_HEADERS.signature);
  if (input.body.length === 0) return bad("a webhook delivery carries a body");

  const form = readSchcpSignatureInput(signatureInput, schcpComponents(true, false));
  if (!form.ok) return form;
  const { created, keyid, nonce, params } = form.value;
  const sig = readSchcpSignature(signature);
  if (!sig.ok) return sig;
  const key = discoveryKey(input.discoveryKeys, keyid);
  if (!key.ok) return key;

  if (contentDigest === undefined) return bad("Content-Digest is missing", SCHCP_HEADERS.contentDigest);
  const digest = verifyContentDigest(contentDigest, input.body);
  if (!digest.ok) return bad(digest.error.message, SCHCP_HEADERS.contentDigest);
  if (Math.abs(input.nowSec - created) > SCHCP_MAX_SKEW_SEC) {
    const message = `created is more than ${SCHCP_MAX_SKEW_SEC} s from the agent's clock`;
    return err(refusal("stale_signature", message, SCHCP_HEADERS.signatureInput));
  }
  const base = buildSignatureBase(schcpComponents(true, false), params, {
    method: input.method.toUpperCase(),
    targetUri: input.targetUri,
    headers: [[SCHCP_HEADERS.contentDigest, contentDigest]],
  });
  if (!base.ok) return bad(base.error.message, base.error.field);
  if (!verifyWithJwk(base.value, sig.value, key.value)) {
    return bad(`the signature does not verify with discovery key "${keyid}"`, SCHCP_HEADERS.signature);
  }
  // SchCP-Host is not covered by the signature; the body (covered by the digest) is.
  const hostId = boundHost(host, input.body);
  if (!hostId.ok) return hostId;

  // The discovery key's thumbprint, not the kid, keys the replay memory: kids are only
  // unique within one host's document (§2.1), thumbprints everywhere.
  if (!(await input.nonces.rememberIfNew(jwkThumbprint(key.value), nonce, created + SCHCP_NONCE_TTL_SEC))) {
    return err(
      refusal("replayed_nonce", "this nonce was already used with this key", SCHCP_HEADERS.signatureInput),
    );
  }
  return ok({ hostId: hostId.value, kid: keyid, created, nonce });
}

interface WebhookHeaderValues {
  signatureInput?: string;
  signature?: string;
  contentDigest?: string;
  host?: string;
}

function readHeaders(lookup: HeaderLookup): Check<WebhookHeaderValues> {
  const names = {
    signatureInput: SCHCP_HEADERS.signatureInput,
    signature: SCHCP_HEADERS.signature,
    contentDigest: SCHCP_HEADERS.contentDigest,
    host: SCHCP_HOST_HEADER,
  } as const;
  const out: WebhookHeaderValues = {};
  for (const [key, name] of Object.entries(names) as Array<[keyof WebhookHeaderValues, string]>) {
    const value = lookup(name);
    // A repeated line would be a second signature or host (§3.2: exactly one).
    if (Array.isArray(value) && value.length > 1) return bad(`${name} is sent more than once`, name);
    const single = Array.isArray(value) ? value[0] : value;
    if (single !== undefined) out[key] = single;
  }
  return ok(out);
}

/** §5.8 + §2.1: keyid names exactly one discovery key, and only that key is trusted. */
function discoveryKey(keys: readonly Jwk[], kid: string): Check<Ed25519PublicJwk> {
  const field = SCHCP_HEADERS.signatureInput;
  const named = keys.filter((k) => k.kid === kid);
  if (named.length === 0) return bad(`keyid "${kid}" names no key of the host's discovery document`, field);
  if (named.length > 1) return bad(`the discovery document lists kid "${kid}" twice`, field);
  const key = parseEd25519PublicJwk(named[0], field, { allowKid: true, allowUse: true });
  if (!key.ok) return bad(`the discovery key "${kid}" is not a usable Ed25519 key`, field);
  return ok(key.value);
}

/** SchCP-Host must be present and name the host_id of the signed body (§5.8). */
function boundHost(host: string | undefined, body: Uint8Array): Check<string> {
  if (host === undefined) return bad("SchCP-Host is missing", SCHCP_HOST_HEADER);
  const parsed = parseStrictJson(body);
  const bodyHost =
    parsed.ok && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value)
      ? (parsed.value as Record<string, unknown>).host_id
      : undefined;
  if (bodyHost !== host)
    return bad("SchCP-Host does not name the host_id of the signed event", SCHCP_HOST_HEADER);
  return ok(host);
}
