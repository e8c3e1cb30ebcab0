/**
 * Openings' answers as the port's results: the result helpers, and the error a non-2xx status
 * means (the transport rules of connectors/http.ts have already mapped 429, 5xx and timeouts).
 */
import type { ConnectorError, ConnectorResult, UpstreamMeta } from "../ports/result.js";

export const fail = <T>(error: ConnectorError, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: false, error } : { ok: false, error, upstream };
export const withMeta = <T>(value: T, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: true, value } : { ok: true, value, upstream };
export const unreadable = <T>(what: string, upstream?: UpstreamMeta): ConnectorResult<T> =>
  fail({ code: "unavailable", message: `Openings answered an unreadable ${what}` }, upstream);

const NO_ZONE: ConnectorError = {
  code: "unsupported",
  message:
    "Openings reports no time zone for this business and none is configured: local times are not placed in time",
};
/** A business with a null zone and none from the operator gets no instants, never a guess. */
export const noZone = (upstream?: UpstreamMeta): ConnectorResult<never> => fail(NO_ZONE, upstream);

/** A non-2xx answer the transport rules left to the connector. */
export function statusError(
  status: number,
  e: { code?: string; method?: "sms" | "email" },
  what: string,
): ConnectorError {
  switch (status) {
    case 401:
    case 403:
    case 428:
      return {
        code: "verification_required",
        message: "Openings needs the customer verified before booking",
        verificationMethod: e.method ?? "unknown",
      };
    case 409:
      return { code: "slot_taken", message: "Openings: that time is no longer open" };
    case 404:
      return { code: "not_found", message: `Openings: ${what} not found` };
    case 422:
      return e.code === "invalid_code" || e.code === "verification_failed"
        ? { code: "verification_failed", message: "Openings did not accept the verification code" }
        : {
            code: "invalid_request",
            message: `Openings refused the ${what} (HTTP 422${e.code ? ` ${e.code}` : ""})`,
          };
    default:
      return {
        code: "invalid_request",
        message: `Openings refused the ${what} (HTTP ${status}${e.code ? ` ${e.code}` : ""})`,
      };
  }
}
