/**
 * Host side of SchCP §3.2: accepts the one exact form and nothing else. Every failure is
 * bad_signature except a stale created (stale_signature) and a reused nonce
 * (replayed_nonce). The nonce is remembered only after everything else passed, so a
 * forged or stale request can never spend someone else's nonce.
 */
import { decodeBase64Url, encodeBase64 } from "../json/base64.js";
import { ed25519PublicKeyFromJwk, jwkThumbprint } from "../jose/jwk.js";
import type { Ed25519PublicJwk } from "../jose/jwk.js";
import { err, ok } from "../result.js";
import type { Result } from "../result.js";
import { decodeAgentKeyHeader } from "./agent-key.js";
import { verifyContentDigest } from "./content-digest.js";
import type { NonceMemory } from "./nonce-memory.js";
import { verifyEd25519 } from "./rfc9421-verify.js";
import {
  SCHCP_ALG,
  SCHCP_HEADERS as H,
  SCHCP_LABEL,
  SCHCP_MAX_SKEW_SEC,
  SCHCP_MIN_NONCE_BYTES,
} from "./schcp-form.js";
import {
  SCHCP_NONCE_TTL_SEC,
  SCHCP_PARAM_ORDER,
  refusal,
  schcpComponents,
  schcpSignatureParams,
} from "./schcp-form.js";
import type { SignatureRefusal, VerifiedRequest } from "./schcp-form.js";
import { buildSignatureBase } from "./signature-base.js";
import { parseDictionary, serializeInnerList } from "./structured-fields.js";
import type { InnerList } from "./structured-fields.js";

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

  const form = readSignatureInput(h.signatureInput, input.body.length > 0, h.mandate !== undefined);
  if (!form.ok) return form;
  const { list, created, keyid, nonce } = form.value;
  const signature = readSignature(h.signature);
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

function verifyWithJwk(base: string, signature: Uint8Array, jwk: Ed25519PublicJwk): boolean {
  try {
    return verifyEd25519(base, signature, ed25519PublicKeyFromJwk(jwk));
  } catch {
    return false; // a 32-byte x that is not a usable point
  }
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

interface SchcpForm {
  list: InnerList;
  created: number;
  keyid: string;
  nonce: string;
}

function readSignatureInput(value: string, hasBody: boolean, hasMandate: boolean): Check<SchcpForm> {
  const dict = parseDictionary(value, H.signatureInput);
  if (!dict.ok) return bad(dict.error.message, H.signatureInput);
  if (dict.value.length !== 1) return bad("exactly one signature is allowed", H.signatureInput);
  const [label, list] = dict.value[0] as (typeof dict.value)[0];
  if (label !== SCHCP_LABEL) return bad(`the signature label must be "${SCHCP_LABEL}"`, H.signatureInput);
  if (list.kind !== "inner-list") return bad("Signature-Input must be an inner list", H.signatureInput);

  const expected = schcpComponents(hasBody, hasMandate);
  const got = list.items.map((i) =>
    i.value.type === "string" && i.params.length === 0 ? i.value.value : "?",
  );
  if (got.join(" ") !== expected.join(" ")) {
    return bad(
      `covered components must be exactly ${expected.map((c) => `"${c}"`).join(" ")}`,
      H.signatureInput,
    );
  }
  if (list.params.map(([k]) => k).join(";") !== SCHCP_PARAM_ORDER.join(";")) {
    return bad(`parameters must be exactly ${SCHCP_PARAM_ORDER.join(", ")} in that order`, H.signatureInput);
  }
  const p = Object.fromEntries(list.params);
  if (p.created?.type !== "integer") return bad("created must be an integer", H.signatureInput);
  if (p.keyid?.type !== "string" || p.nonce?.type !== "string") {
    return bad("keyid and nonce must be strings", H.signatureInput);
  }
  if (p.alg?.type !== "string" || p.alg.value !== SCHCP_ALG)
    return bad(`alg must be "${SCHCP_ALG}"`, H.signatureInput);
  const nonceBytes = decodeBase64Url(p.nonce.value, H.signatureInput);
  if (!nonceBytes.ok || nonceBytes.value.length < SCHCP_MIN_NONCE_BYTES) {
    return bad("nonce must be base64url of at least 16 bytes", H.signatureInput);
  }
  const form = { list, created: p.created.value, keyid: p.keyid.value, nonce: p.nonce.value };
  // One exact form: no other spacing or spelling of the same structure.
  if (value !== `${SCHCP_LABEL}=${schcpSignatureParams(expected, form.created, form.keyid, form.nonce)}`) {
    return bad("Signature-Input is not in the one exact form", H.signatureInput);
  }
  return ok(form);
}

function readSignature(value: string): Check<Uint8Array> {
  const dict = parseDictionary(value, H.signature);
  if (!dict.ok) return bad(dict.error.message, H.signature);
  if (dict.value.length !== 1) return bad("exactly one signature is allowed", H.signature);
  const [label, member] = dict.value[0] as (typeof dict.value)[0];
  if (label !== SCHCP_LABEL) return bad(`the signature label must be "${SCHCP_LABEL}"`, H.signature);
  if (member.kind !== "item" || member.value.type !== "bytes" || member.params.length > 0) {
    return bad("Signature must be a byte sequence", H.signature);
  }
  const bytes = member.value.value;
  if (bytes.length !== 64) return bad("an Ed25519 signature is 64 bytes", H.signature);
  if (value !== `${SCHCP_LABEL}=:${encodeBase64(bytes)}:`)
    return bad("Signature is not in the one exact form", H.signature);
  return ok(bytes);
}
