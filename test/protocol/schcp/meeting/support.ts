/**
 * Fixtures for SchCP §5.12 meeting tests: the spec's playdate (Noor organizes, Ellis and Priya
 * are members, Mira comes along), with real Ed25519 keys and offer hashes.
 */
import { generateEd25519KeyPair, jwkThumbprint, principalUrn } from "../../../../src/protocol/jose/jwk.js";
import type { Ed25519PublicJwk } from "../../../../src/protocol/jose/jwk.js";
import { signCompactJws } from "../../../../src/protocol/jose/jws.js";
import type { KeyObject } from "node:crypto";
import { sha256Base64Url } from "../../../../src/protocol/json/base64.js";
import type { MeetingContractClaims } from "../../../../src/protocol/schcp/types.js";

export interface Person {
  readonly privateKey: KeyObject;
  readonly publicJwk: Ed25519PublicJwk;
  readonly thumbprint: string;
  readonly principal: string;
}

export function person(): Person {
  const { privateKey, publicJwk } = generateEd25519KeyPair();
  const thumbprint = jwkThumbprint(publicJwk);
  return { privateKey, publicJwk, thumbprint, principal: principalUrn(thumbprint) };
}

export const noor = person();
export const ellis = person();
export const priya = person();

/** 2026-10-13T13:00:00Z, four days before the playdate. */
export const IAT = 1792155600;
export const NOW_MS = (IAT + 600) * 1000;

export const PLAYDATE_STATEMENT =
  "I approve: Playdate with Ellis Moreau (ellis-moreau) and Priya Shah (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along; Ellis Moreau and Priya Shah may each answer by a rule they signed.";

export const ELLIS_ACCEPT_STATEMENT =
  "I accept: Playdate arranged by Noor Haddad (noor-haddad), with Priya Shah (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along.";

export function playdate(): MeetingContractClaims {
  return {
    v: "0.4",
    iss: noor.principal,
    principal_jwk: noor.publicJwk,
    iat: IAT,
    exp: IAT + 43200,
    meeting_id: "mtg_playdate",
    revision: 1,
    title: "Playdate",
    tz: "America/Toronto",
    start: "2026-10-17T12:00:00-04:00",
    open_end: true,
    place: { name: "Trinity Bellwoods Park playground", locality: "Toronto" },
    members: [
      {
        principal: noor.principal,
        name: "Noor Haddad",
        host: "noor-haddad",
        domain: null,
        service_id: "playdate",
        offer_sha256: sha256Base64Url("offer-noor"),
      },
      {
        principal: ellis.principal,
        name: "Ellis Moreau",
        host: "ellis-moreau",
        domain: null,
        service_id: "playdate",
        offer_sha256: sha256Base64Url("offer-ellis"),
      },
      {
        principal: priya.principal,
        name: "Priya Shah",
        host: "priya-shah",
        domain: null,
        service_id: "playdate",
        offer_sha256: sha256Base64Url("offer-priya"),
      },
    ],
    attendees: [{ name: "Mira", relationship: "child" }],
    answers: "person_or_rule",
    statement: PLAYDATE_STATEMENT,
  };
}

/** Signs any claims (valid or not) as a contract, by default with Noor's key. */
export function signContract(
  claims: object,
  key: KeyObject = noor.privateKey,
  header: Record<string, unknown> = { alg: "EdDSA", typ: "schcp-meeting+jwt" },
): Promise<string> {
  return signCompactJws(header, claims as Record<string, unknown>, key);
}

export function copy<T>(v: T): T {
  return structuredClone(v);
}

/** Signs any claims (valid or not) as an acceptance. */
export function signAcceptanceClaims(
  claims: object,
  key: KeyObject,
  header: Record<string, unknown> = { alg: "EdDSA", typ: "schcp-acceptance+jwt" },
): Promise<string> {
  return signCompactJws(header, claims as Record<string, unknown>, key);
}

/** Signs any claims (valid or not) as a rule (SchCP §7.9). */
export function signRuleClaims(
  claims: object,
  key: KeyObject,
  header: Record<string, unknown> = { alg: "EdDSA", typ: "schcp-rule+jwt" },
): Promise<string> {
  return signCompactJws(header, claims as Record<string, unknown>, key);
}
