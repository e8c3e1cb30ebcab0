/**
 * The one place the edge turns its failures and the core's BookingRefusal into the SchCP
 * refusal shape (§9, §9.2): code, registered reason, message, basis, retry, remedies, details,
 * with the status the registry gives the code, Retry-After beside retry.after, and the
 * contact remedy the host publishes on every refusal.
 */
import type { BookingRefusal, HostConfig } from "../../../booking/api.js";
import { schcpRefusal } from "../refusal.js";
import type { SignatureRefusal } from "../../../protocol/http-signatures/index.js";
import type { MandateRefusal } from "../../../protocol/schcp/mandate/index.js";
import { isRegisteredReason, refusal, withContactRemedy } from "../../../protocol/schcp/refusals.js";
import type { RefusalCode, RefusalOptions } from "../../../protocol/schcp/refusals.js";
import { formatSchcpDuration } from "../../../protocol/time/index.js";
import type { SchcpEdgeRefusal } from "./types.js";

export interface RefusalInput {
  readonly code: RefusalCode;
  readonly reason?: string;
  readonly message?: string;
  readonly basis?: Readonly<Record<string, unknown>>;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly remedies?: RefusalOptions<RefusalCode>["remedies"];
  readonly retryAfterMs?: number;
  /** The HTTP status when it is not the registry's (413 for an oversized body). */
  readonly status?: number;
}

/** Whole seconds for Retry-After: at least 1, so "now" never reads as "never". */
function retrySeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Builds the refusal. An unregistered reason from the core is a bug there: it is logged by
 * the caller (via the thrown error) rather than put on the wire.
 */
export function edgeRefusal(input: RefusalInput, host?: HostConfig): SchcpEdgeRefusal {
  const opts: RefusalOptions<RefusalCode> = {};
  if (input.reason !== undefined) {
    if (!isRegisteredReason(input.code, input.reason)) {
      throw new Error(`refusal reason "${input.reason}" is not registered under ${input.code} (SchCP §9.2)`);
    }
    opts.reason = input.reason as NonNullable<RefusalOptions<RefusalCode>["reason"]>;
  }
  if (input.message !== undefined) opts.message = input.message;
  if (input.basis !== undefined) opts.basis = { ...input.basis };
  if (input.details !== undefined) opts.details = { ...input.details };
  if (input.remedies !== undefined) opts.remedies = [...input.remedies];
  const retryAfterSec = input.retryAfterMs === undefined ? undefined : retrySeconds(input.retryAfterMs);
  if (retryAfterSec !== undefined) opts.retry = { after: formatSchcpDuration(retryAfterSec * 1000) };

  const built = refusal(input.code, opts);
  const body = host?.contact === undefined ? built.body : withContactRemedy(built.body, host.contact);
  const status = input.status ?? built.status ?? 500;
  return retryAfterSec === undefined ? { status, body } : { status, body, retryAfterSec };
}

/** The core's refusal, in SchCP's code and reason (edges/schcp/refusal.ts), as the wire refusal. */
export function fromBookingRefusal(core: BookingRefusal, host?: HostConfig): SchcpEdgeRefusal {
  const r = schcpRefusal(core, host?.timezone);
  const input: RefusalInput = {
    code: r.code,
    reason: r.reason,
    message: r.message,
    ...(r.basis !== undefined && { basis: r.basis }),
    ...(r.details !== undefined && { details: r.details }),
    ...(r.remedies !== undefined && { remedies: [...r.remedies] }),
    ...(r.retryAfterMs !== undefined && { retryAfterMs: r.retryAfterMs }),
  };
  return edgeRefusal(input, host);
}

/** 401 BAD_SIGNATURE with the reason §3.2 gives (bad_signature, stale_signature, replayed_nonce). */
export function fromSignatureRefusal(r: SignatureRefusal, host?: HostConfig): SchcpEdgeRefusal {
  return edgeRefusal(
    {
      code: "BAD_SIGNATURE",
      reason: r.reason,
      message: r.message,
      ...(r.field !== undefined && { details: { field: r.field } }),
    },
    host,
  );
}

/** §3.3: 401 MANDATE_INVALID (or mandate_expired); scope and limit refusals keep their 403. */
export function fromMandateRefusal(r: MandateRefusal, host?: HostConfig): SchcpEdgeRefusal {
  const details = { ...r.details, ...(r.field !== undefined && { field: r.field }) };
  return edgeRefusal(
    {
      code: r.code,
      reason: r.reason,
      message: r.message,
      ...(r.basis !== undefined && { basis: r.basis }),
      ...(Object.keys(details).length > 0 && { details }),
    },
    host,
  );
}
