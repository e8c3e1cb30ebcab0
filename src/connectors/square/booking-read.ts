/**
 * Reading Square bookings: a Booking as the gateway's UpstreamBooking, Square's statuses in the
 * gateway's terms, and the lookup of the booking made under a gateway key.
 *
 * Square keeps no idempotency key on the Booking it made, so the gateway writes its key into
 * the booking's seller_note (`[gateway-key:<key, URI-encoded>]`; seller_note is visible to the
 * seller only and needs seller-level write scopes) and finds it by listing the location's
 * bookings (ListBookings, at most 31 days per call).
 */
import type { Square, SquareClient } from "square";
import type { UpstreamBooking, UpstreamCreate, UpstreamStatus } from "../port.js";
import { UnreadableAnswer } from "./errors.js";
import { instant, int, rfc3339, text } from "./read.js";

export const DAY = 86_400_000;
const LIST_WINDOW_MS = 31 * DAY;
const KEY_MARK = /\[gateway-key:([^\]\s]+)\]/;

const keyMark = (key: string): string => `[gateway-key:${encodeURIComponent(key)}]`;

export function keyOf(note: string | null | undefined): string | undefined {
  const m = note === null || note === undefined ? null : KEY_MARK.exec(note);
  if (m === null || m[1] === undefined) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

/** Square BookingStatus in the gateway's terms; an unknown one is "unknown". */
const STATUS: Readonly<Record<string, UpstreamStatus>> = {
  PENDING: "tentative",
  ACCEPTED: "confirmed",
  CANCELLED_BY_CUSTOMER: "cancelled",
  CANCELLED_BY_SELLER: "cancelled",
  DECLINED: "cancelled",
  NO_SHOW: "no_show",
};

export const statusOf = (status: unknown): UpstreamStatus =>
  (typeof status === "string" ? STATUS[status] : undefined) ?? "unknown";

export function upstreamBookingOf(b: Square.Booking): UpstreamBooking {
  const segments = b.appointmentSegments ?? [];
  const first = segments[0];
  if (first === undefined) throw new UnreadableAnswer(`booking ${b.id ?? "?"} has no appointment segment`);
  const start = instant(b.startAt, "booking start_at");
  const minutes = segments.reduce((sum, s) => sum + int(s.durationMinutes, "duration_minutes"), 0);
  const key = keyOf(b.sellerNote);
  return {
    upstreamId: text(b.id, "booking id"),
    ...(key === undefined ? {} : { idempotencyKey: key }),
    serviceId: text(first.serviceVariationId, "service_variation_id"),
    start,
    end: start + minutes * 60_000,
    resourceIds: [...new Set(segments.map((s) => text(s.teamMemberId, "team_member_id")))],
    status: statusOf(b.status),
  };
}

export function sellerNote(request: UpstreamCreate): string {
  const lines = [keyMark(request.idempotencyKey)];
  const c = request.customer;
  const who = [c?.name, c?.phone, c?.email].filter((x): x is string => x !== undefined && x !== "");
  if (who.length > 0) lines.push(`Customer: ${who.join(", ")}`);
  if (request.notes !== undefined && request.notes !== "") lines.push(request.notes);
  return lines.join("\n");
}

/** The bookings of the location starting in [min, max], every page. */
async function listBookings(
  client: SquareClient,
  locationId: string,
  min: number,
  max: number,
): Promise<Square.Booking[]> {
  const page = await client.bookings.list({
    locationId,
    startAtMin: rfc3339(min),
    startAtMax: rfc3339(max),
    limit: 100,
  });
  const found: Square.Booking[] = [];
  for await (const b of page) found.push(b);
  return found;
}

export async function findByKey(
  client: SquareClient,
  locationId: string,
  key: string,
  min: number,
  max: number,
): Promise<UpstreamBooking | null> {
  for (let start = min; start < max; start += LIST_WINDOW_MS) {
    const end = Math.min(start + LIST_WINDOW_MS, max);
    const hit = (await listBookings(client, locationId, start, end)).find((b) => keyOf(b.sellerNote) === key);
    if (hit !== undefined) return upstreamBookingOf(hit);
  }
  return null;
}
