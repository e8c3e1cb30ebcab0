/**
 * verifyMandate: the SchCP-Mandate header value to a verified chain (§3.3 checks
 * 1–4 and 7, every chain rule). Decodes from the leaf, checks the root first.
 */
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { verifyChild, verifyRoot } from "./chain.js";
import type { LinkCheckOptions } from "./chain.js";
import { decodeMandateLink } from "./decode-link.js";
import { parseLinkConstraints } from "./constraints.js";
import { checkAudience, checkTime } from "./link-checks.js";
import { SD_JWT_ISSUER_FIELD, verifySdJwtPresentation } from "./sd-jwt/verify.js";
import { claimField, MANDATE_HEADER, PARENT_FIELD } from "./fields.js";
import type { DecodedLink } from "./decode-link.js";
import { mandateInvalid } from "./refusal.js";
import type {
  MandateChain,
  MandateLink,
  MandateRefusal,
  MandateStatusPort,
  MandateStatusValue,
} from "./types.js";

export interface VerifyMandateContext {
  readonly hostId: string;
  /** The host's clock, in seconds (JWT NumericDate). */
  readonly nowSec: number;
  /** RFC 7638 thumbprint of the key that signed the HTTP request (§3.2 keyid). */
  readonly requestKeyThumbprint: string;
  /** Accept aud "*" (§3.3 check 2); the reference endpoint refuses it by default. */
  readonly allowWildcardAudience?: boolean;
  /** Check 7; without one, revocation is not consulted ("The host MAY consult status"). */
  readonly status?: MandateStatusPort;
  /**
   * §3.4: accept SD-JWT VC presentations (the host lists "dc+sd-jwt" in auth.mandates).
   * Without it a presentation is refused as before, 401 MANDATE_INVALID.
   */
  readonly acceptSdJwt?: boolean;
}

export async function verifyMandate(
  value: string,
  ctx: VerifyMandateContext,
): Promise<Result<MandateChain, MandateRefusal>> {
  if (typeof value !== "string" || value === "") {
    return err(mandateInvalid("the mandate must be a compact JWS", MANDATE_HEADER));
  }
  // §3.4: a verifier tells the formats apart by "~", which a compact JWS never contains.
  if (value.includes("~")) {
    if (ctx.acceptSdJwt !== true) {
      return err(
        mandateInvalid(
          'SD-JWT VC mandates (dc+sd-jwt, §3.4) are not accepted by this host (its auth.mandates does not list "dc+sd-jwt"); send a compact JWS mandate',
          MANDATE_HEADER,
        ),
      );
    }
    return verifySdJwtMandate(value, ctx);
  }
  const decoded = decodeChain(value);
  if (!decoded.ok) return decoded;
  const [root, child] = decoded.value;

  const opts: LinkCheckOptions = {
    hostId: ctx.hostId,
    nowSec: ctx.nowSec,
    allowWildcardAudience: ctx.allowWildcardAudience ?? false,
  };
  const rootKey = await verifyRoot(root, opts);
  if (!rootKey.ok) return rootKey;
  const rootLink = toLink(root, rootKey.value, 0);
  let childLink: MandateLink | undefined;
  if (child !== undefined) {
    const childKey = await verifyChild(child, root, opts);
    if (!childKey.ok) return childKey;
    childLink = toLink(child, childKey.value, 1);
  }

  const leaf = child ?? root;
  if (leaf.claims.cnf.jkt !== ctx.requestKeyThumbprint) {
    return err(
      mandateInvalid(
        "mandate cnf.jkt is not the key that signed this request",
        claimField(leaf.field, "cnf", "jkt"),
      ),
    );
  }

  if (ctx.status !== undefined) {
    for (const link of [root, child]) {
      if (link === undefined) continue;
      if ((await linkStatus(ctx.status, link)) === "revoked") {
        return err(mandateInvalid("mandate has been revoked", link.field));
      }
    }
  }

  return ok({
    links: childLink === undefined ? [rootLink] : [rootLink, childLink],
    root: rootLink,
    leaf: childLink ?? rootLink,
    rootIss: root.claims.iss,
    principal: root.claims.iss,
    subject: root.claims.sub,
  });
}

/**
 * An SD-JWT VC mandate (§3.4): one credential, the root and leaf of a one-link chain. Its
 * envelope checks are verifySdJwtPresentation's; then the evaluated mandate goes through the
 * same §3.3 checks 2–4 and 7 as a compact root (the audience again, for one code path).
 */
async function verifySdJwtMandate(
  value: string,
  ctx: VerifyMandateContext,
): Promise<Result<MandateChain, MandateRefusal>> {
  const nowSec = ctx.nowSec;
  const verified = await verifySdJwtPresentation(value, { hostId: ctx.hostId, nowSec });
  if (!verified.ok) return verified;
  // Refusals point into the issuer JWT's claims, where the evaluated mandate came from.
  const view = { claims: verified.value.claims, field: SD_JWT_ISSUER_FIELD };
  const constraints = parseLinkConstraints(view.claims, view.field);
  if (!constraints.ok) return constraints;
  // The wildcard was refused already: §3.4 "aud holds no wildcard", whatever the host allows.
  const aud = checkAudience(view, { hostId: ctx.hostId, allowWildcardAudience: false });
  if (!aud.ok) return aud;
  const time = checkTime(view, nowSec);
  if (!time.ok) return time;
  if (view.claims.cnf.jkt !== ctx.requestKeyThumbprint) {
    return err(
      mandateInvalid(
        "cnf.jwk is not the key that signed this request (§3.4, §3.3 check 4)",
        claimField(view.field, "cnf", "jwk"),
      ),
    );
  }
  if (ctx.status !== undefined && (await linkStatus(ctx.status, view)) === "revoked") {
    return err(mandateInvalid("mandate has been revoked", MANDATE_HEADER));
  }
  const link: MandateLink = {
    compact: value,
    claims: view.claims,
    signerJwk: verified.value.principalJwk,
    depth: 0,
    format: "dc+sd-jwt",
  };
  return ok({
    links: [link],
    root: link,
    leaf: link,
    rootIss: link.claims.iss,
    principal: link.claims.iss,
    subject: link.claims.sub,
  });
}

/** Leaf first: the header's mandate, then the parent it carries. Returns [root, child?]. */
function decodeChain(value: string): Result<[DecodedLink, DecodedLink?], MandateRefusal> {
  const leaf = decodeMandateLink(value, MANDATE_HEADER);
  if (!leaf.ok) return leaf;
  const parentCompact = leaf.value.claims.parent;
  if (parentCompact === undefined) return ok([leaf.value]);
  const parent = decodeMandateLink(parentCompact, PARENT_FIELD);
  if (!parent.ok) return parent;
  // §3.3 Attenuation: chains are limited to depth 2, a root and at most one child.
  if (parent.value.claims.parent !== undefined) {
    return err(
      mandateInvalid(
        "mandate chains are limited to a root and one child",
        claimField(PARENT_FIELD, "parent"),
      ),
    );
  }
  return ok([parent.value, leaf.value]);
}

/** Revocation is best effort (§3.3 check 7): a status port that fails counts as "unknown". */
async function linkStatus(
  port: MandateStatusPort,
  link: Pick<DecodedLink, "claims">,
): Promise<MandateStatusValue> {
  const { iss, jti, status } = link.claims;
  try {
    return await port.status({ iss, jti, ...(status !== undefined && { statusUrl: status }) });
  } catch {
    return "unknown";
  }
}

function toLink(link: DecodedLink, signerJwk: MandateLink["signerJwk"], depth: 0 | 1): MandateLink {
  return { compact: link.jws.compact, claims: link.claims, signerJwk, depth, format: "schcp-mandate+jwt" };
}
