/**
 * verification.send / verification.verify: pass-through to the platform (OSBP "Verification is
 * sacred": never invented, suppressed or bypassed; the code is never stored or logged here).
 *
 * verification.verify applies to booking? The Connector port's verifyCode is meant as an
 * INDEPENDENT check, and the synthetic platform implements it so: it does not consume the code,
 * which booking.create still needs and consumes when it books. So calling it before
 * booking.create is harmless on the synthetic platform, and is not required: booking.create
 * verifies the raw code itself (OSBP "verification.verify": "must document whether it applies
 * to booking"). A connector whose platform consumes the code on verify must answer
 * "unsupported" there, which this adapter reports as verification_unsupported.
 *
 * Synthetic codes are scoped to the merchant and the contact, not to one booking attempt, and
 * live ten minutes (OSBP "Security and Privacy": the adapter documentation must say so).
 */
import type { Catalog } from "../../../booking/catalog.js";
import type { UpstreamCustomer } from "../../../booking/upstream.js";
import type { Customer, Problem } from "../../../protocol/osbp/index.js";
import { adapterProblem } from "./problems.js";

/** OSBP "verification.send": purpose follows the convention booking:{organization_id}. */
export function checkPurpose(catalog: Catalog, purpose: string): Problem | undefined {
  const expected = `booking:${catalog.organization.id}`;
  return purpose === expected
    ? undefined
    : adapterProblem(
        "invalid_verification_purpose",
        `The verification purpose must be "${expected}" for this business.`,
      );
}

/**
 * The name the merchant sees: display_name, else the given and family names as supplied
 * (never invented, OSBP "Core Objects"); absent when none is given.
 */
export function merchantVisibleName(c: Customer): string | undefined {
  if (c.display_name !== undefined && c.display_name.trim() !== "") return c.display_name.trim();
  const parts = [c.given_name, c.family_name].map((p) => p?.trim()).filter((p): p is string => !!p);
  return parts.length === 0 ? undefined : parts.join(" ");
}

export function upstreamCustomer(c: Customer): UpstreamCustomer {
  const name = merchantVisibleName(c);
  return {
    ...(name === undefined ? {} : { name }),
    ...(c.phone === undefined ? {} : { phone: c.phone }),
    ...(c.email === undefined ? {} : { email: c.email }),
  };
}
