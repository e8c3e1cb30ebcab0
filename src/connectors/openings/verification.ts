/**
 * Customer verification: `POST /verifications` (send) and `POST /verifications/verify` with
 * purpose `booking:{businessId}`; SMS when the customer has a phone, else email. The code is
 * scoped to the business, not to one booking attempt (OSBP "Attempt-scoped capabilities"): it
 * stays usable for its TTL.
 */
import type { UpstreamCustomer } from "../ports/bookings.js";
import type { ConnectorResult } from "../ports/result.js";
import type { VerificationPort } from "../ports/verification.js";
import type { OpeningsContext } from "./context.js";
import { fail, statusError, withMeta } from "./results.js";
import type { SalonSource } from "./salon.js";
import { dataOf, errorOf } from "./wire.js";

function destination(
  c: UpstreamCustomer,
): { channel: "sms" | "email"; phone?: string; email?: string } | undefined {
  if (c.phone !== undefined) return { channel: "sms", phone: c.phone };
  if (c.email !== undefined) return { channel: "email", email: c.email };
  return undefined;
}

async function verificationCall(
  api: OpeningsContext,
  salons: SalonSource,
  path: string,
  customer: UpstreamCustomer,
  code?: string,
): Promise<ConnectorResult<{ readonly method: "sms" | "email" }>> {
  const c = await salons.ensure();
  if (!c.ok) return c;
  const to = destination(customer);
  if (to === undefined)
    return fail({ code: "invalid_request", message: "Openings verifies a phone number or an email" });
  const r = await api.call("POST", path, {
    // Openings scopes a code to the business, whatever purpose the caller names.
    body: {
      businessId: c.value.business.id,
      purpose: `booking:${c.value.business.id}`,
      ...to,
      ...(code !== undefined ? { code } : {}),
    },
  });
  if (!r.ok) return r;
  const { status, body } = r.value;
  if (status >= 200 && status < 300) {
    const data = dataOf(body) as { method?: unknown; verified?: unknown } | undefined;
    if (code !== undefined && data?.verified !== true) {
      return fail({ code: "verification_failed", message: "Openings did not accept the code" }, r.upstream);
    }
    return withMeta({ method: to.channel }, r.upstream);
  }
  return fail(statusError(status, errorOf(body), "verification"), r.upstream);
}

export function openingsVerification(api: OpeningsContext, salons: SalonSource): VerificationPort {
  return {
    send: (customer) => verificationCall(api, salons, "/verifications", customer),
    verify: (customer, _purpose, code) =>
      verificationCall(api, salons, "/verifications/verify", customer, code),
  };
}
