/**
 * The grant behind a public book_session (A2A §3 "Booking is public"). Hosts default to
 * requires_mandate, and the core refuses an anonymous hold; the spec makes booking public, so
 * this edge hands the core the narrowest grant that does it: one hold, for exactly the
 * service, start and provider the request names, for a principal that is a hash of the
 * contact email (the core's principals are never personal data). Nothing else — no change
 * offers, no other time — is permitted under it.
 */
import { createHash } from "node:crypto";
import type { Authority } from "../../../booking/authority.js";
import { refuse } from "../../../booking/bookings/refuse.js";
import { err, ok } from "../../../protocol/result.js";

const contactPrincipal = (hostId: string, email: string): string =>
  `a2a:${createHash("sha256").update(`${hostId}\n${email}`).digest("base64url").slice(0, 22)}`;

export function publicBookingAuthority(
  hostId: string,
  email: string,
  only: {
    readonly serviceId: string;
    readonly start: number;
    readonly resourceId: string;
    /** The host's own key made the request (not the contact's: an e-mail proves nothing). */
    readonly hostKeyed?: boolean;
  },
): Authority {
  return {
    principal: contactPrincipal(hostId, email),
    kind: "a2a",
    ...(only.hostKeyed === true && { proof: "host_key" as const }),
    permits: (t) =>
      t.action === "hold" &&
      t.serviceId === only.serviceId &&
      t.start === only.start &&
      (t.resourceId === undefined || t.resourceId === only.resourceId)
        ? ok(undefined)
        : err(
            refuse("authority_scope", "not_in_scope", "a public A2A booking covers only the time it named"),
          ),
    covers: (start) => start === only.start,
  };
}
