/**
 * The per-link checks of §3.3 that need no key: audience (check 2), time (check 3)
 * and where attestations may appear.
 */
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { claimField } from "./fields.js";
import type { DecodedLink } from "./decode-link.js";
import { mandateExpired, mandateInvalid } from "./refusal.js";
import type { MandateRefusal } from "./types.js";

/** §3.3 check 3: the only skew verifiers allow, on iat. */
const IAT_SKEW_SEC = 60;
/** §3.3: "attestations (root mandates only, at most four)". */
const MAX_ATTESTATIONS = 4;

/** What these checks read of a link: its claims, and where it is in the header. */
export type LinkView = Pick<DecodedLink, "claims" | "field">;

export interface AudienceOptions {
  readonly hostId: string;
  readonly allowWildcardAudience: boolean;
}

/**
 * §3.3 check 2. A mandate with "*" anywhere in aud is a wildcard mandate, which the
 * reference endpoint refuses unless configured otherwise, even when the list also
 * names this host: the principal asked for "any host", not for us.
 */
export function checkAudience(link: LinkView, opts: AudienceOptions): Result<void, MandateRefusal> {
  const aud = link.claims.aud;
  const list: readonly string[] = typeof aud === "string" ? [aud] : aud;
  const field = claimField(link.field, "aud");
  if (list.includes("*")) {
    if (opts.allowWildcardAudience) return ok(undefined);
    return err(
      mandateInvalid('wildcard audience "*" refused: this host accepts only mandates naming it', field),
    );
  }
  if (!list.includes(opts.hostId)) {
    return err(mandateInvalid(`mandate audience does not include this host (${opts.hostId})`, field));
  }
  return ok(undefined);
}

/** §3.3 check 3: iat ≤ now + 60 s and now < exp, exp without skew. */
export function checkTime(link: LinkView, nowSec: number): Result<void, MandateRefusal> {
  const { iat, exp } = link.claims;
  if (iat > nowSec + IAT_SKEW_SEC) {
    return err(mandateInvalid("mandate iat is in the future", claimField(link.field, "iat")));
  }
  if (nowSec >= exp) {
    return err(
      mandateExpired("mandate has expired; ask the principal for a fresh one", claimField(link.field, "exp")),
    );
  }
  return ok(undefined);
}

/**
 * "attestations (root mandates only, at most four)" (§3.3). They describe the principal key, so
 * "a host reads them from the root only": a child's are ignored, never a reason to refuse the
 * chain (§7.5 "Anything else is ignored, never rejected: an attestation can only add trust").
 * The count is checked on every link (the MandateClaims schema's maxItems says the same).
 */
export function checkAttestations(link: LinkView): Result<void, MandateRefusal> {
  const list = link.claims.attestations;
  if (list === undefined) return ok(undefined);
  const field = claimField(link.field, "attestations");
  if (list.length > MAX_ATTESTATIONS) {
    return err(mandateInvalid(`a mandate carries at most ${MAX_ATTESTATIONS} attestations`, field));
  }
  return ok(undefined);
}
