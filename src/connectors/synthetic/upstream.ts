/**
 * The synthetic platform's HTTP face: each operation is a call of a versioned REST API,
 * and each answer leaves the UpstreamMeta a real call would (OSBP UpstreamMeta: "METHOD
 * /path" without the query, status, server, request id, API version echo, rate-limit
 * headers keyed lowercase), so audit and operator views look the same as for a real one.
 */
import type {
  ConnectorError,
  ConnectorErrorCode,
  ConnectorResult,
  PlatformIdentity,
  UpstreamMeta,
} from "../port.js";
import type { SyntheticCall } from "./faults.js";

export const SYNTHETIC_PLATFORM: PlatformIdentity = { vendor: "synthetic", api_version: "2026-10-01" };

const bookingPath = (id: string | undefined): string => `/v2/bookings/${encodeURIComponent(id ?? "")}`;

/** "METHOD /path" of an operation; ids are not contact data, so they stay in the path. */
export function callLine(call: SyntheticCall): string {
  switch (call.operation) {
    case "catalog":
      return "GET /v2/catalog";
    case "findAvailability":
      return "POST /v2/availability/search";
    case "readBusy":
      return "POST /v2/bookings/search";
    case "createBooking":
      return "POST /v2/bookings";
    case "findBookingByIdempotencyKey":
      return "GET /v2/bookings";
    case "getBooking":
      return `GET ${bookingPath(call.upstreamId)}`;
    case "setStatus":
      return `PATCH ${bookingPath(call.upstreamId)}`;
    case "moveBooking":
      return `POST ${bookingPath(call.upstreamId)}/reschedule`;
    case "cancelBooking":
      return `POST ${bookingPath(call.upstreamId)}/cancel`;
    case "sendVerification":
      return "POST /v2/verifications";
    case "verifyCode":
      return "POST /v2/verifications/check";
  }
}

/** The HTTP status the platform answers each error with. */
const ERROR_STATUS: Readonly<Record<ConnectorErrorCode, number>> = {
  invalid_request: 400,
  unauthorized: 401,
  payment_required: 402,
  not_found: 404,
  slot_taken: 409,
  verification_failed: 422,
  verification_required: 428,
  rate_limited: 429,
  unsupported: 501,
  unavailable: 503,
  // No answer arrived; 0 is what an aborted HTTP client reports.
  timeout: 0,
};

/**
 * Numbers each answer (request ids, as the platform's servers would) and builds its metadata.
 * It keeps no "last call": each result carries its own metadata.
 */
export class UpstreamRecorder {
  private count = 0;

  /** Metadata of an answer with this status (0: none arrived, so no response headers). */
  record(call: string, status: number, ratelimit?: Readonly<Record<string, string>>): UpstreamMeta {
    let meta: UpstreamMeta;
    if (status === 0) {
      meta = { call, status };
    } else {
      this.count += 1;
      const base = {
        call,
        status,
        server: "synthetic",
        request_id: `syn-req-${this.count.toString().padStart(6, "0")}`,
        api_version: SYNTHETIC_PLATFORM.api_version,
      };
      meta = ratelimit === undefined ? base : { ...base, ratelimit };
    }
    return meta;
  }

  /** A failed result carrying the metadata of the answer that reported it. */
  error(
    call: string,
    code: ConnectorErrorCode,
    message: string,
    extra: {
      readonly retryAfterMs?: number;
      readonly verificationMethod?: "sms" | "email";
      readonly status?: number;
    } = {},
  ): ConnectorResult<never> {
    const { status = ERROR_STATUS[code], retryAfterMs, verificationMethod } = extra;
    const ratelimit =
      retryAfterMs === undefined ? undefined : { "retry-after": String(Math.ceil(retryAfterMs / 1000)) };
    const error: ConnectorError = {
      code,
      message,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(verificationMethod === undefined ? {} : { verificationMethod }),
    };
    return { ok: false, error, upstream: this.record(call, status, ratelimit) };
  }

  /** A successful result with the metadata of its answer. */
  ok<T>(call: string, status: number, value: T): ConnectorResult<T> {
    return { ok: true, value, upstream: this.record(call, status) };
  }
}
