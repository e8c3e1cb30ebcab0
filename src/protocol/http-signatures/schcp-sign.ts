/**
 * Signing side of SchCP §3.2: produces exactly the one form the verifier accepts. Bad
 * arguments here are the caller's own values, so they throw (programmer errors).
 */
import { sign } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { decodeBase64Url, encodeBase64 } from "../json/base64.js";
import { jwkThumbprint } from "../jose/jwk.js";
import type { Ed25519PublicJwk } from "../jose/jwk.js";
import { encodeAgentKeyHeader } from "./agent-key.js";
import { contentDigestSha256 } from "./content-digest.js";
import {
  SCHCP_HEADERS,
  SCHCP_LABEL,
  SCHCP_MIN_NONCE_BYTES,
  schcpComponents,
  schcpSignatureParams,
} from "./schcp-form.js";
import type { SchcpSignedHeaders } from "./schcp-form.js";
import { buildSignatureBase } from "./signature-base.js";
import { randomToken } from "../random.js";

export interface SignSchcpRequestInput {
  method: string;
  /** The public URL the agent addresses, exactly as sent. */
  targetUri: string;
  body?: Uint8Array;
  /** The SchCP-Mandate header value (compact JWS or SD-JWT presentation), covered byte for byte. */
  mandate?: string;
  privateKey: KeyObject;
  publicJwk: Ed25519PublicJwk;
  /** Unix seconds. */
  created: number;
  /** Fresh random nonce unless given (tests); base64url of at least 16 bytes. */
  nonce?: string;
}

// A field value that survives OWS trimming unchanged and needs no escaping in the base.
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export function signSchcpRequest(input: SignSchcpRequestInput): SchcpSignedHeaders {
  if (!Number.isSafeInteger(input.created))
    throw new TypeError("signSchcpRequest: created must be an integer");
  const nonce = input.nonce ?? randomToken(SCHCP_MIN_NONCE_BYTES);
  const nonceBytes = decodeBase64Url(nonce, "nonce");
  if (!nonceBytes.ok || nonceBytes.value.length < SCHCP_MIN_NONCE_BYTES) {
    throw new TypeError("signSchcpRequest: nonce must be base64url of at least 16 bytes");
  }
  if (input.mandate !== undefined && !HEADER_VALUE.test(input.mandate)) {
    throw new TypeError("signSchcpRequest: mandate is not a valid header value");
  }
  const body = input.body ?? new Uint8Array(0);
  const headers: SchcpSignedHeaders = {
    "signature-input": "",
    signature: "",
    "schcp-agent-key": encodeAgentKeyHeader(input.publicJwk),
  };
  if (body.length > 0) headers["content-digest"] = contentDigestSha256(body);
  if (input.mandate !== undefined) headers["schcp-mandate"] = input.mandate;

  const components = schcpComponents(body.length > 0, input.mandate !== undefined);
  const params = schcpSignatureParams(components, input.created, jwkThumbprint(input.publicJwk), nonce);
  const fields: Array<[string, string]> = [];
  if (headers["content-digest"] !== undefined)
    fields.push([SCHCP_HEADERS.contentDigest, headers["content-digest"]]);
  if (input.mandate !== undefined) fields.push([SCHCP_HEADERS.mandate, input.mandate]);
  const base = buildSignatureBase(components, params, {
    method: input.method.toUpperCase(),
    targetUri: input.targetUri,
    headers: fields,
  });
  if (!base.ok) throw new TypeError(`signSchcpRequest: ${base.error.message}`);

  const signature = sign(null, Buffer.from(base.value, "utf8"), input.privateKey);
  headers["signature-input"] = `${SCHCP_LABEL}=${params}`;
  headers.signature = `${SCHCP_LABEL}=:${encodeBase64(signature)}:`;
  return headers;
}
