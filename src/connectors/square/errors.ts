/**
 * Square's failures in the core's one vocabulary (ConnectorErrorCode).
 *
 * Square answers errors as `{ errors: [{ category, code, detail, field }] }` (the SDK's
 * SquareError.errors; categories API_ERROR, AUTHENTICATION_ERROR, INVALID_REQUEST_ERROR,
 * RATE_LIMIT_ERROR, …). Messages are built from Square's code and detail only, never from the
 * SDK's own message (which quotes the whole body) nor from request headers: no credential can
 * reach an error.
 *
 * A taken time: Square documents no error code of its own for it (see fixtures/square/SOURCES.md):
 * a seller-level create is even allowed to double-book, which is why the connector checks
 * availability before it creates (bookings.ts). Square's refusals that do mean "that time is
 * gone" are read as slot_taken: HTTP 409 / code CONFLICT, and an INVALID_REQUEST_ERROR whose
 * detail says the time or team member is not available.
 */
import type { SquareError } from "square";
import { retryAfterMs } from "../http.js";
import type { ConnectorError, UpstreamMeta } from "../port.js";
import { loadedSquareSdk } from "./sdk.js";

/** A failure the connector reached before or without an HTTP answer of its own. */
export class SquareCallError extends Error {
  constructor(
    readonly code: "unauthorized" | "unavailable",
    message: string,
  ) {
    super(message);
    this.name = "SquareCallError";
  }
}

/** An answer Square gave that the connector cannot read (a missing field it relies on). */
export class UnreadableAnswer extends Error {
  override name = "UnreadableAnswer";
}

/**
 * The connector's own refusal, decided on an answer Square gave (thrown inside a call;
 * bookings.ts): a time its availability does not offer (slot_taken, 409), another location's
 * booking (not_found, 404), a change a booking's state forbids (invalid_request, 400). The
 * status is the refusal's; see client.ts for the metadata it carries.
 */
export class Refusal extends Error {
  override name = "Refusal";
  constructor(
    readonly code: "slot_taken" | "not_found" | "invalid_request",
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface BodyError {
  readonly category?: string;
  readonly code?: string;
  readonly detail?: string;
  readonly field?: string;
}

const AUTH_CODES = new Set([
  "UNAUTHORIZED",
  "ACCESS_TOKEN_EXPIRED",
  "ACCESS_TOKEN_REVOKED",
  "CLIENT_DISABLED",
  "FORBIDDEN",
  "INSUFFICIENT_SCOPES",
  "APPLICATION_DISABLED",
  "MERCHANT_SUBSCRIPTION_NOT_FOUND",
]);

const SLOT_DETAIL = /\b(?:not available|unavailable|no longer available|already booked|time slot|overlap)/i;

function bodyErrors(e: SquareError): BodyError[] {
  const list: unknown = (e as { errors?: unknown }).errors;
  return Array.isArray(list) ? (list as BodyError[]) : [];
}

function describe(errors: readonly BodyError[], fallback: string): string {
  const first = errors.find((x) => x.code !== undefined && x.code !== "Unknown");
  if (first === undefined) return fallback;
  const where = first.field === undefined ? "" : ` (${first.field})`;
  return `Square ${first.code}${where}${first.detail === undefined ? "" : `: ${first.detail}`}`;
}

function isSlotTakenAnswer(status: number | undefined, errors: readonly BodyError[]): boolean {
  if (status === 409 || errors.some((x) => x.code === "CONFLICT")) return true;
  return errors.some(
    (x) =>
      x.category === "INVALID_REQUEST_ERROR" &&
      x.detail !== undefined &&
      SLOT_DETAIL.test(x.detail) &&
      (x.field === undefined || /^booking\.(?:start_at|appointment_segments)/.test(x.field)),
  );
}

/**
 * The ConnectorError for anything a Square call threw; `meta` is that call's metadata, `now`
 * the instant a Retry-After date is counted from.
 */
export function squareErrorOf(error: unknown, meta: UpstreamMeta, now: number): ConnectorError {
  if (error instanceof SquareCallError) return { code: error.code, message: error.message };
  if (error instanceof UnreadableAnswer)
    return { code: "unavailable", message: `unreadable Square answer: ${error.message}` };
  if (error instanceof Refusal) return { code: error.code, message: error.message };
  // The SDK's own errors: thrown only by a client, which exists once the SDK has loaded.
  const sdk = loadedSquareSdk();
  if (sdk !== undefined && error instanceof sdk.SquareTimeoutError)
    return { code: "timeout", message: "Square did not answer in time" };
  if (sdk !== undefined && error instanceof sdk.SquareError) {
    const status = error.statusCode;
    const errors = bodyErrors(error);
    if (status === undefined)
      // No HTTP answer arrived (connection reset, DNS, TLS): the request may or may not have acted.
      return { code: "unavailable", message: "no answer from Square (the connection failed)" };
    const text = describe(errors, `Square answered HTTP ${status}`);
    if (
      status === 401 ||
      status === 403 ||
      errors.some((x) => x.category === "AUTHENTICATION_ERROR" || AUTH_CODES.has(x.code ?? ""))
    )
      return { code: "unauthorized", message: `${text}; the business must reconnect Square` };
    if (status === 429 || errors.some((x) => x.category === "RATE_LIMIT_ERROR")) {
      const after = retryAfterMs(meta.ratelimit?.["retry-after"], now);
      return { code: "rate_limited", message: text, ...(after === undefined ? {} : { retryAfterMs: after }) };
    }
    if (status === 404 || errors.some((x) => x.code === "NOT_FOUND"))
      return { code: "not_found", message: text };
    if (isSlotTakenAnswer(status, errors)) return { code: "slot_taken", message: text };
    if (status === 408 || status === 504) return { code: "timeout", message: text };
    if (status >= 500) return { code: "unavailable", message: text };
    return { code: "invalid_request", message: text };
  }
  // Anything else is the connector's own bug: it is not an upstream answer to translate.
  throw error;
}
