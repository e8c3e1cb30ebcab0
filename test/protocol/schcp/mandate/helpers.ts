/**
 * Shared material for the mandate tests: fixed keys per role, a fixed clock, claim
 * builders and forgers for what verification must refuse.
 */
import { expect } from "vitest";
import { generateEd25519KeyPair, jwkThumbprint, principalUrn } from "../../../../src/protocol/jose/jwk.js";
import { signCompactJwsBytes } from "../../../../src/protocol/jose/jws.js";
import { encodeBase64Url } from "../../../../src/protocol/json/base64.js";
import type { Result } from "../../../../src/protocol/result.js";
import { isRegisteredReason } from "../../../../src/protocol/schcp/refusals.js";
import type { MandateClaims } from "../../../../src/protocol/schcp/types.js";
import {
  delegateMandate,
  issueMandate,
  signMandateClaims,
  verifyMandate,
} from "../../../../src/protocol/schcp/mandate/index.js";
import type {
  ChildMandateClaims,
  MandateChain,
  MandateRefusal,
  RootMandateClaims,
  SigningKey,
  VerifyMandateContext,
} from "../../../../src/protocol/schcp/mandate/index.js";

export const HOST = "maple-street-auto";
export const NOW = 1_792_000_000;

export const principal: SigningKey = generateEd25519KeyPair();
export const otherPrincipal: SigningKey = generateEd25519KeyPair();
export const agent: SigningKey = generateEd25519KeyPair();
export const subAgent: SigningKey = generateEd25519KeyPair();
export const stranger: SigningKey = generateEd25519KeyPair();

export const thumb = (k: SigningKey): string => jwkThumbprint(k.publicJwk);
export const issOf = (k: SigningKey): string => principalUrn(thumb(k));

/** A valid open root mandate for `agent`, before iss and principal_jwk are filled in. */
export function rootClaims(over: Partial<RootMandateClaims> = {}): RootMandateClaims {
  return {
    sub: "principal-pseudonym-7f3a",
    aud: HOST,
    iat: NOW - 10,
    exp: NOW + 3600,
    jti: "m-root",
    cnf: { jkt: thumb(agent) },
    scope: ["hold", "book", "cancel", "reschedule", "delegate"],
    ...over,
  };
}

/** A valid child for `subAgent`, before iss, sub, issuer_jwk and parent are filled in. */
export function childClaims(over: Partial<ChildMandateClaims> = {}): ChildMandateClaims {
  return {
    aud: HOST,
    iat: NOW - 5,
    exp: NOW + 1800,
    jti: "m-child",
    cnf: { jkt: thumb(subAgent) },
    scope: ["hold", "book"],
    ...over,
  };
}

/** The full claims a root would carry, for forging variants with signMandateClaims. */
export function fullRootClaims(
  over: Partial<MandateClaims> = {},
  key: SigningKey = principal,
): MandateClaims {
  return { ...rootClaims(), iss: issOf(key), principal_jwk: key.publicJwk, ...over };
}

export function fullChildClaims(parent: string, over: Partial<MandateClaims> = {}): MandateClaims {
  return {
    ...childClaims(),
    iss: issOf(principal),
    sub: "principal-pseudonym-7f3a",
    issuer_jwk: agent.publicJwk,
    parent,
    ...over,
  };
}

export const issueRoot = (over: Partial<RootMandateClaims> = {}): Promise<string> =>
  issueMandate(rootClaims(over), principal);

export async function issueChild(
  over: Partial<ChildMandateClaims> = {},
  parent?: string,
  signer: SigningKey = agent,
): Promise<string> {
  return delegateMandate(parent ?? (await issueRoot()), childClaims(over), signer);
}

export const forge = (claims: object, key: SigningKey = principal, header?: Record<string, unknown>) =>
  signMandateClaims(claims, key.privateKey, header);

/** A compact JWS over exact header text and payload bytes, for non-JSON or non-UTF-8 payloads. */
export function forgeRaw(
  headerJson: string,
  payload: Uint8Array,
  key: SigningKey = principal,
): Promise<string> {
  return signCompactJwsBytes(headerJson, payload, key.privateKey);
}

export const b64u = (text: string): string => encodeBase64Url(new TextEncoder().encode(text));

export function context(over: Partial<VerifyMandateContext> = {}): VerifyMandateContext {
  return { hostId: HOST, nowSec: NOW, requestKeyThumbprint: thumb(agent), ...over };
}

/** The context for a chain whose leaf is a child for `subAgent`. */
export const childContext = (over: Partial<VerifyMandateContext> = {}): VerifyMandateContext =>
  context({ requestKeyThumbprint: thumb(subAgent), ...over });

export async function verifiedChain(
  compact: string,
  ctx: VerifyMandateContext = context(),
): Promise<MandateChain> {
  const result = await verifyMandate(compact, ctx);
  if (!result.ok) throw new Error(`expected a valid mandate: ${JSON.stringify(result.error)}`);
  return result.value;
}

export function expectRefusal<T>(
  result: Result<T, MandateRefusal>,
  code: MandateRefusal["code"],
  reason: string,
): MandateRefusal {
  expect(result.ok, result.ok ? "expected a refusal" : JSON.stringify(result.error)).toBe(false);
  if (result.ok) throw new Error("unreachable");
  expect({ code: result.error.code, reason: result.error.reason }).toEqual({ code, reason });
  expect(isRegisteredReason(code, reason), `${code}/${reason} is in the §9.2 registry`).toBe(true);
  return result.error;
}
