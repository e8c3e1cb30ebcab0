/**
 * BookingRefusal builders (SchCP §9.2). Every refusal goes through the protocol registry's
 * `refusal()`, so an unregistered reason is a programmer error caught at once, and the
 * default message is the registry's.
 */
import {
  refusal,
  type HttpRefusalCode,
  type RefusalCode,
  type RefusalReason,
} from "../../protocol/schcp/refusals.js";
import type { Remedy } from "../../protocol/schcp/types.js";
import type { BookingRefusal, HostConfig } from "../api.js";

export interface RefusalInit<C extends RefusalCode> {
  readonly reason?: RefusalReason<C>;
  readonly message?: string;
  readonly basis?: Readonly<Record<string, unknown>>;
  readonly retryAfterMs?: number;
  readonly remedies?: readonly Remedy[];
  readonly details?: Readonly<Record<string, unknown>>;
}

export function bookingRefusal<C extends HttpRefusalCode>(
  code: C,
  init: RefusalInit<C> = {},
): BookingRefusal {
  const { error } = refusal(code, {
    ...(init.reason !== undefined && { reason: init.reason }),
    ...(init.message !== undefined && { message: init.message }),
  }).body;
  return {
    code,
    reason: error.reason,
    message: error.message,
    ...(init.basis !== undefined && { basis: init.basis }),
    ...(init.retryAfterMs !== undefined && { retryAfterMs: init.retryAfterMs }),
    ...(init.remedies !== undefined && init.remedies.length > 0 && { remedies: init.remedies }),
    ...(init.details !== undefined && { details: init.details }),
  };
}

/**
 * §9.2: "Every refusal offers a non-agent way to reach the host, a contact remedy with the
 * phone or url the host publishes in discovery, when it publishes one."
 */
export function withContactRemedy(r: BookingRefusal, host: Pick<HostConfig, "contact">): BookingRefusal {
  const contact = host.contact;
  if (contact === undefined || (contact.phone === undefined && contact.url === undefined)) return r;
  const remedy: Remedy = {
    type: "contact",
    ...(contact.phone !== undefined && { phone: contact.phone }),
    ...(contact.url !== undefined && { url: contact.url }),
  };
  const others = (r.remedies ?? []).filter((m) => m.type !== "contact");
  return { ...r, remedies: [...others, remedy] };
}

export const notFound = (what: string): BookingRefusal =>
  bookingRefusal("NOT_FOUND", { message: `${what} not found` });

/**
 * The upstream refused the request itself (ConnectorError invalid_request): asking again
 * cannot help, so it is 400 INVALID_REQUEST with no retry, never 503 "try again shortly".
 * The platform's own wording stays out of the answer (it names the platform's internals).
 */
export const upstreamRejected = (): BookingRefusal =>
  bookingRefusal("INVALID_REQUEST", {
    message: "the host's booking system refused this request as invalid; it cannot succeed as it is",
    basis: { policy: "upstream" },
  });
