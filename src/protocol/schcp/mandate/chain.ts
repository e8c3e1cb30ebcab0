/**
 * The chain rules of §3.3: who may sign each link, and what a child may and may not
 * change relative to its parent. Each function checks one already-decoded link;
 * verify.ts calls them root first.
 */
import { parseEd25519PublicJwk, jwkThumbprint, principalUrn } from "../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../jose/jwk.js";
import { verifyJwsSignature } from "../../jose/jws.js";
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { claimField } from "./fields.js";
import type { DecodedLink } from "./decode-link.js";
import { checkAttestations, checkAudience, checkTime } from "./link-checks.js";
import type { AudienceOptions } from "./link-checks.js";
import { mandateInvalid } from "./refusal.js";
import type { MandateRefusal } from "./types.js";

export interface LinkCheckOptions extends AudienceOptions {
  readonly nowSec: number;
}

/** Check 1 for the root: signed by principal_jwk, and iss is that key's thumbprint URN. */
export async function verifyRoot(
  root: DecodedLink,
  opts: LinkCheckOptions,
): Promise<Result<Ed25519PublicJwk, MandateRefusal>> {
  const { claims, field } = root;
  if (claims.issuer_jwk !== undefined) {
    return err(
      mandateInvalid("a root mandate carries principal_jwk, not issuer_jwk", claimField(field, "issuer_jwk")),
    );
  }
  if (claims.principal_jwk === undefined) {
    return err(mandateInvalid("a root mandate must carry principal_jwk", claimField(field, "principal_jwk")));
  }
  const jwk = signerKey(claims.principal_jwk, claimField(field, "principal_jwk"));
  if (!jwk.ok) return jwk;
  if (!(await verifyJwsSignature(root.jws, jwk.value))) {
    return err(mandateInvalid("mandate signature does not verify against principal_jwk", field));
  }
  if (claims.iss !== principalUrn(jwkThumbprint(jwk.value))) {
    return err(
      mandateInvalid("mandate iss is not the thumbprint of principal_jwk", claimField(field, "iss")),
    );
  }
  const rest = checkCommon(root, opts);
  return rest.ok ? ok(jwk.value) : rest;
}

/** A child: signed by the key its parent's cnf.jkt names, attenuating the parent. */
export async function verifyChild(
  child: DecodedLink,
  parent: DecodedLink,
  opts: LinkCheckOptions,
): Promise<Result<Ed25519PublicJwk, MandateRefusal>> {
  const { claims, field } = child;
  const p = parent.claims;
  if (claims.principal_jwk !== undefined) {
    return err(
      mandateInvalid(
        "a child mandate carries issuer_jwk, not principal_jwk",
        claimField(field, "principal_jwk"),
      ),
    );
  }
  if (claims.issuer_jwk === undefined) {
    return err(mandateInvalid("a child mandate must carry issuer_jwk", claimField(field, "issuer_jwk")));
  }
  // The parent was decoded from this very string; a decoder that normalised it would
  // let a re-encoded (differently signed) parent through, so compare the bytes.
  if (claims.parent !== parent.jws.compact) {
    return err(
      mandateInvalid("parent must be the parent mandate's compact JWS, exactly", claimField(field, "parent")),
    );
  }
  const jwk = signerKey(claims.issuer_jwk, claimField(field, "issuer_jwk"));
  if (!jwk.ok) return jwk;
  if (jwkThumbprint(jwk.value) !== p.cnf.jkt) {
    return err(
      mandateInvalid("issuer_jwk is not the key the parent's cnf.jkt names", claimField(field, "issuer_jwk")),
    );
  }
  if (!(await verifyJwsSignature(child.jws, jwk.value))) {
    return err(mandateInvalid("mandate signature does not verify against issuer_jwk", field));
  }
  if (!p.scope.includes("delegate")) {
    return err(
      mandateInvalid(
        'the parent mandate\'s scope does not include "delegate"',
        claimField(parent.field, "scope"),
      ),
    );
  }
  const wider = claims.scope.filter((s) => !p.scope.includes(s));
  if (wider.length > 0) {
    return err(
      mandateInvalid(
        `child scope is wider than its parent's (${wider.join(", ")})`,
        claimField(field, "scope"),
      ),
    );
  }
  if (claims.iss !== p.iss)
    return err(mandateInvalid("child iss must equal its parent's", claimField(field, "iss")));
  if (claims.sub !== p.sub)
    return err(mandateInvalid("child sub must equal its parent's", claimField(field, "sub")));
  if (claims.exp > p.exp) {
    return err(mandateInvalid("child exp is later than its parent's", claimField(field, "exp")));
  }
  // §3.3 "Ids are per link": a repeated jti would let one link's status stand in for another's.
  if (claims.jti === p.jti) {
    return err(mandateInvalid("two links of the chain share a jti", claimField(field, "jti")));
  }
  const rest = checkCommon(child, opts);
  return rest.ok ? ok(jwk.value) : rest;
}

/** §3.4 Keys: compact mandates are Ed25519 only, so a P-256 (or any other) key is invalid. */
function signerKey(value: unknown, field: string): Result<Ed25519PublicJwk, MandateRefusal> {
  // kid and use are allowed because the schema's Jwk allows them; the thumbprint ignores both.
  const jwk = parseEd25519PublicJwk(value, field, { allowKid: true, allowUse: true });
  if (!jwk.ok) return err(mandateInvalid(`mandate signing key: ${jwk.error.message}`, jwk.error.field));
  return jwk;
}

function checkCommon(link: DecodedLink, opts: LinkCheckOptions): Result<void, MandateRefusal> {
  const aud = checkAudience(link, opts);
  if (!aud.ok) return aud;
  const time = checkTime(link, opts.nowSec);
  if (!time.ok) return time;
  return checkAttestations(link);
}
