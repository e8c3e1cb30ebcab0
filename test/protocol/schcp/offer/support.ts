/**
 * Shared material for the offer, receipt and consent tests: host keys and the spec's own
 * example offers (SchCP §5.2), as plain claims that each test copies and edits.
 */
import { ed25519PrivateKeyFromJwk, generateEd25519KeyPair } from "../../../../src/protocol/jose/jwk.js";
import type { Ed25519PrivateJwk } from "../../../../src/protocol/jose/jwk.js";
import type { HostSigningKey } from "../../../../src/protocol/schcp/offer/host-key.js";
import type { Jwk, OfferClaims } from "../../../../src/protocol/schcp/types.js";
import { readFixtureJson } from "../../../support/fixtures.js";

/** A fixed key (RFC 8037 A.1), so signatures are the same bytes on every run. */
export function fixedHostKey(kid = "msa-2026-10"): HostSigningKey {
  const { A1_private_jwk: jwk } = readFixtureJson<{ A1_private_jwk: Ed25519PrivateJwk }>(
    "vectors/rfc8037_ed25519_jws.json",
  );
  return {
    kid,
    privateKey: ed25519PrivateKeyFromJwk(jwk),
    publicJwk: { kty: "OKP", crv: "Ed25519", x: jwk.x },
  };
}

export function freshHostKey(kid: string): HostSigningKey {
  const { publicJwk, privateKey } = generateEd25519KeyPair();
  return { kid, privateKey, publicJwk };
}

/** The key as a discovery document lists it (§2.1). */
export function discoveryKey(key: HostSigningKey): Jwk {
  return { ...key.publicJwk, kid: key.kid, use: "sig" };
}

/** A deep copy the test may edit freely. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** §5.2's example offer, with ids filled in. */
export const MAPLE_OFFER: OfferClaims = {
  v: "0.4",
  kind: "booking",
  iss: "maple-street-auto",
  hold_id: "h_01",
  iat: 1792000000,
  exp: 1792000300,
  host: { name: "Maple Street Auto", tz: "America/Toronto", domain: "maplestreetauto.example" },
  service: { id: "oil-change", name: "Synthetic oil change" },
  slot: { start: "2026-10-15T13:00:00-04:00", end: "2026-10-15T13:45:00-04:00" },
  price: { amount: "79.00", currency: "CAD" },
  total: { amount: "89.27", currency: "CAD" },
  lines: [
    { kind: "service", label: "Synthetic oil change", amount: { amount: "79.00", currency: "CAD" } },
    { kind: "tax", label: "HST 13%", amount: { amount: "10.27", currency: "CAD" } },
  ],
  retention: "P365D",
};

/** §5.2's playdate: a person's calendar, open-ended, elsewhere, no money. */
export const PLAYDATE_OFFER: OfferClaims = {
  v: "0.4",
  kind: "booking",
  iss: "ellis-moreau",
  hold_id: "h_02",
  iat: 1792000000,
  exp: 1792000900,
  host: {
    name: "Ellis Moreau",
    tz: "America/Toronto",
    kind: "person",
    owner: "urn:schcp:principal:jwk-thumbprint:kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
  },
  service: { id: "playdate", name: "Playdate" },
  slot: { start: "2026-10-17T12:00:00-04:00" },
  open_end: true,
  place: { name: "Trinity Bellwoods Park playground", locality: "Toronto" },
  approval_by: "2026-10-14T01:15:00Z",
  retention: "P30D",
};

/** A change offer (§5.7) for a booking of MAPLE_OFFER, an hour later. */
export const MAPLE_CHANGE: OfferClaims = {
  ...copy(MAPLE_OFFER),
  kind: "change",
  hold_id: undefined,
  booking_id: "b_01",
  prev: "MdCxB6jVOkPga5tDsATK0F4qK8-v2Htlk9NYpOqMvzo",
  slot: { start: "2026-10-15T14:00:00-04:00", end: "2026-10-15T14:45:00-04:00" },
};
delete MAPLE_CHANGE.hold_id;
