/**
 * Square webhook primitives for booking events; the route and the queue are the integrator's.
 *
 * The receiver (Square "Webhooks": notification URL requirements):
 * 1. reads the RAW body (bytes as received, before any JSON parsing) and verifies
 *    `x-square-hmacsha256-signature` with verifySquareSignature; a bad signature is 401/403 and
 *    nothing else happens;
 * 2. parses the event with parseSquareBookingEvent (other event types answer null: 2xx, ignore);
 * 3. drops a replay with an EventDeduplicator keyed by `event_id` (Square's own idempotency value
 *    for a notification, the same on every redelivery);
 * 4. queues the change (a job id of the event id keeps the queue idempotent too) and answers 2xx
 *    at once. Square expects a 2xx within 10 seconds and redelivers otherwise, so no upstream
 *    call or booking work runs before the answer.
 * A change is a hint, not the truth: the worker reads the booking (RetrieveBooking) before acting,
 * and keeps the newest `version` it has applied, since deliveries may arrive out of order.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { UpstreamStatus } from "../port.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { keyOf, statusOf } from "./booking-read.js";

export const SQUARE_SIGNATURE_HEADER = "x-square-hmacsha256-signature";

export interface SquareSignatureInput {
  /** The subscription's signature key (Developer Console → Webhooks → Signature key). */
  readonly signatureKey: string;
  /** The notification URL exactly as registered with Square (scheme, host, path, query). */
  readonly notificationUrl: string;
  /** The request body exactly as received. */
  readonly rawBody: string | Uint8Array;
  /** The x-square-hmacsha256-signature header value (base64). */
  readonly signatureHeader: string | undefined;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * HMAC-SHA256 over notification URL + raw body, base64, compared in constant time. Written here
 * rather than with the SDK's WebhooksHelper because that helper compares with `===` (a timing
 * side channel) and only takes the body as a decoded string.
 */
export function verifySquareSignature(input: SquareSignatureInput): boolean {
  const { signatureKey, notificationUrl, rawBody, signatureHeader } = input;
  if (signatureKey === "" || notificationUrl === "")
    throw new TypeError("signatureKey and notificationUrl are required");
  if (signatureHeader === undefined || !BASE64.test(signatureHeader.trim())) return false;
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);
  const expected = createHmac("sha256", signatureKey)
    .update(Buffer.from(notificationUrl, "utf8"))
    .update(body)
    .digest();
  const given = Buffer.from(signatureHeader.trim(), "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A booking created or changed in Square, in the gateway's terms. */
export interface SquareBookingChange {
  readonly eventId: string;
  readonly kind: "created" | "updated";
  readonly bookingId: string;
  readonly locationId: string;
  /** Square's booking version: apply a change only if newer than the one applied. */
  readonly version: number;
  readonly status: UpstreamStatus;
  readonly start: number;
  readonly end?: number;
  readonly serviceId?: string;
  readonly resourceIds: readonly string[];
  /** The gateway's key, when the booking was made by the gateway (seller_note mark). */
  readonly idempotencyKey?: string;
  /** When Square says the event happened (epoch ms). */
  readonly occurredAt?: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const time = (v: unknown): number | undefined => (typeof v === "string" ? Date.parse(v) : NaN) || undefined;

/**
 * Reads a verified notification body. booking.created / booking.updated become a change; any
 * other event type answers null (acknowledge and ignore). A malformed booking event is an error
 * naming the field (answer 2xx all the same: a redelivery would not be better formed).
 */
export function parseSquareBookingEvent(
  rawBody: string | Uint8Array,
): Result<SquareBookingChange | null, FieldError> {
  let body: unknown;
  try {
    body = JSON.parse(typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8"));
  } catch {
    return err(fieldError("invalid_json", "", "the notification body is not JSON"));
  }
  if (!isRecord(body)) return err(fieldError("invalid_type", "", "the notification is an object"));
  const type = body["type"];
  if (type !== "booking.created" && type !== "booking.updated") return ok(null);
  const eventId = body["event_id"];
  if (typeof eventId !== "string" || eventId === "")
    return err(fieldError("missing_member", "/event_id", "event_id is required"));
  const data = body["data"];
  const object = isRecord(data) ? data["object"] : undefined;
  const booking = isRecord(object) ? object["booking"] : undefined;
  if (!isRecord(booking))
    return err(fieldError("missing_member", "/data/object/booking", "the booking is missing"));
  // data.id is "<booking id>:<version>"; the booking's own id is preferred.
  const dataId = isRecord(data) && typeof data["id"] === "string" ? data["id"].split(":")[0] : undefined;
  const id = booking["id"] ?? dataId;
  if (typeof id !== "string" || id === "")
    return err(fieldError("missing_member", "/data/object/booking/id", "the booking id is missing"));
  const version = booking["version"];
  if (typeof version !== "number" || !Number.isSafeInteger(version))
    return err(fieldError("invalid_type", "/data/object/booking/version", "version is a whole number"));
  const start = time(booking["start_at"]);
  if (start === undefined)
    return err(fieldError("invalid_value", "/data/object/booking/start_at", "start_at is an RFC 3339 time"));
  const locationId = booking["location_id"] ?? body["location_id"];
  if (typeof locationId !== "string")
    return err(fieldError("missing_member", "/data/object/booking/location_id", "location_id is required"));
  const segments = Array.isArray(booking["appointment_segments"])
    ? booking["appointment_segments"].filter(isRecord)
    : [];
  const minutes = segments.reduce(
    (sum, s) => sum + (typeof s["duration_minutes"] === "number" ? s["duration_minutes"] : 0),
    0,
  );
  const serviceId = segments[0]?.["service_variation_id"];
  const resourceIds = [
    ...new Set(segments.map((s) => s["team_member_id"]).filter((x): x is string => typeof x === "string")),
  ];
  const key = keyOf(typeof booking["seller_note"] === "string" ? booking["seller_note"] : undefined);
  const occurredAt = time(body["created_at"]);
  return ok({
    eventId,
    kind: type === "booking.created" ? "created" : "updated",
    bookingId: id,
    locationId,
    version,
    status: statusOf(booking["status"]),
    start,
    ...(minutes > 0 ? { end: start + minutes * 60_000 } : {}),
    ...(typeof serviceId === "string" ? { serviceId } : {}),
    resourceIds,
    ...(key === undefined ? {} : { idempotencyKey: key }),
    ...(occurredAt === undefined ? {} : { occurredAt }),
  });
}
