/**
 * The checks every host-signed JWS shares, offers and receipts alike (SchCP §2.1 keys, §5.2,
 * §5.3): the exact typ; a kid in the header that names one of the host's discovery keys,
 * refused when none has it and never replaced by a key from anywhere else (a header jwk,
 * jku or x5c is ignored); and an Ed25519 signature by that key.
 *
 * Field names follow decodeCompactJws with the whole JWS as "": "/header/kid",
 * "/signature", "/payload/...".
 */
import { decodeCompactJws, verifyJwsSignature } from "../../jose/jws.js";
import type { DecodedJws } from "../../jose/jws.js";
import { parseEd25519PublicJwk } from "../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../jose/jwk.js";
import { childPointer, err, fieldError, ok } from "../../result.js";
import type { FieldError, Result } from "../../result.js";
import type { Jwk } from "../types.js";

export interface HostJws {
  decoded: DecodedJws;
  kid: string;
  key: Ed25519PublicJwk;
}

export async function verifyHostJws<C extends string>(
  compact: unknown,
  discoveryKeys: readonly Jwk[],
  typ: string,
  code: C,
): Promise<Result<HostJws, FieldError<C>>> {
  const refuse = (field: string, message: string) => err(fieldError(code, field, message));
  const decoded = decodeCompactJws(compact, "");
  if (!decoded.ok) return refuse(decoded.error.field, decoded.error.message);
  const { header } = decoded.value;
  if (header.typ !== typ) return refuse("/header/typ", `typ must be "${typ}"`);

  const kid = header.kid;
  if (typeof kid !== "string" || kid === "") {
    return refuse("/header/kid", "the header must name the signing key's kid from the discovery document");
  }
  const named = discoveryKeys.filter((k) => k.kid === kid);
  if (named.length === 0) return refuse("/header/kid", `no discovery key has kid "${kid}"`);
  // §2.1: a kid is unique in the document; two keys under one kid leave no single key to trust.
  if (named.length > 1) return refuse("/header/kid", `the discovery document lists kid "${kid}" twice`);

  const key = parseEd25519PublicJwk(named[0], "/header/kid", { allowKid: true, allowUse: true });
  if (!key.ok) return refuse("/header/kid", `the discovery key "${kid}" is not a usable Ed25519 key`);
  if (!(await verifyJwsSignature(decoded.value, key.value))) {
    return refuse("/signature", `the signature does not verify with discovery key "${kid}"`);
  }
  return ok({ decoded: decoded.value, kid, key: key.value });
}

/** A pointer into the claims, as a pointer into the JWS ("/total" -> "/payload/total"). */
export function payloadField(claimsField: string): string {
  return claimsField === "" ? childPointer("", "payload") : `/payload${claimsField}`;
}
