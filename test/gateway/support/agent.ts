/**
 * A test agent: signs SchCP requests (§3.2) for a given public origin and sends them to an
 * in-process app (app.request) or a real server (fetch), and issues mandates as a key app.
 */
import { generateEd25519KeyPair, jwkThumbprint, principalUrn } from "../../../src/protocol/jose/jwk.js";
import { signSchcpRequest } from "../../../src/protocol/http-signatures/index.js";
import { issueMandate } from "../../../src/protocol/schcp/mandate/index.js";
import type { RootMandateClaims, SigningKey } from "../../../src/protocol/schcp/mandate/index.js";

export const newKey = (): SigningKey => generateEd25519KeyPair();
export const thumb = (k: SigningKey): string => jwkThumbprint(k.publicJwk);
export const issOf = (k: SigningKey): string => principalUrn(thumb(k));

export interface SignedRequestOptions {
  readonly method: string;
  /** Path and query below the origin, e.g. "/schcp/v0/maple-street-auto/holds". */
  readonly path: string;
  /** An object is sent as JSON; bytes and strings as they are. */
  readonly body?: unknown;
  readonly mandate?: string;
  readonly agent: SigningKey;
  /** Unix seconds. */
  readonly created: number;
  readonly nonce?: string;
  /** The origin the signature names (the gateway's public origin). */
  readonly signedOrigin: string;
  /** Extra or overriding headers after signing (tampering). */
  readonly headers?: Record<string, string>;
}

export function encodeBody(body: unknown): Uint8Array | undefined {
  if (body === undefined) return undefined;
  if (body instanceof Uint8Array) return body;
  if (typeof body === "string") return new TextEncoder().encode(body);
  return new TextEncoder().encode(JSON.stringify(body));
}

/** The RequestInit of a signed request (headers, method, body). */
export function signedInit(o: SignedRequestOptions): RequestInit & { headers: Record<string, string> } {
  const bytes = encodeBody(o.body);
  const signed = signSchcpRequest({
    method: o.method,
    targetUri: o.signedOrigin + o.path,
    ...(bytes !== undefined && { body: bytes }),
    ...(o.mandate !== undefined && { mandate: o.mandate }),
    privateKey: o.agent.privateKey,
    publicJwk: o.agent.publicJwk,
    created: o.created,
    ...(o.nonce !== undefined && { nonce: o.nonce }),
  });
  const headers: Record<string, string> = { ...(signed as unknown as Record<string, string>) };
  if (bytes !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, o.headers);
  return {
    method: o.method,
    headers,
    ...(bytes !== undefined && { body: bytes as NonNullable<RequestInit["body"]> }),
  };
}

export interface MandateOptions {
  readonly principal: SigningKey;
  readonly agent: SigningKey;
  readonly aud: string | string[];
  readonly nowSec: number;
  readonly over?: Partial<RootMandateClaims>;
}

export function mandateFor(o: MandateOptions): Promise<string> {
  return issueMandate(
    {
      sub: "principal-pseudonym-1",
      aud: o.aud,
      iat: o.nowSec - 10,
      exp: o.nowSec + 3600,
      jti: `m-${Math.random().toString(36).slice(2)}`,
      cnf: { jkt: thumb(o.agent) },
      scope: ["hold", "book", "cancel", "reschedule"],
      ...o.over,
    },
    o.principal,
  );
}
