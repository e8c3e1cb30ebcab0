/**
 * Every OSBP v0.1.0 wire shape (OSBP "Core Objects", "Tool Set", "Result Envelope",
 * "Audit", "Adapter Contract"). Member names are the wire names, so these types are also
 * the JSON the tools exchange.
 *
 * Where the spec only names a field (Service.options, provider_image_url, schedule_hours)
 * the type here is the smallest one its prose supports; those choices are marked.
 */
import type { OsbpMoney } from "../money/index.js";
import type { IsoWeekday } from "../time/index.js";
import type { Problem } from "./problems.js";

// Declared with its codes (problems.ts), which import nothing of this file back.
export type { Problem };
import type { ToolName } from "./tool-names.js";
import type { PlatformIdentity, UpstreamMeta } from "../upstream-meta.js";

export type { OsbpMoney };

/** RFC 3339 instant with Z or an explicit offset ("2026-05-05T20:00:00Z"). OSBP "Time Discipline". */
type InstantString = string;
/** Merchant-local wall-clock without offset ("2026-05-05T13:00:00"). OSBP "Time Discipline". */
type WallClockString = string;
/** ISO 8601 duration ("PT45M"). */
type DurationString = string;

/**
 * Operating hours (OSBP "Time Discipline"): "HH:MM" wall-clock in the location's zone; a
 * close earlier than open continues into the next day (20:00–02:00). Display context only.
 */
export interface ScheduleHours {
  /** ISO 8601 weekday: 1 = Monday … 7 = Sunday, not the JS getDay convention. */
  day: IsoWeekday;
  open: string;
  close: string;
}

/** A variant or add-on, for display only: booking.create has no option selector. */
interface ServiceOption {
  id?: string;
  name: string;
  description?: string;
  duration?: DurationString;
  price?: OsbpMoney;
}

export interface Service {
  id: string;
  name: string;
  description?: string;
  duration?: DurationString;
  price?: OsbpMoney;
  /** true routes booking to a merchant approval queue: requires_consultation_handoff. */
  requires_consultation?: boolean;
  options?: ServiceOption[];
}

/** One bookable opening (OSBP "availability.find"). starts_at is absent when the zone is unknown. */
export interface Slot {
  id: string;
  organization_id: string;
  schedule_id: string;
  schedule_name?: string;
  /** The schema's denormalized context (OSBP schema document "Slot"). */
  schedule_address?: string;
  schedule_latitude?: number;
  schedule_longitude?: number;
  organization_name?: string;
  /** IANA zone name ("America/Los_Angeles"). */
  schedule_timezone?: string;
  provider_id?: string;
  provider_name?: string;
  /** A likeness (usually a photo of a named person): redacted from audit events. */
  provider_image_url?: string;
  service_id: string;
  starts_at?: InstantString;
  ends_at?: InstantString;
  starts_at_local: WallClockString;
  ends_at_local: WallClockString;
  price?: OsbpMoney;
  schedule_hours?: ScheduleHours[];
}

export type PaymentRequirement = "none" | "deposit" | "full_prepay" | "unknown";

/** OSBP v0.1.0 enum; future methods are additive. */
export type VerificationMethod = "sms" | "email" | "none" | "unknown";

/** The policy.explain organization block. country is ISO 3166-1 alpha-2. */
export interface PolicyOrganization {
  id: string;
  name: string;
  /** IANA zone name. */
  timezone: string;
  /** ISO 4217 code. */
  currency: string;
  country?: string;
}

export interface Policy {
  service_id: string;
  cancellation_enabled?: boolean;
  cancellation_window?: DurationString;
  cancellation_note?: string;
  late_grace?: DurationString;
  /** Present only when the platform reports an amount; surfaced, not capped by the mandate. */
  cancellation_fee?: OsbpMoney;
  no_show_fee?: OsbpMoney;
  payment_requirement: PaymentRequirement;
  deposit?: OsbpMoney;
  verification_method?: VerificationMethod;
  organization?: PolicyOrganization;
}

/**
 * Appointment state as the platform reports it. The spec shows only "booked"; the others are
 * the states a system of record commonly reports, and "unknown" is the fail-closed mapping
 * for anything an adapter cannot classify (never guess "booked").
 */
export type BookingStatus = "booked" | "pending" | "cancelled" | "no_show" | "completed" | "unknown";

export interface Booking {
  id: string;
  status: BookingStatus;
  service_id?: string;
  schedule_id?: string;
  provider_id?: string;
  starts_at?: InstantString;
  ends_at?: InstantString;
  starts_at_local?: WallClockString;
  ends_at_local?: WallClockString;
  schedule_timezone?: string;
}

/** OSBP's proof of creation; the platform's appointment stays authoritative. */
export interface Receipt {
  id: string;
  booking_id: string;
  text: string;
}

/** verification.send sets `sent`, verification.verify sets `verified`. */
export interface VerificationChallenge {
  sent?: boolean;
  verified?: boolean;
  method: VerificationMethod;
  /** Convention: "booking:{organization_id}". */
  purpose: string;
}

export interface HandoffResult {
  status: "requires_human";
  reason: string;
  message: string;
  mandate_id?: string;
}

/** The only action v0.1.0 defines. */
export type MandateAction = "booking.create";

/** OSBP "BookingMandate": unsigned JSON in v0.1.0, validated field by field before mutation. */
export interface BookingMandate {
  id: string;
  expires_at: InstantString;
  /** May name actions a later version defines; only "booking.create" authorizes anything here. */
  allowed_actions: string[];
  organization_id: string;
  /** Omitted = unconstrained; [] = allows nothing. */
  service_ids?: string[];
  provider_ids?: string[];
  schedule_ids?: string[];
  earliest_start: WallClockString;
  latest_end: WallClockString;
  max_price: OsbpMoney;
  /** Absent is false: fail closed. */
  allow_policy_fee?: boolean;
  max_extra_fee?: OsbpMoney;
}

/** Contact as the platform will receive it: E.164 phone, RFC 5322 email, light names. */
export interface Customer {
  id?: string;
  display_name?: string;
  given_name?: string;
  family_name?: string;
  phone?: string;
  email?: string;
}

interface Approval {
  confirmed: boolean;
  token: string;
}

interface ServiceDescribeInput {
  service_id?: string;
}

interface AvailabilityFindInput {
  service_id?: string;
  schedule_id?: string;
  /** Merchant-local "YYYY-MM-DD". */
  date: string;
  provider_id?: string;
}

interface PolicyExplainInput {
  service_id: string;
}

interface VerificationSendInput {
  customer: Customer;
  purpose: string;
}

interface VerificationVerifyInput {
  customer: Customer;
  purpose: string;
  code: string;
}

export interface BookingCreateInput {
  mandate: BookingMandate;
  idempotency_key: string;
  service_id: string;
  schedule_id: string;
  provider_id?: string;
  /** Merchant-local date and time from the slot's starts_at_local. */
  date: string;
  time: string;
  customer: Customer;
  /** Transient: excluded from the payload hash. */
  approval?: Approval;
  /** Transient: excluded from the payload hash, never persisted. */
  verification_code?: string;
}

interface BookingStatusInput {
  booking_id: string;
  customer?: Customer;
}

export interface HandoffRequestInput {
  reason: string;
  message: string;
  mandate_id?: string;
}

/** Tool name -> input and success value, for generic edges. */
export interface ToolInputs {
  "service.describe": ServiceDescribeInput;
  "availability.find": AvailabilityFindInput;
  "policy.explain": PolicyExplainInput;
  "verification.send": VerificationSendInput;
  "verification.verify": VerificationVerifyInput;
  "booking.create": BookingCreateInput;
  "booking.status": BookingStatusInput;
  "handoff.request": HandoffRequestInput;
}

export interface ToolValues {
  "service.describe": Service;
  "availability.find": Slot[];
  "policy.explain": Policy;
  "verification.send": VerificationChallenge;
  "verification.verify": VerificationChallenge;
  "booking.create": Receipt;
  "booking.status": Booking;
  "handoff.request": HandoffResult;
}

/** Diagnostics about how a response was produced, not booking truth. */
export interface AdapterRuntimeDiagnostics {
  idempotency?: "local_cache_replay";
  message?: string;
}

export type AdapterResult<T> =
  | { ok: true; value: T; osbp_runtime?: AdapterRuntimeDiagnostics }
  | { ok: false; problem: Problem; osbp_runtime?: AdapterRuntimeDiagnostics };

/** The envelope every tool returns (OSBP "Result Envelope"). */
export type ToolResult<T> =
  | { ok: true; value: T; audit_event_id: string; osbp_runtime?: AdapterRuntimeDiagnostics }
  | { ok: false; problem: Problem; audit_event_id: string; osbp_runtime?: AdapterRuntimeDiagnostics };

/** OSBP "Audit": PlatformIdentity and UpstreamMeta, declared in protocol/upstream-meta. */
export type { PlatformIdentity, UpstreamMeta };

/** The seven-method Adapter Contract, exactly as OSBP "Adapter Contract" states it. */
export interface BookingAdapter {
  readonly platform?: PlatformIdentity;
  readonly upstreamMeta?: UpstreamMeta;
  describeService(input: ServiceDescribeInput): Promise<AdapterResult<Service>>;
  findAvailability(input: AvailabilityFindInput): Promise<AdapterResult<Slot[]>>;
  explainPolicy(input: PolicyExplainInput): Promise<AdapterResult<Policy>>;
  sendVerification(input: VerificationSendInput): Promise<AdapterResult<VerificationChallenge>>;
  verifyCode(input: VerificationVerifyInput): Promise<AdapterResult<VerificationChallenge>>;
  createBooking(input: BookingCreateInput): Promise<AdapterResult<Receipt>>;
  getBooking(input: BookingStatusInput): Promise<AdapterResult<Booking>>;
}

/** One local audit record (OSBP "Audit"): redacted snapshots plus hex SHA-256 of each. */
export interface AuditEvent {
  id: string;
  mandate_id?: string;
  tool_name: ToolName;
  /** RFC 3339 instant. */
  created_at: InstantString;
  source: string;
  input: unknown;
  result: unknown;
  input_hash: string;
  result_hash: string;
  platform?: PlatformIdentity;
  /** Absent when the tool answered locally (idempotency replay, handoff.request). */
  upstream?: UpstreamMeta;
}
