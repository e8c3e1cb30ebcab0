/**
 * book_session (A2A §3): public, through the core's bookNow (a hold and its two-phase confirm
 * in one call), so a live SchCP/OSBP hold or booking refuses it and the host's approval policy
 * binds it.
 *
 * Retries: the attempt is named by (host, contact email, service, start), so a retried POST
 * (lost answer, double click) finds its own hold and answers with the same session; it never
 * books twice. `initialStatus` is not the caller's to pick: the host's confirmation policy
 * decides (a host_approval host answers pendiente_confirmacion). `paymentIntentId` is not
 * carried: the gateway never takes payment, so a prepaid service stays 402 PAYMENT_REQUIRED.
 *
 * order_id / venta_id: the gateway keeps no order or sale apart from the booking, so both
 * carry the booking id (the one record that exists); client_portal_url is null.
 */
import { sha256Base64Url } from "../../../protocol/json/index.js";
import { formatDecimalAmount } from "../../../protocol/money/index.js";
import { instantToWallClock, isoWeekday, parseInstant } from "../../../protocol/time/index.js";
import type { Caller, HostRuntime } from "../../../booking/api.js";
import type { BookingCoreApi } from "../../../booking/core.js";
import type { CatalogResource } from "../../../booking/catalog.js";
import type { A2aClientContact, IntentOutcome } from "../port.js";
import { resolveProvider } from "./provider.js";
import { publicBookingAuthority } from "./public-authority.js";
import { durationMinutes, publicServices } from "./services.js";
import { wireState } from "./session-state.js";
import { answer, failure, invalidData, refusalOutcome, SERVICIALO_VERSION, utc } from "./wire.js";
import { err, ok, type Result } from "../../../protocol/result.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface BookInput {
  readonly email: string;
  readonly name?: string;
  readonly phone?: string;
  readonly serviceId: string;
  readonly providerId?: string;
  readonly start: number;
  readonly duration?: number;
  readonly notes?: string;
}

const str = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;

/** The body (with the DataPart's client merged in) checked; field errors as Zod's flatten would name them. */
export function parseBook(
  params: Readonly<Record<string, unknown>>,
  client: A2aClientContact | undefined,
): Result<BookInput, Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  const add = (f: string, m: string) => (errors[f] ??= []).push(m);
  const email = str(params.clientEmail) ?? str(client?.email);
  if (email === undefined) add("clientEmail", "Required");
  else if (!EMAIL.test(email) || email.length > 254) add("clientEmail", "Invalid email");
  const serviceId = str(params.serviceId);
  if (serviceId === undefined) add("serviceId", "Required");
  const at = parseInstant(params.scheduledAt, "scheduledAt");
  if (!at.ok) add("scheduledAt", "Expected an ISO 8601 datetime with a timezone offset");
  const duration = params.duration;
  if (duration !== undefined && (!Number.isInteger(duration) || (duration as number) <= 0))
    add("duration", "Expected a positive integer");
  const notes = params.notes;
  if (notes !== undefined && (typeof notes !== "string" || notes.length > 2000))
    add("notes", "Expected a string of at most 2000 characters");
  if (params.providerId !== undefined && typeof params.providerId !== "string")
    add("providerId", "Expected a string");
  const first = str(params.clientName) ?? str(client?.name);
  const last = str(params.clientLastName) ?? str(client?.lastName);
  if (Object.keys(errors).length > 0 || email === undefined || serviceId === undefined || !at.ok)
    return err(errors);
  const name = [first, last].filter((s) => s !== undefined).join(" ");
  const phone = str(params.clientPhone) ?? str(client?.phone);
  const value: BookInput = {
    email: email.toLowerCase(),
    ...(name !== "" && { name }),
    ...(phone !== undefined && { phone }),
    serviceId,
    ...(typeof params.providerId === "string" && { providerId: params.providerId }),
    start: at.value.epochMs,
    ...(typeof duration === "number" && { duration }),
    ...(typeof notes === "string" && { notes }),
  };
  return ok(value);
}

/** The attempt's name: the same contact, service and start is the same booking. */
const attemptKey = (hostId: string, b: BookInput): string =>
  `a2a:${hostId}:${sha256Base64Url(`${b.email}\n${b.serviceId}\n${b.start}`)}`;

/** Whether [start, end) lies inside one of the provider's working periods that day (local time). */
function withinHours(provider: CatalogResource, zone: string, start: number, end: number): boolean {
  const s = instantToWallClock(start, zone);
  const e = instantToWallClock(end, zone);
  const minutes = (w: { hour: number; minute: number }) => w.hour * 60 + w.minute;
  const sameDay = s.year === e.year && s.month === e.month && s.day === e.day;
  const from = minutes(s);
  const to = sameDay ? minutes(e) : 24 * 60;
  return provider.hours.some((p) => {
    if (p.day !== isoWeekday(s)) return false;
    const [oh = 0, om = 0] = p.open.split(":").map(Number);
    const [ch = 0, cm = 0] = p.close.split(":").map(Number);
    const open = oh * 60 + om;
    const close = p.close <= p.open ? 24 * 60 : ch * 60 + cm;
    return open <= from && to <= close;
  });
}

export async function bookSession(
  core: BookingCoreApi,
  host: HostRuntime,
  caller: Caller,
  input: BookInput,
  now: number,
  /** Made with the host's own verified X-Org-Api-Key. */
  hostKeyed = false,
): Promise<IntentOutcome> {
  const service = publicServices(host).find((s) => s.id === input.serviceId);
  if (service === undefined) return failure(404, "Service not found");
  const provider = resolveProvider(host, service, input.providerId);
  if (provider === undefined) return failure(404, "Provider not found");
  const minutes = durationMinutes(service);
  if (input.duration !== undefined && input.duration !== minutes)
    return invalidData(
      { duration: [`this service lasts ${minutes ?? "an open-ended time"} minutes`] },
      "VALIDATION_ERROR",
    );
  if (input.start < now) return failure(400, "Cannot book in the past", "PAST_DATE");
  const length = service.duration === "open" ? 0 : service.duration;
  if (!withinHours(provider, host.config.timezone, input.start, input.start + length))
    return failure(400, "Scheduled time is outside provider availability", "OUTSIDE_PROVIDER_HOURS");

  // The least grant the core books under: this one booking (public-authority.ts).
  const authority = publicBookingAuthority(host.config.id, input.email, {
    serviceId: service.id,
    start: input.start,
    resourceId: provider.id,
    hostKeyed,
  });
  const booked = await core.bookNow(
    host.config.id,
    { ...caller, authority },
    {
      serviceId: service.id,
      start: input.start,
      resourceId: provider.id,
      partySize: 1,
      customer: {
        email: input.email,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.phone !== undefined && { phone: input.phone }),
      },
      ...(input.notes !== undefined && { notes: input.notes }),
      attemptKey: attemptKey(host.config.id, input),
    },
  );
  if (!booked.ok) return refusalOutcome(booked.error);
  const state = booked.value.state;
  return answer(201, {
    servicialo_version: SERVICIALO_VERSION,
    success: true,
    session: {
      id: state.bookingId,
      ...wireState(state.status),
      scheduled_at: utc(state.start),
      duration_minutes: minutes,
      service: service.name,
      client_email: input.email,
      // Not in A2A §3 (readers ignore unknown members): the total the booking recorded, taxes
      // and surcharges included, the amount services.ts and availability.ts showed for it.
      ...(state.contract.total !== null && {
        price: formatDecimalAmount(state.contract.total.minor, state.contract.total.currency),
        currency: state.contract.total.currency,
      }),
      // Not in A2A §3 either: who said yes (SchCP §7.9), so the agent can tell its human.
      ...(state.answer !== undefined && {
        answer: {
          by: state.answer.by,
          ...(state.answer.rule !== undefined && { rule: state.answer.rule }),
          at: utc(state.answer.at),
        },
      }),
    },
    client_portal_url: null,
    order_id: state.bookingId,
    venta_id: state.bookingId,
  });
}
