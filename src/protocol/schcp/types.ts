/**
 * SchCP v0.4 wire shapes, as TypeScript types. They mirror the JSON Schemas in ./schemas/
 * (validateSchcp returns these types); the schemas are the authority on what is valid.
 * Strings that carry a grammar (durations, date-times, hashes) are aliased for reading only.
 */

import type { SchcpMoney } from "../money/money.js";
import type { Place } from "../place.js";

/** ISO 8601 duration in the SchCP grammar P[nW][nD][T[nH][nM][n[.n]S]] (§2.1). */
export type Duration = string;
/** Retention: weeks and/or days only, e.g. "P365D" (§2.1). */
export type Retention = string;
/** RFC 3339 date-time with Z or ±hh:mm (§2.1). */
export type DateTime = string;
/** Base64url (no padding) SHA-256: offer_sha256, contract_sha256, cnf.jkt (43 chars). */
type Sha256B64u = string;
/** A compact JWS (header.payload.signature). */
type CompactJws = string;
/** "urn:schcp:principal:jwk-thumbprint:<RFC 7638 thumbprint>" (§3.3). */
type PrincipalId = string;

/** Money (§2.1), declared once with its reading and arithmetic in protocol/money. */
export type { SchcpMoney };

/** An Ed25519 public key (OKP). SchCP signs with Ed25519 only outside §3.4. */
export interface Jwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid?: string;
  use?: "sig";
}

/** Where a booking happens when not at the host's (§5.2); declared in protocol/place. */
export type { Place };

/** An available start (§5.1). end is absent iff open_end (§4.2); price and total come together. */
export interface Slot {
  start: DateTime;
  end?: DateTime;
  open_end?: true;
  price?: SchcpMoney;
  total?: SchcpMoney;
}

type HostKind = "business" | "person";

// ---------------------------------------------------------------- discovery (§2)

export interface ServiceRequirement {
  resource_type: string;
  combine?: boolean;
  selectable?: boolean;
  [extra: string]: unknown;
}

export interface SurchargeRule {
  when: "same_day" | "weekend" | "after_hours";
  label: string;
  amount?: SchcpMoney;
  percent?: number;
  after?: string;
  [extra: string]: unknown;
}

export interface DiscoveryService {
  id: string;
  name: string;
  /** A Duration, or "open" for an open-ended service (§4.2). */
  duration: string;
  buffer_after?: Duration;
  /** A Duration, or "until_close" (the default, §4.2). */
  set_aside?: string;
  price?: SchcpMoney;
  price_per?: "person" | "booking";
  fees?: { label: string; amount: SchcpMoney; [extra: string]: unknown }[];
  tax_exempt?: boolean;
  surcharges?: SurchargeRule[];
  requires?: ServiceRequirement[];
  selectable?: boolean;
  booking_window?: {
    min_notice?: Duration;
    max_advance?: Duration;
    opens?: { days_ahead: number; at: string; [extra: string]: unknown };
    [extra: string]: unknown;
  };
  party_size?: { min: number; max: number; [extra: string]: unknown };
  location?: "host" | "guest" | "elsewhere";
  eligibility?: { guest: "returning" | "new"; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface DiscoveryPolicies {
  holds?: {
    max_ttl?: Duration;
    max_active_per_agent?: number;
    requires_mandate?: boolean;
    max_active_unproven?: number;
    max_active_per_attester?: number;
    [extra: string]: unknown;
  };
  confirmation?: "instant" | "host_approval";
  closed_mandate?: "never" | "always";
  retention: Retention;
  access?: "public" | "contacts";
  /** §5.3 free text: whether confirms may carry notes, and the host's own intake form. */
  data?: { free_text_notes?: "accept" | "refuse"; intake_url?: string; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** /.well-known/scheduling.json (§2.1). Not closed: agents ignore unknown members. */
export interface DiscoveryDocument {
  schcp: "0.4";
  host: {
    id: string;
    name: string;
    kind?: HostKind;
    timezone: string;
    url?: string;
    phone?: string;
    address?: Place & { [extra: string]: unknown };
    [extra: string]: unknown;
  };
  endpoint: string;
  operator: { domain: string; name?: string; [extra: string]: unknown } | null;
  keys: (Jwk & { kid: string })[];
  services: DiscoveryService[];
  policies: DiscoveryPolicies;
  capabilities?: string[];
  auth?: { request_signing?: string; mandates?: string[]; [extra: string]: unknown };
  trust?: { attesters?: { id: string; name?: string; keys: Jwk[]; [extra: string]: unknown }[] };
  brand?: {
    id: string;
    name: string;
    locations?: { host_id: string; name?: string; discovery: string; [extra: string]: unknown }[];
    [extra: string]: unknown;
  };
  [extra: string]: unknown;
}

/** An operator's list of hosts (§2.3). Not closed. */
export interface OperatorDocument {
  schcp: "0.4";
  operator: { name: string; domain: string; [extra: string]: unknown };
  hosts: { id: string; discovery: string; host_domain: string | null; [extra: string]: unknown }[];
  [extra: string]: unknown;
}

// ---------------------------------------------------------------- availability (§5.1)

interface TimeWindow {
  start: DateTime;
  end: DateTime;
}

export interface AvailabilityRequest {
  service_id: string;
  window: TimeWindow;
  constraints?: { resource?: string | null; granularity?: Duration };
  limit?: number;
  party_size?: number;
}

export interface AvailabilityResponse {
  service_id: string;
  timezone: string;
  slots: Slot[];
  as_of: DateTime;
}

// ---------------------------------------------------------------- holds and offers (§5.2)

export interface HoldRequest {
  service_id: string;
  start: DateTime;
  idempotency_key: string;
  ttl?: Duration;
  callback_url?: string;
  party_size?: number;
  resource?: string;
  place?: Place;
}

/** held -> released | expired; "confirmed" once a booking consumed it (§6). */
export type HoldStatus = "held" | "released" | "expired" | "confirmed";

export interface Hold {
  hold_id: string;
  status: HoldStatus;
  service_id: string;
  start: DateTime;
  end?: DateTime;
  open_end?: true;
  expires_at: DateTime;
  price?: SchcpMoney;
  total?: SchcpMoney;
  party_size?: number;
  place?: Place;
  resource?: string;
  resource_name?: string;
  offer: CompactJws;
}

export interface OfferLine {
  kind: "service" | "fee" | "surcharge" | "tax";
  label: string;
  amount: SchcpMoney;
}

type DefaultAction = "release" | "keep";

interface Reconfirm {
  before: Duration;
  default: DefaultAction;
  confirm_by?: DateTime;
}

interface OfferHost {
  name: string;
  tz: string;
  domain?: string;
  address?: string;
  kind?: HostKind;
  owner?: PrincipalId;
}

/** Claims of a schcp-offer+jwt (§5.2). Closed at every depth. */
export interface OfferClaims {
  v: "0.4";
  kind: "booking" | "change";
  iss: string;
  hold_id?: string;
  booking_id?: string;
  prev?: Sha256B64u | null;
  iat: number;
  exp: number;
  host?: OfferHost;
  service: { id: string; name: string };
  slot: { start: DateTime; end?: DateTime };
  open_end?: true;
  price?: SchcpMoney;
  total?: SchcpMoney;
  lines?: OfferLine[];
  retention: Retention;
  reconfirm?: Reconfirm;
  resource?: string;
  resource_name?: string;
  place?: Place;
  party_size?: number;
  approval_by?: DateTime;
}

// ---------------------------------------------------------------- confirm and bookings (§5.3, §5.5)

export interface Contact {
  name?: string;
  phone?: string;
  email?: string;
}

type ParticipantRole = "attendee" | "invitee" | "booker";

interface ParticipantRequest {
  who?: PrincipalId;
  name?: string;
  role: "attendee" | "invitee";
  relationship?: string;
  confirm_within?: Duration;
  default?: DefaultAction;
}

export type Answers = "person" | "person_or_rule";

export interface ConfirmRequest {
  idempotency_key: string;
  offer_sha256: Sha256B64u;
  contact?: Contact;
  notes?: string;
  participants?: ParticipantRequest[];
  meeting?: CompactJws;
  answers?: Answers;
}

type BookingStatus =
  "pending_host" | "tentative" | "confirmed" | "declined" | "expired" | "cancelled" | "completed" | "no_show";

/** RFC 8984 Location, as the schema lists it: a name and address on one line (§5.2). */
interface BookingEventLocation {
  "@type": "Location";
  name: string;
}

/** The JSCalendar (RFC 8984) Event of a booking: only the properties the schema lists. */
export interface BookingEvent {
  "@type": "Event";
  uid: string;
  /** RFC 8984 LocalDateTime: no offset, read in timeZone. */
  start: string;
  timeZone: string;
  duration: Duration;
  title: string;
  sequence: number;
  /** RFC 8984 UTCDateTime (ends in Z). */
  updated: DateTime;
  status: "confirmed" | "tentative" | "cancelled";
  locations?: Record<string, BookingEventLocation>;
}

interface Participant {
  who?: PrincipalId;
  name?: string;
  role: ParticipantRole;
  relationship?: string;
  confirm_by?: DateTime;
  default?: DefaultAction;
  status: "pending" | "accepted" | "declined" | "not_required";
}

export type ConsentMode = "human_present" | "human_not_present";

/** How the person agreed (§5.3). */
export interface ReceiptConsent {
  approved: "offer" | "contract" | "limits";
  mandate: string;
  mode?: ConsentMode;
}

/** An open change offer, or a guest's accepted move awaiting the host (§5.7, §5.8). */
export interface Proposal {
  proposal_id: string;
  by: "guest" | "host";
  start: DateTime;
  end?: DateTime;
  open_end?: true;
  place?: Place;
  expires_at: DateTime;
  offer: CompactJws;
  awaiting_host?: true;
  consent?: ReceiptConsent;
}

export interface DeclinedChange {
  proposal_id?: string;
  revision?: number;
  start: DateTime;
  end?: DateTime;
  place?: Place;
  refusal: RefusalError;
}

export interface BookingAnswer {
  by: "host" | "person" | "rule";
  rule?: string;
  at: DateTime;
}

interface PendingRevision {
  revision: number;
  contract_sha256: Sha256B64u;
  expires_at: DateTime;
  answered: boolean;
  acceptance?: CompactJws;
}

interface BookingMeeting {
  meeting_id: string;
  revision: number;
  contract_sha256: Sha256B64u;
  acceptance?: CompactJws;
  pending_revision?: PendingRevision;
}

/** A booking as GET /bookings/{id}, receipts and webhooks carry it (§5.3, §5.5). Closed. */
export interface Booking {
  booking_id: string;
  status: BookingStatus;
  sequence: number;
  service_id: string;
  start: DateTime;
  end?: DateTime;
  open_end?: true;
  price?: SchcpMoney;
  total?: SchcpMoney;
  lines?: OfferLine[];
  /** null for a booking made outside SchCP, which has no contract (§5.3). */
  offer_sha256: Sha256B64u | null;
  retention?: Retention;
  reconfirm?: Reconfirm;
  party_size?: number;
  place?: Place;
  resource?: string;
  resource_name?: string;
  approval_by?: DateTime;
  participants?: Participant[];
  event: BookingEvent;
  refusal?: RefusalError;
  proposal?: Proposal;
  declined_change?: DeclinedChange;
  answer?: BookingAnswer;
  meeting?: BookingMeeting;
}

/** Claims of a schcp-receipt+jwt (§5.3). Closed; offer_sha256 and consent come together. */
export interface ReceiptClaims {
  v: "0.4";
  iss: string;
  iat: number;
  booking: Booking;
  offer_sha256?: Sha256B64u;
  retention: Retention;
  consent?: ReceiptConsent;
}

export interface BookingResponse {
  booking: Booking;
  receipt: CompactJws;
  offer?: CompactJws;
  contract?: CompactJws;
  pending_contract?: CompactJws;
}

// ---------------------------------------------------------------- changes and answers (§5.6–§5.12)

export interface CancelRequest {
  idempotency_key: string;
  reason?: string;
}

export interface ChangeOfferRequest {
  idempotency_key: string;
  sequence: number;
  start?: DateTime;
  place?: Place;
}

export interface ChangeOfferResponse {
  proposal: Proposal;
}

export interface RescheduleRequest {
  idempotency_key: string;
  sequence: number;
  offer_sha256: Sha256B64u;
}

export interface ProposalResponseRequest {
  idempotency_key: string;
  proposal_id: string;
  accept: boolean;
  sequence: number;
  offer_sha256?: Sha256B64u;
}

export interface RespondRequest {
  idempotency_key: string;
  accept: boolean;
  offer_sha256: Sha256B64u;
}

export interface CommitRequest {
  idempotency_key: string;
  contract_sha256: Sha256B64u;
  acceptances: CompactJws[];
}

export interface MeetingRevisionRequest {
  idempotency_key: string;
  sequence: number;
  contract: CompactJws;
}

export interface MeetingWithdrawRequest {
  idempotency_key: string;
  contract_sha256: Sha256B64u;
  reason: string;
}

// ---------------------------------------------------------------- waitlist (§5.9)

export interface WaitlistRequest {
  idempotency_key: string;
  service_id: string;
  window: TimeWindow;
  callback_url?: string;
  party_size?: number;
  place?: Place;
}

type WaitlistStatus = "waiting" | "offered" | "booked" | "left" | "lapsed" | "expired";

export interface WaitlistEntry {
  waitlist_id: string;
  status: WaitlistStatus;
  service_id: string;
  window: TimeWindow;
  position?: number;
  created_at: DateTime;
  party_size?: number;
  place?: Place;
  hold_id?: string;
}

// ---------------------------------------------------------------- webhooks (§5.8)

type WebhookEventType =
  | "booking.confirmed"
  | "booking.declined"
  | "booking.expired"
  | "booking.cancelled_by_host"
  | "booking.change_proposed"
  | "booking.ended"
  | "booking.no_show"
  | "booking.change_approved"
  | "booking.change_declined"
  | "booking.response"
  | "booking.accepted"
  | "hold.expired"
  | "waitlist.offered";

export interface WebhookEvent {
  event_id: string;
  type: WebhookEventType;
  host_id: string;
  occurred_at: DateTime;
  booking?: Booking;
  receipt?: CompactJws;
  hold?: Hold;
  waitlist?: WaitlistEntry;
  alternatives?: Slot[];
  refusal?: RefusalError;
}

// ---------------------------------------------------------------- mandates (§3.3) and attestations (§7.5)

export type MandateScope = "hold" | "book" | "cancel" | "reschedule" | "delegate";

export interface MandateConstraints {
  services?: string[];
  window?: { not_before?: DateTime; not_after?: DateTime };
  max_price?: SchcpMoney;
  max_bookings?: number;
  bookings?: string[];
  offer_sha256?: Sha256B64u;
  shared_limit?: boolean;
}

/** Claims of a schcp-mandate+jwt. A root carries principal_jwk; a child issuer_jwk and parent. */
export interface MandateClaims {
  iss: PrincipalId;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  jti: string;
  cnf: { jkt: Sha256B64u };
  principal_jwk?: Jwk;
  issuer_jwk?: Jwk;
  parent?: CompactJws;
  scope: MandateScope[];
  constraints?: MandateConstraints;
  consent?: { mode: ConsentMode; statement?: string };
  contact?: Contact;
  status?: string;
  attestations?: CompactJws[];
}

export interface AttestationClaims {
  iss: string;
  sub: PrincipalId;
  iat: number;
  exp: number;
  assurance: string;
}

// ---------------------------------------------------------------- meetings and rules (§5.12, §7.9)

export interface MeetingMember {
  principal: string;
  name: string;
  host: string;
  domain: string | null;
  service_id: string;
  offer_sha256: Sha256B64u;
  business?: true;
  answers?: Answers;
}

export interface MeetingContractClaims {
  v: "0.4";
  iss: PrincipalId;
  principal_jwk: Jwk;
  iat: number;
  exp: number;
  meeting_id: string;
  revision: number;
  title: string;
  tz: string;
  start: DateTime;
  end?: DateTime;
  open_end?: true;
  place: Place;
  members: MeetingMember[];
  attendees?: { name: string; relationship?: string }[];
  answers?: Answers;
  statement: string;
}

export interface AcceptanceClaims {
  iss: PrincipalId;
  iat: number;
  terms_sha256: Sha256B64u;
  meeting_id?: string;
  by: "person" | "rule";
  statement?: string;
  jwk: Jwk;
  rule?: CompactJws;
}

type Weekday = "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";

export interface RuleClaims {
  iss: PrincipalId;
  principal_jwk: Jwk;
  iat: number;
  exp: number;
  jti: string;
  cnf: { jkt: Sha256B64u };
  label: string;
  services?: string[];
  weekdays?: Weekday[];
  tz?: string;
  organizers?: PrincipalId[];
}

// ---------------------------------------------------------------- refusals (§9.2)

export type Remedy =
  | { type: "contact"; phone?: string; url?: string }
  | { type: "attest"; attesters: string[] }
  | { type: "approve_offer"; offer_sha256: Sha256B64u }
  | { type: "retry"; after: Duration };

/** The inner refusal object; also a booking's refusal and declined_change.refusal. */
export interface RefusalError {
  code: string;
  reason: string;
  message: string;
  basis?: Record<string, unknown>;
  retry?: { after: Duration };
  remedies?: Remedy[];
  details?: Record<string, unknown>;
}

/** Every refusal on the wire: { error: { code, reason, message, ... } } (§9). */
export interface RefusalBody {
  error: RefusalError;
}
