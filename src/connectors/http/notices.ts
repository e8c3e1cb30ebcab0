/**
 * Deprecation (RFC 9745) and Sunset (RFC 8594) announcements: logged loudly once per endpoint
 * per process (OSBP "Platform Metadata and Versioning"), and handed to the caller's onNotice
 * on every response that carries one, so the integrator can record them per host. A notice
 * never changes the result: the call succeeded.
 */
import type { Logger } from "../../protocol/logger.js";
import type { UpstreamMeta } from "../ports/result.js";

export interface UpstreamNotice {
  readonly vendor: string;
  readonly call: string;
  readonly deprecation?: string;
  readonly sunset?: string;
}

/** The default when a connector is given no logger: one JSON line per notice on stderr. */
export const consoleLogger: Pick<Logger, "warn"> = {
  warn: (message, fields) => console.warn(JSON.stringify({ level: "warn", message, ...fields })),
};

// Process-wide on purpose: "once per endpoint per process", however many clients exist.
const warned = new Set<string>();

/**
 * Ids vary per call; the endpoint is the call line with id-like segments folded, and with the
 * connector's own folding (`fold`) for resource names the default cannot recognise as ids.
 */
export function endpointOf(vendor: string, call: string, fold?: (call: string) => string): string {
  const folded = (fold?.(call) ?? call).replace(
    /\/(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9_-]{20,})(?=\/|$)/gi,
    "/*",
  );
  return `${vendor} ${folded}`;
}

export function announce(
  vendor: string,
  meta: UpstreamMeta,
  logger: Pick<Logger, "warn">,
  onNotice: ((notice: UpstreamNotice) => void) | undefined,
  fold?: (call: string) => string,
): void {
  if (meta.deprecation === undefined && meta.sunset === undefined) return;
  const notice: UpstreamNotice = {
    vendor,
    call: meta.call,
    ...(meta.deprecation !== undefined ? { deprecation: meta.deprecation } : {}),
    ...(meta.sunset !== undefined ? { sunset: meta.sunset } : {}),
  };
  const key = endpointOf(vendor, meta.call, fold);
  if (!warned.has(key)) {
    warned.add(key);
    logger.warn(`UPSTREAM API RETIRING: ${vendor} announced Deprecation/Sunset for ${meta.call}`, {
      ...notice,
    });
  }
  try {
    onNotice?.(notice);
  } catch {
    // A notice sink failing must not change the call's result.
  }
}

/** Tests only: forget which endpoints were warned about. */
export function resetNoticeLog(): void {
  warned.clear();
}
