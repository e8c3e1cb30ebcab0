/**
 * Appointments as the port's bookings, what the create journal keeps of them, the key's marker
 * in their notes, and the customer a booking is for (`POST /customers`, create-or-find).
 */
import type { CreateJournal, KnownBooking } from "../http/create-journal.js";
import type { UpstreamBooking, UpstreamCreate, UpstreamCustomer, UpstreamStatus } from "../ports/bookings.js";
import type { ConnectorResult } from "../ports/result.js";
import { dataFrom, type OpeningsContext } from "./context.js";
import { instantOf } from "./local-time.js";
import { fail, withMeta } from "./results.js";
import type { Salon } from "./salon.js";
import { durationOf, SEP } from "./services.js";
import { readCustomer, type WireAppointment } from "./wire.js";

/** A known appointment, with the customer it was booked for when the create told us. */
export interface KnownAppointment extends KnownBooking {
  readonly customerId?: string;
}

export interface Attempt {
  readonly request: UpstreamCreate;
  /** Absent for an attempt handed back by the caller that named no member. */
  readonly memberId?: string;
  readonly customerId: string;
}

/** One create per key in flight; answered keys remembered in process memory. */
export type OpeningsJournal = CreateJournal<Attempt, KnownAppointment>;

/** The marker the create writes into the notes; the history shows it back when it echoes notes. */
export const marker = (key: string): string => `[booking-gateway ${key}]`;

const STATUS: Readonly<Record<string, UpstreamStatus>> = {
  pending: "tentative",
  requested: "tentative",
  booked: "confirmed",
  confirmed: "confirmed",
  cancelled: "cancelled",
  canceled: "cancelled",
  completed: "completed",
  no_show: "no_show",
};

export function bookingOf(
  ctx: Salon,
  a: WireAppointment,
  key: string | undefined,
  fallbackEnd?: number,
): UpstreamBooking | undefined {
  if (ctx.timezone === undefined) return undefined;
  const start = instantOf(a.date, a.time, ctx.timezone);
  if (start === undefined) return undefined;
  const id = a.optionId !== undefined ? `${a.serviceId}${SEP}${a.optionId}` : a.serviceId;
  const duration = a.durationMinutes !== undefined ? a.durationMinutes * 60_000 : durationOf(ctx, id);
  const end = duration !== undefined ? start + duration : fallbackEnd;
  return {
    upstreamId: a.id,
    ...(key !== undefined ? { idempotencyKey: key } : {}),
    serviceId: id,
    start,
    ...(end !== undefined ? { end } : {}),
    resourceIds: [a.memberId],
    status: STATUS[a.status] ?? "unknown",
  };
}

export async function customerFor(
  api: OpeningsContext,
  ctx: Salon,
  c: UpstreamCustomer | undefined,
): Promise<ConnectorResult<string>> {
  if (c === undefined || (c.phone === undefined && c.email === undefined)) {
    return fail({
      code: "invalid_request",
      message: "Openings books for a customer with a phone number or an email",
    });
  }
  const r = dataFrom(
    await api.call("POST", "/customers", {
      body: {
        businessId: ctx.business.id,
        ...(c.name !== undefined ? { name: c.name } : {}),
        ...(c.phone !== undefined ? { phone: c.phone } : {}),
        ...(c.email !== undefined ? { email: c.email } : {}),
      },
    }),
    readCustomer,
    "customer",
  );
  return r.ok ? withMeta(r.value.id, r.upstream) : r;
}
