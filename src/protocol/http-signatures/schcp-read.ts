/**
 * Reading the SchCP §3.2 one exact form: the Signature-Input and Signature members, and the
 * Ed25519 check with a JWK. Shared by the host's check of agent requests (schcp-verify.ts)
 * and the agent's check of host-signed webhooks (host-webhook.ts, §5.8), which use the
 * same form with different components and keys.
 */
import { decodeBase64Url, encodeBase64 } from "../json/base64.js";
import { ed25519PublicKeyFromJwk } from "../jose/jwk.js";
import type { Ed25519PublicJwk } from "../jose/jwk.js";
import { err, ok } from "../result.js";
import type { Result } from "../result.js";
import { verifyEd25519 } from "./rfc9421-verify.js";
import {
  SCHCP_ALG,
  SCHCP_HEADERS as H,
  SCHCP_LABEL,
  SCHCP_MIN_NONCE_BYTES,
  SCHCP_PARAM_ORDER,
  refusal,
  schcpSignatureParams,
} from "./schcp-form.js";
import type { SignatureRefusal } from "./schcp-form.js";
import { parseDictionary } from "./structured-fields.js";
import type { InnerList } from "./structured-fields.js";

type Check<T> = Result<T, SignatureRefusal>;
const bad = (message: string, field?: string) => err(refusal("bad_signature", message, field));

export interface SchcpForm {
  readonly list: InnerList;
  readonly created: number;
  readonly keyid: string;
  readonly nonce: string;
  /** The "@signature-params" value, exactly as signed. */
  readonly params: string;
}

/** Signature-Input in the one exact form covering exactly `expected` components. */
export function readSchcpSignatureInput(value: string, expected: readonly string[]): Check<SchcpForm> {
  const dict = parseDictionary(value, H.signatureInput);
  if (!dict.ok) return bad(dict.error.message, H.signatureInput);
  if (dict.value.length !== 1) return bad("exactly one signature is allowed", H.signatureInput);
  const [label, list] = dict.value[0] as (typeof dict.value)[0];
  if (label !== SCHCP_LABEL) return bad(`the signature label must be "${SCHCP_LABEL}"`, H.signatureInput);
  if (list.kind !== "inner-list") return bad("Signature-Input must be an inner list", H.signatureInput);

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
  const params = schcpSignatureParams(expected, p.created.value, p.keyid.value, p.nonce.value);
  // One exact form: no other spacing or spelling of the same structure.
  if (value !== `${SCHCP_LABEL}=${params}`) {
    return bad("Signature-Input is not in the one exact form", H.signatureInput);
  }
  return ok({ list, created: p.created.value, keyid: p.keyid.value, nonce: p.nonce.value, params });
}

/** Signature: one 64-byte Ed25519 signature under the schcp label, in the one exact form. */
export function readSchcpSignature(value: string): Check<Uint8Array> {
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

export function verifyWithJwk(base: string, signature: Uint8Array, jwk: Ed25519PublicJwk): boolean {
  try {
    return verifyEd25519(base, signature, ed25519PublicKeyFromJwk(jwk));
  } catch {
    return false; // a 32-byte x that is not a usable point
  }
}
