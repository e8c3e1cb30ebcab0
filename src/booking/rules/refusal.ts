/**
 * BookingRefusal builders over the core's vocabulary (errors.ts): a reason is typed against
 * its code, so an unregistered one is a compile error, and the default reason and message are
 * the registry's.
 */
import type { BookingRefusal, HostConfig } from "../api.js";
import {
  BOOKING_ERRORS,
  DEFAULT_ERROR_MESSAGES,
  type BookingErrorCode,
  type BookingErrorReason,
  type BookingRemedy,
} from "../errors.js";

export interface RefusalInit<C extends BookingErrorCode> {
  readonly reason?: BookingErrorReason<C>;
  readonly message?: string;
  readonly basis?: Readonly<Record<string, unknown>>;
  readonly retryAfterMs?: number;
  readonly remedies?: readonly BookingRemedy[];
  readonly details?: Readonly<Record<string, unknown>>;
}

export function bookingRefusal<C extends BookingErrorCode>(
  code: C,
  init: RefusalInit<C> = {},
): BookingRefusal {
  return {
    code,
    reason: init.reason ?? BOOKING_ERRORS[code][0],
    message: init.message ?? DEFAULT_ERROR_MESSAGES[code],
    ...(init.basis !== undefined && { basis: init.basis }),
    ...(init.retryAfterMs !== undefined && { retryAfterMs: init.retryAfterMs }),
    ...(init.remedies !== undefined && init.remedies.length > 0 && { remedies: init.remedies }),
    ...(init.details !== undefined && { details: init.details }),
  };
}

/**
 * §9.2: "Every refusal offers a non-agent way to reach the host, a contact remedy with the
 * phone or url the host publishes in discovery, when it publishes one." A url the refusal's
 * own contact remedy carries is kept: the link the host gave for it (§8, a payment checkout).
 */
export function withContactRemedy(r: BookingRefusal, host: Pick<HostConfig, "contact">): BookingRefusal {
  const contact = host.contact;
  if (contact === undefined || (contact.phone === undefined && contact.url === undefined)) return r;
  const url = r.remedies?.find((m) => m.type === "contact")?.url ?? contact.url;
  const remedy: BookingRemedy = {
    type: "contact",
    ...(contact.phone !== undefined && { phone: contact.phone }),
    ...(url !== undefined && { url }),
  };
  const others = (r.remedies ?? []).filter((m) => m.type !== "contact");
  return { ...r, remedies: [...others, remedy] };
}

/**
 * §9.2 attest remedy ("attesters the host trusts") on a full new-guest pool: an attestation from
 * one of them moves the person's holds to that attester's pool (§7.2, §7.5). A host that trusts
 * none offers none.
 */
export function withAttestRemedy(r: BookingRefusal, host: Pick<HostConfig, "trust">): BookingRefusal {
  const attesters = (host.trust?.attesters ?? []).map((a) => a.id);
  if (r.reason !== "new_guest_pool_full" || attesters.length === 0) return r;
  const others = (r.remedies ?? []).filter((m) => m.type !== "attest");
  return { ...r, remedies: [...others, { type: "attest", attesters }] };
}

export const notFound = (what: string): BookingRefusal =>
  bookingRefusal("not_found", { message: `${what} not found` });

/**
 * The upstream refused the request itself (ConnectorError invalid_request): asking again
 * cannot help, so it is 400 INVALID_REQUEST with no retry, never 503 "try again shortly".
 * The platform's own wording stays out of the answer (it names the platform's internals).
 */
export const upstreamRejected = (): BookingRefusal =>
  bookingRefusal("invalid_request", {
    message: "the host's booking system refused this request as invalid; it cannot succeed as it is",
    basis: { policy: "upstream" },
  });
