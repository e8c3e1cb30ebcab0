/**
 * The key app's side of SchCP §3.4: one SD-JWT VC mandate for several hosts, each with its own
 * host_constraints member, aud elements and members as disclosures, padded with decoy digests
 * so their length does not count the hosts. The host never calls this.
 *
 * The mechanics are RFC 9901 §4.2 (disclosures, digests over their base64url form, decoys per
 * §4.2.5), small enough to write against the verifier's own rules. @sd-jwt/core's issuer would
 * fit, but the agent package would then depend on it (and its async hasher and signer plumbing)
 * for a few lines; the interop test checks this output against it instead (disclosures.ts says
 * why the verifier does not use it).
 */
import { jwkThumbprint, principalUrn } from "../../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../../jose/jwk.js";
import { encodeBase64Url, sha256Base64Url } from "../../../json/base64.js";
import { randomToken } from "../../../random.js";
import type { Contact, MandateConstraints, MandateScope } from "../../types.js";
import { ARRAY_DIGEST_KEY, SD_ALG_KEY, SD_KEY } from "./disclosures.js";
import { signJws } from "./keys.js";
import type { SdJwtSigningKey } from "./keys.js";
import { SD_ALG, SD_JWT_TYP } from "./profile.js";

export interface SdJwtMandateClaims {
  readonly sub: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  /** The agent's Ed25519 key, bound as cnf.jwk (§3.4 "Keys"). */
  readonly cnfJwk: Ed25519PublicJwk;
  readonly scope: readonly MandateScope[];
  /** Constraints every host applies. */
  readonly constraints?: MandateConstraints;
  /** One member per audience, possibly {}: the aud list is its keys (§3.4). */
  readonly hosts: Readonly<Record<string, MandateConstraints>>;
  readonly consent?: { readonly mode: "human_present" | "human_not_present"; readonly statement?: string };
  readonly contact?: Contact;
  /** Revocation (§3.3 check 7); the profile's name for status (§3.4). */
  readonly schcp_status?: string;
}

export interface SdJwtIssueOptions {
  /**
   * Pad aud and host_constraints to at least this many digests (§3.4 SHOULD pad with decoys);
   * default 8, so any one to eight hosts look alike. 0 adds no decoys. A closed mandate gets none.
   */
  readonly padTo?: number;
}

export interface IssuedSdJwtMandate {
  /** The SD-JWT as issued: the issuer JWT and every disclosure, each followed by ~ (RFC 9901 §4). */
  readonly sdJwt: string;
  readonly iss: string;
  readonly hosts: readonly string[];
}

const DEFAULT_PAD = 8;

/** Throws TypeError for what §3.4 forbids the issuer: a wildcard, a constraint in both places, a wide closed mandate. */
export function issueSdJwtMandate(
  claims: SdJwtMandateClaims,
  principal: SdJwtSigningKey,
  opts: SdJwtIssueOptions = {},
): IssuedSdJwtMandate {
  const hosts = Object.keys(claims.hosts);
  if (hosts.length === 0) throw new TypeError("issueSdJwtMandate: name at least one host");
  if (hosts.includes("*")) throw new TypeError("issueSdJwtMandate: aud holds no wildcard (§3.4)");
  const shared = claims.constraints ?? {};
  for (const [host, member] of Object.entries(claims.hosts)) {
    const both = Object.keys(member).filter((k) => Object.hasOwn(shared, k));
    if (both.length > 0) {
      throw new TypeError(`issueSdJwtMandate: ${both.join(", ")} set both shared and for ${host} (§3.4)`);
    }
  }
  const closed =
    shared.offer_sha256 !== undefined ||
    Object.values(claims.hosts).some((m) => m.offer_sha256 !== undefined);
  if (closed && hosts.length !== 1) {
    throw new TypeError("issueSdJwtMandate: a closed mandate names exactly one host (§3.4)");
  }
  const pad = closed ? 0 : (opts.padTo ?? DEFAULT_PAD);

  const disclosures: string[] = [];
  const disclose = (content: unknown[]): string => {
    const encoded = encodeBase64Url(new TextEncoder().encode(JSON.stringify([randomToken(16), ...content])));
    disclosures.push(encoded);
    return sha256Base64Url(encoded);
  };
  const audDigests = padded(
    hosts.map((h) => disclose([h])),
    pad,
  );
  const memberDigests = padded(
    hosts.map((h) => disclose([h, claims.hosts[h]])),
    pad,
  );
  const iss = principalUrn(jwkThumbprint(principal.publicJwk));
  const payload: Record<string, unknown> = {
    iss,
    sub: claims.sub,
    aud: audDigests.map((d) => ({ [ARRAY_DIGEST_KEY]: d })),
    iat: claims.iat,
    exp: claims.exp,
    jti: claims.jti,
    cnf: { jwk: claims.cnfJwk },
    scope: [...claims.scope],
    ...(claims.constraints !== undefined && { constraints: claims.constraints }),
    host_constraints: { [SD_KEY]: memberDigests },
    ...(claims.consent !== undefined && { consent: claims.consent }),
    ...(claims.contact !== undefined && { contact: claims.contact }),
    ...(claims.schcp_status !== undefined && { schcp_status: claims.schcp_status }),
    [SD_ALG_KEY]: SD_ALG,
  };
  // Shuffled disclosures too, so their order says nothing about aud's.
  disclosures.sort();
  const issuerJwt = signJws({ typ: SD_JWT_TYP, jwk: principal.publicJwk }, payload, principal);
  return { sdJwt: `${issuerJwt}~${disclosures.map((d) => `${d}~`).join("")}`, iss, hosts };
}

/**
 * Real digests plus decoys (RFC 9901 §4.2.5: the digest of a random value), sorted, which
 * shuffles them (RFC 9901 §4.2.4.1): position says nothing about which are real.
 */
function padded(digests: string[], padTo: number): string[] {
  const out = [...digests];
  while (out.length < padTo) out.push(sha256Base64Url(randomToken(16)));
  return out.sort();
}
