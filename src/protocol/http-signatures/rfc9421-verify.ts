/**
 * A generic RFC 9421 §3.2 verifier for one Ed25519 signature, as used by the RFC's own
 * Appendix B.2.6 and B.4 vectors. SchCP requests go through schcp-profile.ts instead,
 * which fixes the one exact form; this one accepts whatever components and parameters
 * the signer chose, so it only checks what §3.2 requires of every verifier.
 */
import { verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { err, fieldError, ok } from "../result.js";
import type { Result } from "../result.js";
import { buildSignatureBase, trimOws } from "./signature-base.js";
import type { HttpMessageView } from "./signature-base.js";
import { parseDictionary, serializeInnerList } from "./structured-fields.js";
import type { DictionaryMember, InnerList } from "./structured-fields.js";

/** Combined value of every line of a field, as RFC 9110 §5.3 lets a recipient join them. */
function combinedField(message: HttpMessageView, name: string): string | undefined {
  const lines = message.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => trimOws(v));
  return lines.length === 0 ? undefined : lines.join(", ");
}

function findMember(members: DictionaryMember[], label: string, field: string): Result<DictionaryMember[1]> {
  const found = members.filter(([key]) => key === label);
  if (found.length !== 1 || found[0] === undefined) {
    return err(fieldError("missing_signature", field, `expected exactly one "${label}" member`));
  }
  return ok(found[0][1]);
}

export interface Rfc9421Signature {
  readonly components: readonly string[];
  readonly signatureParams: string;
  readonly params: InnerList["params"];
  readonly signature: Uint8Array;
}

/** Reads the labelled member of Signature-Input and Signature (RFC 9421 §4.1, §4.2). */
export function readRfc9421Signature(message: HttpMessageView, label: string): Result<Rfc9421Signature> {
  const inputValue = combinedField(message, "signature-input");
  const sigValue = combinedField(message, "signature");
  if (inputValue === undefined)
    return err(fieldError("missing_signature", "signature-input", "no Signature-Input"));
  if (sigValue === undefined) return err(fieldError("missing_signature", "signature", "no Signature"));
  const inputDict = parseDictionary(inputValue, "signature-input");
  if (!inputDict.ok) return inputDict;
  const sigDict = parseDictionary(sigValue, "signature");
  if (!sigDict.ok) return sigDict;
  const input = findMember(inputDict.value, label, "signature-input");
  if (!input.ok) return input;
  const sig = findMember(sigDict.value, label, "signature");
  if (!sig.ok) return sig;
  if (input.value.kind !== "inner-list") {
    return err(fieldError("invalid_signature_input", "signature-input", "the member must be an inner list"));
  }
  const components: string[] = [];
  for (const item of input.value.items) {
    if (item.value.type !== "string" || item.params.length > 0) {
      return err(
        fieldError("invalid_signature_input", "signature-input", "components must be plain strings"),
      );
    }
    components.push(item.value.value);
  }
  if (sig.value.kind !== "item" || sig.value.value.type !== "bytes") {
    return err(fieldError("invalid_signature", "signature", "the member must be a byte sequence"));
  }
  return ok({
    components,
    signatureParams: serializeInnerList(input.value),
    params: input.value.params,
    signature: sig.value.value.value,
  });
}

/**
 * ok(true) when the labelled signature verifies with the Ed25519 key, ok(false) when it
 * does not, err when the message cannot be read (missing field, malformed header, a
 * non-Ed25519 alg parameter).
 */
export function verifyRfc9421Ed25519(
  message: HttpMessageView,
  label: string,
  publicKey: KeyObject,
): Result<boolean> {
  const read = readRfc9421Signature(message, label);
  if (!read.ok) return read;
  const alg = read.value.params.find(([k]) => k === "alg")?.[1];
  if (alg !== undefined && !(alg.type === "string" && alg.value === "ed25519")) {
    return err(fieldError("unsupported_alg", "signature-input", 'alg must be "ed25519"'));
  }
  const base = buildSignatureBase(read.value.components, read.value.signatureParams, message);
  if (!base.ok) return base;
  return ok(verifyEd25519(base.value, read.value.signature, publicKey));
}

/** Ed25519 over the UTF-8 signature base; false rather than a throw on a bad key. */
export function verifyEd25519(base: string, signature: Uint8Array, publicKey: KeyObject): boolean {
  try {
    return signature.length === 64 && verify(null, Buffer.from(base, "utf8"), publicKey, signature);
  } catch {
    return false;
  }
}
