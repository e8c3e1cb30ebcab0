/**
 * The refusal registry and constructor (SchCP §9, §9.2): one shape for every refusal, with a
 * code (the class), a registered reason under it (the first is the default), a message for a
 * person, and optional basis, retry, remedies and details.
 *
 * specNamed marks codes the spec itself names. The others (NOT_FOUND, RATE_LIMITED,
 * UPSTREAM_UNAVAILABLE) and reasons the spec never names (e.g. payment_not_accepted,
 * party_size, not_in_scope) are the gateway's own registrations, agreed for the whole team.
 */
import type { Duration, RefusalBody, RefusalError, Remedy } from "./types.js";

interface RegistryEntry {
  /** HTTP status; null for booking refusals, which travel inside a booking (§9.2). */
  readonly status: number | null;
  readonly reasons: readonly string[];
  readonly specNamed: boolean;
}

const entry = <const S extends number | null, const R extends readonly string[]>(
  status: S,
  reasons: R,
  specNamed = true,
) => ({
  status,
  reasons,
  specNamed,
});

export const REFUSALS = {
  // payment_not_accepted and party_size are ours (§8 names the 400, §4.1 the party rule).
  INVALID_REQUEST: entry(400, [
    "invalid_request",
    "payment_not_accepted",
    "window_too_short",
    "meeting_invalid",
    "acceptance_invalid",
    "person_required",
    "party_size",
  ]),
  BAD_SIGNATURE: entry(401, ["bad_signature", "stale_signature", "replayed_nonce"]),
  MANDATE_INVALID: entry(401, ["mandate_invalid", "mandate_expired"]),
  // not_in_scope, service_not_allowed and booking_not_allowed are ours (§3.3 steps 5–6).
  MANDATE_SCOPE: entry(403, ["not_in_scope", "service_not_allowed", "booking_not_allowed"]),
  // outside_window, over_max_price, currency_mismatch, max_bookings_reached, offer_mismatch are ours.
  MANDATE_LIMIT: entry(403, [
    "outside_window",
    "over_max_price",
    "currency_mismatch",
    "max_bookings_reached",
    "shared_limit_reached",
    "offer_mismatch",
  ]),
  OFFER_APPROVAL_REQUIRED: entry(403, ["closed_approval_required"]),
  NOT_PERMITTED: entry(403, ["not_a_contact"]),
  NOT_ELIGIBLE: entry(403, ["returning_guests_only", "new_guests_only"]),
  NOT_FOUND: entry(404, ["not_found"], false),
  SLOT_UNAVAILABLE: entry(409, ["slot_taken", "walk_in_reserve", "availability_unknown"]),
  CONTRACT_MISMATCH: entry(409, ["contract_mismatch"]),
  STALE_SEQUENCE: entry(409, ["stale_sequence"]),
  INVALID_STATE: entry(409, ["invalid_state", "already_started", "awaiting_members"]),
  IDEMPOTENCY_CONFLICT: entry(409, ["idempotency_conflict"]),
  OUTSIDE_BOOKING_WINDOW: entry(422, [
    "outside_booking_window",
    "min_notice",
    "max_advance",
    "not_yet_released",
    "too_soon",
  ]),
  OUT_OF_SERVICE_AREA: entry(422, ["outside_service_area", "place_required"]),
  DATA_NOT_ACCEPTED: entry(422, ["free_text_notes"]),
  HOLD_LIMIT: entry(429, [
    "agent_limit",
    "new_guest_pool_full",
    "attester_pool_full",
    "mandate_limit",
    "waitlist_limit",
    "holds_suspended",
  ]),
  RATE_LIMITED: entry(429, ["rate_limited"], false),
  // payment_required is ours: the host's booking system books this only against a payment made
  // up front, which SchCP never carries (§8); its contact remedy links the host's own checkout.
  UNSUPPORTED: entry(501, ["unsupported", "payment_required"]),
  // host_needs_reconnection: the upstream refused the host's credentials; no retry helps
  // until the business reconnects it (src/booking/hosts/refusals.ts).
  UPSTREAM_UNAVAILABLE: entry(
    503,
    ["upstream_unavailable", "upstream_rate_limited", "host_needs_reconnection"],
    false,
  ),
  // The gateway's own fault: logged, and the agent may try again later.
  INTERNAL_ERROR: entry(500, ["internal_error"], false),
  // Booking refusals (§9.2 "the refusal on a declined, host-cancelled or lapsed booking").
  DECLINED: entry(null, ["host_declined", "participant_declined", "organizer_withdrew"]),
  EXPIRED: entry(null, [
    "host_did_not_answer",
    "not_reconfirmed",
    "participant_did_not_answer",
    "meeting_incomplete",
  ]),
  CANCELLED: entry(null, ["host_cancelled"]),
} as const satisfies Record<string, RegistryEntry>;

export type RefusalCode = keyof typeof REFUSALS;
export type RefusalReason<C extends RefusalCode> = (typeof REFUSALS)[C]["reasons"][number];
/** A code answered as an HTTP error (booking refusals have no status of their own). */
export type HttpRefusalCode = {
  [C in RefusalCode]: (typeof REFUSALS)[C]["status"] extends number ? C : never;
}[RefusalCode];

export const REFUSAL_CODES = Object.keys(REFUSALS) as RefusalCode[];

/** "host_declined:*": host_declined, optionally followed by ":" and a host-specific suffix. */
const HOST_DECLINED_SUFFIXED = /^host_declined:[A-Za-z0-9_.-]+$/;

function isRefusalCode(code: string): code is RefusalCode {
  return Object.prototype.hasOwnProperty.call(REFUSALS, code);
}

export function isRegisteredReason(code: string, reason: string): boolean {
  if (!isRefusalCode(code)) return false;
  const reasons: readonly string[] = REFUSALS[code].reasons;
  if (reasons.includes(reason)) return true;
  return code === "DECLINED" && HOST_DECLINED_SUFFIXED.test(reason);
}

const DEFAULT_MESSAGES: Record<RefusalCode, string> = {
  INVALID_REQUEST: "the request is not valid",
  BAD_SIGNATURE: "the request signature could not be verified",
  MANDATE_INVALID: "the mandate is not valid",
  MANDATE_SCOPE: "the mandate does not allow this action",
  MANDATE_LIMIT: "the mandate's limits do not allow this",
  OFFER_APPROVAL_REQUIRED: "the person must approve this exact offer",
  NOT_PERMITTED: "this host accepts requests from its contacts only",
  NOT_ELIGIBLE: "this service is not open to this guest",
  NOT_FOUND: "not found",
  SLOT_UNAVAILABLE: "that time is not available",
  CONTRACT_MISMATCH: "the hash does not name the current contract",
  STALE_SEQUENCE: "the booking has changed since; read it again",
  INVALID_STATE: "the booking or hold is not in a state that allows this",
  IDEMPOTENCY_CONFLICT: "this idempotency key was used with a different request",
  OUTSIDE_BOOKING_WINDOW: "that time is outside the booking window",
  OUT_OF_SERVICE_AREA: "that place is outside the service area",
  DATA_NOT_ACCEPTED: "this host does not accept free-text notes",
  HOLD_LIMIT: "too many holds right now; try again shortly",
  RATE_LIMITED: "too many requests; try again shortly",
  UNSUPPORTED: "this host does not support that",
  UPSTREAM_UNAVAILABLE: "the host's booking system is not answering; try again shortly",
  INTERNAL_ERROR: "the gateway failed to answer this request; it has been logged",
  DECLINED: "the booking was declined",
  EXPIRED: "the booking lapsed",
  CANCELLED: "the host cancelled the booking",
};

export interface RefusalOptions<C extends RefusalCode> {
  reason?: RefusalReason<C> | (C extends "DECLINED" ? `host_declined:${string}` : never);
  message?: string;
  basis?: Record<string, unknown>;
  retry?: { after: Duration };
  remedies?: Remedy[];
  details?: Record<string, unknown>;
}

/**
 * Builds a refusal. status is the HTTP status (null for booking refusals). An unregistered
 * reason is a programmer error, so it throws instead of putting an unknown reason on the wire.
 */
export function refusal<C extends RefusalCode>(
  code: C,
  opts: RefusalOptions<C> = {},
): { status: (typeof REFUSALS)[C]["status"]; body: RefusalBody } {
  const registered = REFUSALS[code];
  const reason: string = opts.reason ?? registered.reasons[0];
  if (!isRegisteredReason(code, reason)) {
    throw new Error(`refusal: "${reason}" is not a registered reason under ${code} (SchCP §9.2)`);
  }
  const error: RefusalError = { code, reason, message: opts.message ?? DEFAULT_MESSAGES[code] };
  if (opts.basis !== undefined) error.basis = opts.basis;
  if (opts.retry !== undefined) error.retry = { after: opts.retry.after };
  if (opts.remedies !== undefined && opts.remedies.length > 0) error.remedies = [...opts.remedies];
  if (opts.details !== undefined) error.details = opts.details;
  return { status: registered.status, body: { error } };
}

/**
 * §9.2: "Every refusal offers a non-agent way to reach the host, a contact remedy with the
 * phone or url the host publishes in discovery, when it publishes one." Returns a new body
 * with that remedy added (or replacing an earlier contact remedy); unchanged if neither is set.
 * A url the refusal's own contact remedy already carries is kept over the published one: it is
 * the link the host gave for this refusal (§8: a checkout "through a link it gives in a
 * refusal's contact remedy").
 */
export function withContactRemedy(body: RefusalBody, contact: { phone?: string; url?: string }): RefusalBody {
  if (contact.phone === undefined && contact.url === undefined) return body;
  const given = body.error.remedies?.find((r) => r.type === "contact")?.url;
  const remedy: Remedy = { type: "contact" };
  if (contact.phone !== undefined) remedy.phone = contact.phone;
  const url = given ?? contact.url;
  if (url !== undefined) remedy.url = url;
  const others = (body.error.remedies ?? []).filter((r) => r.type !== "contact");
  return { error: { ...body.error, remedies: [...others, remedy] } };
}
