/**
 * verifyMandate: the SchCP-Mandate header value to a verified chain (§3.3 checks
 * 1–4 and 7, every chain rule). Decodes from the leaf, checks the root first.
 */
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { verifyChild, verifyRoot } from "./chain.js";
import type { LinkCheckOptions } from "./chain.js";
import { decodeMandateLink } from "./decode-link.js";
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
}

export async function verifyMandate(
  value: string,
  ctx: VerifyMandateContext,
): Promise<Result<MandateChain, MandateRefusal>> {
  if (typeof value !== "string" || value === "") {
    return err(mandateInvalid("the mandate must be a compact JWS", MANDATE_HEADER));
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
async function linkStatus(port: MandateStatusPort, link: DecodedLink): Promise<MandateStatusValue> {
  const { iss, jti, status } = link.claims;
  try {
    return await port.status({ iss, jti, ...(status !== undefined && { statusUrl: status }) });
  } catch {
    return "unknown";
  }
}

function toLink(link: DecodedLink, signerJwk: MandateLink["signerJwk"], depth: 0 | 1): MandateLink {
  return { compact: link.jws.compact, claims: link.claims, signerJwk, depth };
}
