/**
 * The synthetic platform's own appointment record: what its database keeps, richer than
 * the UpstreamBooking the port exposes (units per resource, the time it occupies, the
 * fingerprint of the create that made it).
 */
import type { UpstreamBooking, UpstreamCustomer, UpstreamStatus } from "../port.js";

export type AppointmentStatus = Exclude<UpstreamStatus, "unknown">;

export interface AppointmentAllocation {
  readonly resourceId: string;
  /** Units of the resource's capacity taken (§4.1; a combined resource is taken whole). */
  readonly units: number;
}

export interface SyntheticAppointment {
  readonly id: string;
  readonly idempotencyKey: string;
  /** Hash of the create request (transient fields excluded), to spot a reused key. */
  readonly fingerprint: string;
  readonly serviceId: string;
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended appointment (§4.2). */
  readonly end?: number;
  /** End of the time taken on its resources: end + buffer, or the set-aside end (§4.2). */
  readonly occupiedUntil: number;
  readonly allocations: readonly AppointmentAllocation[];
  readonly status: AppointmentStatus;
  readonly partySize: number;
  readonly customer?: UpstreamCustomer;
  readonly notes?: string;
  readonly cancelReason?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Cancelled appointments free their time; every other status keeps it (kept time is used time). */
export const occupiesTime = (a: SyntheticAppointment): boolean => a.status !== "cancelled";

/**
 * The platform's status rules. Same status → no change. Cancelled is final; a tentative
 * appointment is approved or declined; attendance is marked on a confirmed one and may be
 * corrected between completed and no_show.
 */
const TRANSITIONS: Readonly<Record<AppointmentStatus, readonly AppointmentStatus[]>> = {
  tentative: ["confirmed", "cancelled"],
  confirmed: ["completed", "no_show", "cancelled"],
  completed: ["no_show"],
  no_show: ["completed"],
  cancelled: [],
};

export function canTransition(from: AppointmentStatus, to: AppointmentStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

export function toUpstreamBooking(a: SyntheticAppointment): UpstreamBooking {
  const base = {
    upstreamId: a.id,
    idempotencyKey: a.idempotencyKey,
    serviceId: a.serviceId,
    start: a.start,
    resourceIds: a.allocations.map((x) => x.resourceId),
    status: a.status,
  };
  return a.end === undefined ? base : { ...base, end: a.end };
}

// ---- codec (the Redis backend stores JSON) ---------------------------------------------

const STATUSES: ReadonlySet<string> = new Set(Object.keys(TRANSITIONS));
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);
const isStr = (v: unknown): v is string => typeof v === "string";

export function encodeAppointment(a: SyntheticAppointment): string {
  return JSON.stringify(a);
}

/** Reads a stored appointment, checking what the platform relies on; undefined when corrupt. */
export function decodeAppointment(text: string): SyntheticAppointment | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const r = v as Record<string, unknown>;
  const allocations = r["allocations"];
  const ok =
    isStr(r["id"]) &&
    isStr(r["idempotencyKey"]) &&
    isStr(r["fingerprint"]) &&
    isStr(r["serviceId"]) &&
    isInt(r["start"]) &&
    (r["end"] === undefined || isInt(r["end"])) &&
    isInt(r["occupiedUntil"]) &&
    isStr(r["status"]) &&
    STATUSES.has(r["status"]) &&
    isInt(r["partySize"]) &&
    isInt(r["createdAt"]) &&
    isInt(r["updatedAt"]) &&
    Array.isArray(allocations) &&
    allocations.every(
      (x: unknown) =>
        typeof x === "object" &&
        x !== null &&
        isStr((x as Record<string, unknown>)["resourceId"]) &&
        isInt((x as Record<string, unknown>)["units"]),
    );
  return ok ? (v as SyntheticAppointment) : undefined;
}
