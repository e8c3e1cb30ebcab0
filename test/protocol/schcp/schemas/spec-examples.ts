/**
 * The JSON examples printed in SchCP v0.4, with every "…" filled in by a plausible value.
 * Keys, thumbprints and the compact JWS come from RFC 8037 Appendix A (shared fixture), so
 * they have the real shapes. Each export is a function so a test can change its copy freely.
 */
import { createHash } from "node:crypto";
import { readFixtureJson } from "../../../support/fixtures.js";

interface Rfc8037 {
  A2_public_jwk: { kty: string; crv: string; x: string };
  A3_thumbprint_b64url: string;
  A4_compact_jws: string;
}
const rfc8037 = readFixtureJson<Rfc8037>("vectors/rfc8037_ed25519_jws.json");

export const X = rfc8037.A2_public_jwk.x;
export const JKT = rfc8037.A3_thumbprint_b64url;
export const JWS = rfc8037.A4_compact_jws;
export const PRINCIPAL = `urn:schcp:principal:jwk-thumbprint:${JKT}`;
/** offer_sha256 as §5.3 defines it: base64url SHA-256 of the exact compact JWS. */
export const SHA = createHash("sha256").update(JWS).digest("base64url");
/** The SHA-256 of the empty string, as another well-formed hash. */
export const OTHER_SHA = createHash("sha256").update("").digest("base64url");

const cad = (amount: string) => ({ amount, currency: "CAD" });
const lines = () => [
  { kind: "service", label: "Synthetic oil change", amount: cad("79.00") },
  { kind: "tax", label: "HST 13%", amount: cad("10.27") },
];

/** §2.1 */
export const discovery = () => ({
  schcp: "0.4",
  host: {
    id: "maple-street-auto",
    name: "Maple Street Auto",
    kind: "business",
    timezone: "America/Toronto",
    url: "https://maplestreetauto.example",
    address: { locality: "Toronto", region: "ON", country: "CA" },
  },
  endpoint: "https://maplestreetauto.example/schcp/v0",
  operator: null,
  keys: [{ kty: "OKP", crv: "Ed25519", x: X, kid: "msa-2026-10", use: "sig" }],
  services: [
    {
      id: "oil-change",
      name: "Synthetic oil change",
      duration: "PT45M",
      buffer_after: "PT15M",
      price: cad("79.00"),
      requires: [{ resource_type: "bay" }, { resource_type: "technician" }],
      booking_window: { min_notice: "PT2H", max_advance: "P60D" },
    },
  ],
  policies: {
    holds: {
      max_ttl: "PT10M",
      max_active_per_agent: 3,
      requires_mandate: true,
      max_active_unproven: 8,
      max_active_per_attester: 8,
    },
    confirmation: "instant",
    closed_mandate: "never",
    retention: "P365D",
  },
  capabilities: [
    "availability",
    "holds",
    "bookings",
    "cancel",
    "change_offers",
    "webhooks",
    "proposals",
    "closed_mandates",
    "attestations",
    "all_in_totals",
  ],
  auth: { request_signing: "rfc9421-ed25519", mandates: ["schcp-mandate+jwt", "dc+sd-jwt"] },
  trust: {
    attesters: [
      { id: "phonecheck.example", name: "PhoneCheck", keys: [{ kty: "OKP", crv: "Ed25519", x: X }] },
    ],
  },
  // §2.4
  brand: {
    id: "maple-street-group",
    name: "Maple Street Auto",
    locations: [
      {
        host_id: "maple-street-auto",
        name: "Queen St",
        discovery: "https://maplestreetauto.example/.well-known/scheduling.json",
      },
    ],
  },
});

/** §2.3 */
export const operatorDoc = () => ({
  schcp: "0.4",
  operator: { name: "Example Booking Platform", domain: "platform.example" },
  hosts: [
    {
      id: "fades-on-queen",
      discovery: "https://platform.example/m/fades-on-queen/scheduling.json",
      host_domain: null,
    },
  ],
});

/** §5.1 */
export const availabilityRequest = () => ({
  service_id: "oil-change",
  window: { start: "2026-10-15T12:00:00-04:00", end: "2026-10-15T17:00:00-04:00" },
  constraints: { resource: null, granularity: "PT15M" },
  limit: 20,
});

export const availabilityResponse = () => ({
  service_id: "oil-change",
  timezone: "America/Toronto",
  slots: [
    {
      start: "2026-10-15T13:00:00-04:00",
      end: "2026-10-15T13:45:00-04:00",
      price: cad("79.00"),
      total: cad("89.27"),
    },
    // §5.1: an open-ended slot, and an unpriced one.
    { start: "2026-10-17T12:00:00-04:00", open_end: true },
    { start: "2026-10-15T14:00:00-04:00", end: "2026-10-15T14:45:00-04:00" },
  ],
  as_of: "2026-10-13T21:00:00Z",
});

/** §5.2 */
export const holdRequest = () => ({
  service_id: "oil-change",
  start: "2026-10-15T13:00:00-04:00",
  ttl: "PT5M",
  idempotency_key: "6b0c1f2e-9a7d-4c1b-8e5f-0a2b3c4d5e6f",
  callback_url: "https://agent.example/hooks/schcp",
  party_size: 1,
});

export const hold = () => ({
  hold_id: "h_01J9ZB7",
  status: "held",
  service_id: "oil-change",
  start: "2026-10-15T13:00:00-04:00",
  end: "2026-10-15T13:45:00-04:00",
  expires_at: "2026-10-13T21:05:00Z",
  price: cad("79.00"),
  total: cad("89.27"),
  offer: JWS,
});

export const offer = () => ({
  v: "0.4",
  kind: "booking",
  iss: "maple-street-auto",
  hold_id: "h_01J9ZB7",
  iat: 1792000000,
  exp: 1792000300,
  host: { name: "Maple Street Auto", tz: "America/Toronto", domain: "maplestreetauto.example" },
  service: { id: "oil-change", name: "Synthetic oil change" },
  slot: { start: "2026-10-15T13:00:00-04:00", end: "2026-10-15T13:45:00-04:00" },
  price: cad("79.00"),
  total: cad("89.27"),
  lines: lines(),
  retention: "P365D",
});

export const playdateOffer = () => ({
  v: "0.4",
  kind: "booking",
  iss: "ellis-moreau",
  hold_id: "h_01J9ZC2",
  iat: 1792000000,
  exp: 1792000900,
  host: { name: "Ellis Moreau", tz: "America/Toronto", kind: "person", owner: PRINCIPAL },
  service: { id: "playdate", name: "Playdate" },
  slot: { start: "2026-10-17T12:00:00-04:00" },
  open_end: true,
  place: { name: "Trinity Bellwoods Park playground", locality: "Toronto" },
  approval_by: "2026-10-14T01:15:00Z",
  retention: "P30D",
});

/** §5.7: a change offer, with the reconfirm and chosen-resource claims filled in. */
export const changeOffer = () => {
  const { hold_id: _hold, ...terms } = offer();
  return {
    ...terms,
    kind: "change",
    booking_id: "b_01J9ZD4",
    prev: SHA,
    slot: { start: "2026-10-15T14:00:00-04:00", end: "2026-10-15T14:45:00-04:00" },
    reconfirm: { before: "PT24H", default: "release", confirm_by: "2026-10-14T18:00:00Z" },
    resource: "tech-3",
    resource_name: "Alex",
    party_size: 1,
  };
};

/** §5.3 */
export const confirmRequest = () => ({
  idempotency_key: "c2a9e1d4-7b3f-4e8a-9c6d-1f2e3a4b5c6d",
  offer_sha256: SHA,
  contact: { name: "Sam R.", phone: "+1-416-555-0100" },
  notes: "2019 Civic",
});

export const booking = () => ({
  booking_id: "b_01J9ZD4",
  status: "confirmed",
  sequence: 0,
  service_id: "oil-change",
  start: "2026-10-15T13:00:00-04:00",
  end: "2026-10-15T13:45:00-04:00",
  price: cad("79.00"),
  total: cad("89.27"),
  lines: lines(),
  offer_sha256: SHA,
  event: {
    "@type": "Event",
    uid: "b_01J9ZD4@maplestreetauto.example",
    start: "2026-10-15T13:00:00",
    timeZone: "America/Toronto",
    duration: "PT45M",
    title: "Synthetic oil change — Maple Street Auto",
    sequence: 0,
    updated: "2026-10-13T13:00:00Z",
    status: "confirmed",
  },
});

export const bookingResponse = () => ({ booking: booking(), receipt: JWS });

export const receipt = () => ({
  v: "0.4",
  iss: "maple-street-auto",
  iat: 1792000100,
  booking: booking(),
  offer_sha256: SHA,
  retention: "P365D",
  consent: { approved: "limits", mandate: "m-01J9Z8Q4W7", mode: "human_present" },
});

/** §3.3 */
export const mandate = () => ({
  iss: PRINCIPAL,
  sub: "principal-pseudonym-7f3a",
  aud: "maple-street-auto",
  iat: 1792000000,
  exp: 1792086400,
  jti: "m-01J9Z8Q4W7",
  cnf: { jkt: OTHER_SHA },
  principal_jwk: { kty: "OKP", crv: "Ed25519", x: X },
  scope: ["hold", "book", "cancel", "reschedule"],
  constraints: {
    services: ["oil-change"],
    window: { not_before: "2026-10-15T12:00:00-04:00", not_after: "2026-10-15T17:00:00-04:00" },
    max_price: cad("100.00"),
    max_bookings: 1,
  },
  consent: { mode: "human_present", statement: "Book my oil change Thursday afternoon, under $100." },
  contact: { name: "Sam R.", phone: "+1-416-555-0100" },
  status: "https://keyapp.example/status/m-01J9Z8Q4W7",
  attestations: [JWS],
});

/** §3.3 Attenuation: a delegated child. */
export const childMandate = () => {
  const { principal_jwk: _root, attestations: _a, ...rest } = mandate();
  return {
    ...rest,
    jti: "m-child-1",
    issuer_jwk: { kty: "OKP", crv: "Ed25519", x: X },
    parent: JWS,
    scope: ["book"],
  };
};

/** §7.5 */
export const attestation = () => ({
  iss: "phonecheck.example",
  sub: PRINCIPAL,
  iat: 1792000000,
  exp: 1794592000,
  assurance: "unique_phone",
});

/** §5.6, §5.7, §5.8, §5.10 */
export const cancelRequest = () => ({ idempotency_key: "k-cancel-1", reason: "Car sold" });
export const changeOfferRequest = () => ({
  idempotency_key: "k-change-1",
  sequence: 0,
  start: "2026-10-15T14:00:00-04:00",
  place: { name: "Home", street: "12 Shaw St", postal_code: "M6J 2W3", country: "CA" },
});
export const changeOfferResponse = () => ({
  proposal: {
    proposal_id: "p_01J9ZE1",
    start: "2026-10-15T14:00:00-04:00",
    end: "2026-10-15T14:45:00-04:00",
    expires_at: "2026-10-13T21:10:00Z",
    by: "guest",
    offer: JWS,
  },
});
export const rescheduleRequest = () => ({ idempotency_key: "k-resched-1", sequence: 0, offer_sha256: SHA });
export const proposalResponseRequest = () => ({
  idempotency_key: "k-prop-1",
  proposal_id: "p_01J9ZE1",
  accept: true,
  sequence: 1,
  offer_sha256: SHA,
});
export const respondRequest = () => ({ idempotency_key: "k-respond-1", accept: true, offer_sha256: SHA });

/** §5.9 */
export const waitlistRequest = () => ({
  idempotency_key: "k-wait-1",
  service_id: "haircut",
  window: { start: "2026-10-15T16:00:00-04:00", end: "2026-10-15T19:00:00-04:00" },
  callback_url: "https://agent.example/hooks/schcp",
});
export const waitlistEntry = () => ({
  waitlist_id: "w_01J9ZF0",
  status: "waiting",
  service_id: "haircut",
  window: { start: "2026-10-15T16:00:00-04:00", end: "2026-10-15T19:00:00-04:00" },
  position: 1,
  created_at: "2026-10-13T21:00:00Z",
});

/** §9 */
export const refusalExample = () => ({
  error: {
    code: "HOLD_LIMIT",
    reason: "new_guest_pool_full",
    message: "too many holds from new guests right now; try again shortly",
    basis: { policy: "holds.max_active_unproven", limit: 6 },
    retry: { after: "PT60S" },
    remedies: [
      { type: "attest", attesters: ["phonecheck.example"] },
      { type: "contact", phone: "+1-416-555-0177", url: "https://maplestreetauto.example/contact" },
    ],
  },
});

/** §5.8 */
export const webhookEvent = () => ({
  event_id: "e_01J9ZG3",
  type: "booking.cancelled_by_host",
  host_id: "maple-street-auto",
  booking: {
    ...booking(),
    status: "cancelled",
    sequence: 1,
    event: { ...booking().event, sequence: 1, status: "cancelled" },
    refusal: { code: "CANCELLED", reason: "host_cancelled", message: "The lift is broken today." },
  },
  receipt: JWS,
  alternatives: [{ start: "2026-10-16T13:00:00-04:00", end: "2026-10-16T13:45:00-04:00" }],
  occurred_at: "2026-10-14T12:00:00Z",
});

/** §5.12 */
export const meetingContract = () => ({
  v: "0.4",
  iss: PRINCIPAL,
  principal_jwk: { kty: "OKP", crv: "Ed25519", x: X },
  iat: 1792154400,
  exp: 1792197600,
  meeting_id: "mtg_01J9ZH",
  revision: 1,
  title: "Playdate",
  tz: "America/Toronto",
  start: "2026-10-17T12:00:00-04:00",
  open_end: true,
  place: { name: "Trinity Bellwoods Park playground", locality: "Toronto" },
  members: [
    {
      principal: PRINCIPAL,
      name: "Noor Haddad",
      host: "noor-haddad",
      domain: null,
      service_id: "playdate",
      offer_sha256: SHA,
    },
    {
      principal: `urn:schcp:principal:jwk-thumbprint:${OTHER_SHA}`,
      name: "Ellis Moreau",
      host: "ellis-moreau",
      domain: null,
      service_id: "playdate",
      offer_sha256: OTHER_SHA,
    },
    {
      principal: "urn:schcp:host:cafe-pamenar",
      name: "Café Pamenar",
      host: "cafe-pamenar",
      domain: "cafepamenar.example",
      service_id: "table-for-one",
      offer_sha256: SHA,
      business: true,
    },
  ],
  attendees: [{ name: "Mira", relationship: "child" }],
  answers: "person_or_rule",
  statement: "I approve: Playdate with Ellis Moreau (ellis-moreau), Saturday 17 October 2026 from 12:00 p.m.",
});
export const acceptance = () => ({
  iss: PRINCIPAL,
  iat: 1792158000,
  terms_sha256: SHA,
  meeting_id: "mtg_01J9ZH",
  by: "person",
  statement: "I accept: Playdate arranged by Noor Haddad (noor-haddad).",
  jwk: { kty: "OKP", crv: "Ed25519", x: X },
});
/** §7.9 */
export const rule = () => ({
  iss: PRINCIPAL,
  principal_jwk: { kty: "OKP", crv: "Ed25519", x: X },
  iat: 1792000000,
  exp: 1799776000,
  jti: "r-01J9ZJ",
  cnf: { jkt: JKT },
  label: "Weekend playdates with my contacts",
  services: ["playdate"],
  weekdays: ["sat", "sun"],
  tz: "America/Toronto",
});
export const commitRequest = () => ({
  idempotency_key: "k-commit-1",
  contract_sha256: SHA,
  acceptances: [JWS, JWS],
});
export const meetingRevisionRequest = () => ({ idempotency_key: "k-rev-1", sequence: 1, contract: JWS });
export const meetingWithdrawRequest = () => ({
  idempotency_key: "k-wd-1",
  contract_sha256: SHA,
  reason: "Priya can't make it.",
});
