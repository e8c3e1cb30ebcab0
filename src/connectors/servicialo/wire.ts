/**
 * Servicialo v1.2.0 REST payloads (specs/servicialo-a2a-v1.2.0.md "Intent Reference"), read
 * tolerantly: unknown members are ignored, and only what the connector relies on is checked.
 */
import type { UpstreamStatus } from "../ports/bookings.js";
import { fromMajorUnits, type Money } from "../../protocol/money/index.js";

interface WireService {
  readonly id: string;
  readonly name: string;
  /** "numeric string" in whole currency units (the example shows a number; both are read). */
  readonly price?: string | number;
  readonly currency?: string;
  readonly modality?: string;
  readonly duration_minutes: number | null;
}

export interface WireServices {
  readonly organization: {
    readonly name: string;
    readonly slug?: string;
    /**
     * Not in v1.2.0 "1. list_services": a member this gateway's own A2A edge adds (src/edges/a2a),
     * "host_approval" when the business accepts each booking itself. Read when present.
     */
    readonly confirmation?: "instant" | "host_approval";
  };
  readonly services: readonly WireService[];
}

interface WireSlot {
  readonly start: string;
  readonly end: string;
  readonly providerId?: string;
  /**
   * Not in v1.2.0 "2. check_availability" (Slot Result Fields: start, end, and provider or
   * date): members this gateway's own A2A edge adds (src/edges/a2a/intents/availability.ts), the
   * all-in total of a booking at that start, surcharges and taxes included. "Consumers MUST
   * ignore fields they don't understand", so a platform may send them or not; read raw here,
   * checked by readStatedTotal.
   */
  readonly price?: string | number;
  readonly currency?: string;
}

export interface WireAvailability {
  readonly slots: readonly WireSlot[];
  readonly timezone: string;
  /** Single-day mode only: why a day has no slots. */
  readonly reason?: string;
}

export interface WireSession {
  readonly id: string;
  readonly status?: string;
  readonly derived_state?: string;
  readonly scheduled_at: string;
  readonly duration_minutes?: number;
  /** Not in v1.2.0 "3. book_session" Response Fields: the total this gateway's A2A edge records. */
  readonly price?: string | number;
  readonly currency?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const amountOf = (v: unknown): string | number | undefined =>
  typeof v === "string" || typeof v === "number" ? v : undefined;

/** A slot's or a session's raw price members, when present. */
function priceMembers(v: Record<string, unknown>): { price?: string | number; currency?: string } {
  const price = amountOf(v["price"]);
  const currency = str(v["currency"]);
  return {
    ...(price !== undefined ? { price } : {}),
    ...(currency !== undefined ? { currency } : {}),
  };
}

/**
 * An amount a platform states for a slot or a session, as Money: a non-negative decimal in
 * whole currency units ("numeric string", as the service `price` of "1. list_services"), in an
 * ISO 4217 currency, and in `expected` (the service's listed currency) when that is known.
 * Anything else (negative, not a number, another or no currency) is not read: the caller then
 * prices the start itself, as it would for a platform that states nothing.
 */
export function readStatedTotal(
  w: { readonly price?: string | number; readonly currency?: string },
  expected: string | undefined,
): Money | undefined {
  if (w.price === undefined || w.currency === undefined) return undefined;
  if (expected !== undefined && w.currency !== expected) return undefined;
  if (typeof w.price === "number" && !(Number.isFinite(w.price) && w.price >= 0)) return undefined;
  const minor = fromMajorUnits(typeof w.price === "string" ? w.price.trim() : w.price, w.currency, "");
  if (!minor.ok || !Number.isSafeInteger(minor.value) || minor.value < 0) return undefined;
  return { minor: minor.value, currency: w.currency };
}

export function readServices(body: unknown): WireServices | undefined {
  if (!isObject(body) || !Array.isArray(body["services"]) || !isObject(body["organization"]))
    return undefined;
  const orgName = str(body["organization"]["name"]);
  if (orgName === undefined) return undefined;
  const confirmation = body["organization"]["confirmation"];
  const services: WireService[] = [];
  for (const s of body["services"]) {
    if (!isObject(s)) return undefined;
    const id = str(s["id"]);
    const name = str(s["name"]);
    const d = s["duration_minutes"];
    if (id === undefined || name === undefined) return undefined;
    const price = s["price"];
    services.push({
      id,
      name,
      duration_minutes: typeof d === "number" && Number.isInteger(d) && d > 0 ? d : null,
      ...(typeof price === "string" || typeof price === "number" ? { price } : {}),
      ...(str(s["currency"]) !== undefined ? { currency: str(s["currency"]) } : {}),
      ...(str(s["modality"]) !== undefined ? { modality: str(s["modality"]) } : {}),
    });
  }
  return {
    organization: {
      name: orgName,
      ...(confirmation === "instant" || confirmation === "host_approval" ? { confirmation } : {}),
    },
    services,
  };
}

function readSlot(v: unknown, providerId: string | undefined): WireSlot | undefined {
  if (!isObject(v)) return undefined;
  const start = str(v["start"]);
  const end = str(v["end"]);
  if (start === undefined || end === undefined) return undefined;
  const own = isObject(v["provider"]) ? str(v["provider"]["id"]) : undefined;
  const provider = own ?? providerId;
  return { start, end, ...(provider !== undefined ? { providerId: provider } : {}), ...priceMembers(v) };
}

/** Either shape: single day (`available_slots`, `provider`, `reason`) or multi-day (`slots`). */
export function readAvailability(body: unknown): WireAvailability | undefined {
  if (!isObject(body)) return undefined;
  const timezone = str(body["timezone"]);
  if (timezone === undefined) return undefined;
  const dayProvider = isObject(body["provider"]) ? str(body["provider"]["id"]) : undefined;
  const list = Array.isArray(body["available_slots"])
    ? body["available_slots"]
    : Array.isArray(body["slots"])
      ? body["slots"]
      : undefined;
  if (list === undefined) return undefined;
  const slots: WireSlot[] = [];
  for (const raw of list) {
    const slot = readSlot(raw, dayProvider);
    if (slot === undefined) return undefined;
    slots.push(slot);
  }
  const reason = str(body["reason"]);
  return { slots, timezone, ...(reason !== undefined ? { reason } : {}) };
}

export function readBooked(body: unknown): WireSession | undefined {
  if (!isObject(body) || !isObject(body["session"])) return undefined;
  const s = body["session"];
  const id = str(s["id"]);
  const at = str(s["scheduled_at"]);
  if (id === undefined || at === undefined) return undefined;
  const d = s["duration_minutes"];
  return {
    id,
    scheduled_at: at,
    ...(str(s["status"]) !== undefined ? { status: str(s["status"]) } : {}),
    ...(str(s["derived_state"]) !== undefined ? { derived_state: str(s["derived_state"]) } : {}),
    ...(typeof d === "number" ? { duration_minutes: d } : {}),
    ...priceMembers(s),
  };
}

export function readRescheduled(body: unknown): WireSession | undefined {
  if (!isObject(body)) return undefined;
  const id = str(body["sessionId"]);
  const at = str(body["scheduledAt"]);
  if (id === undefined || at === undefined) return undefined;
  const d = body["duration"];
  return {
    id,
    scheduled_at: at,
    ...(str(body["status"]) !== undefined ? { status: str(body["status"]) } : {}),
    ...(typeof d === "number" ? { duration_minutes: d } : {}),
  };
}

export function readCancelled(body: unknown): { readonly sessionId: string } | undefined {
  if (!isObject(body) || str(body["sessionId"]) === undefined || body["status"] !== "cancelled")
    return undefined;
  return { sessionId: body["sessionId"] as string };
}

/** The error envelope ("Error Reference"): `error` text and, for some, a machine `code`. */
export function readError(body: unknown): {
  readonly error?: string;
  readonly code?: string;
  readonly currentStatus?: string;
} {
  if (!isObject(body)) return {};
  const error = str(body["error"]);
  const code = str(body["code"]);
  const current = str(body["current_status"]);
  return {
    ...(error !== undefined ? { error } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(current !== undefined ? { currentStatus: current } : {}),
  };
}

/**
 * "Lifecycle States": the Spanish wire value of `derived_state` (and the internal `status` of
 * book and reschedule answers) to the core's states. Delivered milestones (4-8) are completed;
 * disputed, rescheduling and reassigning have no core state and read as unknown.
 */
const STATES: Readonly<Record<string, UpstreamStatus>> = {
  solicitado: "tentative",
  agendado: "confirmed",
  confirmado: "confirmed",
  en_curso: "confirmed",
  completado: "completed",
  documentado: "completed",
  facturado: "completed",
  cobrado: "completed",
  verificado: "completed",
  // Internal status values seen on book (agendado / pendiente_confirmacion) and reschedule.
  pendiente_confirmacion: "tentative",
  pending_confirmation: "tentative",
  scheduled: "confirmed",
  confirmed: "confirmed",
  cancelled: "cancelled",
  cancelado: "cancelled",
  completed: "completed",
};

export function statusOf(session: {
  readonly derived_state?: string;
  readonly status?: string;
}): UpstreamStatus {
  // The internal status first: a booking made pending_confirmation derives "agendado" too.
  for (const v of [session.status, session.derived_state]) {
    if (v !== undefined && STATES[v] !== undefined) return STATES[v];
  }
  return "unknown";
}
