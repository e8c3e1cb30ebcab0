/**
 * Host side of SchCP §3.2: accepts the one exact form and nothing else. Every failure is
 * bad_signature except a stale created (stale_signature) and a reused nonce
 * (replayed_nonce). The nonce is remembered only after everything else passed, so a
 * forged or stale request can never spend someone else's nonce.
 */
import { jwkThumbprint } from "../jose/jwk.js";
import { err, ok } from "../result.js";
import type { Result } from "../result.js";
import { decodeAgentKeyHeader } from "./agent-key.js";
import { verifyContentDigest } from "./content-digest.js";
import type { NonceMemory } from "./nonce-memory.js";
import {
  SCHCP_HEADERS as H,
  SCHCP_MAX_SKEW_SEC,
  SCHCP_NONCE_TTL_SEC,
  refusal,
  schcpComponents,
} from "./schcp-form.js";
import type { SignatureRefusal, VerifiedRequest } from "./schcp-form.js";
import { readSchcpSignature, readSchcpSignatureInput, verifyWithJwk } from "./schcp-read.js";
import { buildSignatureBase } from "./signature-base.js";
import { serializeInnerList } from "./structured-fields.js";

/** Field lines by lower-case name; an array when the framework keeps repeated lines apart. */
export type HeaderLookup = (name: string) => string | undefined | string[];

export interface VerifySchcpRequestInput {
  method: string;
  /**
   * The public URL the agent addressed, rebuilt from the endpoint's configured public
   * origin and the request path. Never from the Host header (SchCP §3.2): behind a proxy
   * Host names the internal hop, and a client controls it.
   */
  targetUri: string;
  headers: HeaderLookup;
  body: Uint8Array;
  nowSec: number;
  nonces: NonceMemory;
}

type Check<T> = Result<T, SignatureRefusal>;
const bad = (message: string, field?: string) => err(refusal("bad_signature", message, field));

function header(lookup: HeaderLookup, name: string): Check<string | undefined> {
  const value = lookup(name);
  if (!Array.isArray(value)) return ok(value);
  // Repeated lines would be a second signature, mandate or key (SchCP §3.2: exactly one).
  if (value.length > 1) return bad(`${name} is sent more than once`, name);
  return ok(value[0]);
}

export async function verifySchcpRequest(input: VerifySchcpRequestInput): Promise<Check<VerifiedRequest>> {
  // A NaN clock would pass every freshness comparison: the caller's bug, so it throws.
  if (!Number.isFinite(input.nowSec))
    throw new TypeError("verifySchcpRequest: nowSec must be a finite number");
  const read = readHeaders(input.headers);
  if (!read.ok) return read;
  const h = read.value;
  if (h.signatureInput === undefined) return bad("Signature-Input is missing", H.signatureInput);
  if (h.signature === undefined) return bad("Signature is missing", H.signature);

  const form = readSchcpSignatureInput(
    h.signatureInput,
    schcpComponents(input.body.length > 0, h.mandate !== undefined),
  );
  if (!form.ok) return form;
  const { list, created, keyid, nonce } = form.value;
  const signature = readSchcpSignature(h.signature);
  if (!signature.ok) return signature;

  if (h.agentKey === undefined) return bad("SchCP-Agent-Key is missing", H.agentKey);
  const agentJwk = decodeAgentKeyHeader(h.agentKey);
  if (!agentJwk.ok) return bad(`SchCP-Agent-Key: ${agentJwk.error.message}`, agentJwk.error.field);
  if (jwkThumbprint(agentJwk.value) !== keyid) {
    return bad("keyid is not the RFC 7638 thumbprint of SchCP-Agent-Key", H.signatureInput);
  }
  if (input.body.length > 0) {
    if (h.contentDigest === undefined)
      return bad("Content-Digest is missing for a request body", H.contentDigest);
    const digest = verifyContentDigest(h.contentDigest, input.body);
    if (!digest.ok) return bad(digest.error.message, H.contentDigest);
  } else if (h.contentDigest !== undefined) {
    return bad("Content-Digest sent on a bodiless request", H.contentDigest);
  }
  if (Math.abs(input.nowSec - created) > SCHCP_MAX_SKEW_SEC) {
    return err(
      refusal(
        "stale_signature",
        `created is more than ${SCHCP_MAX_SKEW_SEC} s from the host clock`,
        H.signatureInput,
      ),
    );
  }

  const fields: Array<[string, string]> = [];
  if (h.contentDigest !== undefined) fields.push([H.contentDigest, h.contentDigest]);
  if (h.mandate !== undefined) fields.push([H.mandate, h.mandate]);
  const components = list.items.map((item) => String(item.value.value));
  const base = buildSignatureBase(components, serializeInnerList(list), {
    method: input.method,
    targetUri: input.targetUri,
    headers: fields,
  });
  if (!base.ok) return bad(base.error.message, base.error.field);
  if (!verifyWithJwk(base.value, signature.value, agentJwk.value)) {
    return bad("the signature does not verify", H.signature);
  }

  // Only now, with the signature verified and fresh, may the nonce be spent.
  if (!(await input.nonces.rememberIfNew(keyid, nonce, created + SCHCP_NONCE_TTL_SEC))) {
    return err(refusal("replayed_nonce", "this nonce was already used with this key", H.signatureInput));
  }
  const verified: VerifiedRequest = { keyid, agentJwk: agentJwk.value, created, nonce };
  if (h.mandate !== undefined) verified.mandate = h.mandate;
  return ok(verified);
}

type SchcpHeaderValues = Partial<Record<keyof typeof H, string>>;

function readHeaders(lookup: HeaderLookup): Check<SchcpHeaderValues> {
  const out: SchcpHeaderValues = {};
  for (const [key, name] of Object.entries(H) as Array<[keyof typeof H, string]>) {
    const value = header(lookup, name);
    if (!value.ok) return value;
    if (value.value !== undefined) out[key] = value.value;
  }
  return ok(out);
}
