/**
 * Signing a receipt (SchCP §5.3): a JWS over the booking, by a host key from the discovery
 * document. The claims are checked first (checkReceiptClaims), so a host never hands out a
 * receipt an agent must refuse.
 */
import { signCompactJws } from "../../jose/jws.js";
import { ok } from "../../result.js";
import type { Result } from "../../result.js";
import type { HostSigningKey } from "../offer/host-key.js";
import type { ReceiptClaims } from "../types.js";
import { checkReceiptClaims } from "./claims.js";

export const RECEIPT_TYP = "schcp-receipt+jwt";

/** Errors are receipt_invalid with a JSON pointer into the claims. */
export async function signReceipt(claims: ReceiptClaims, key: HostSigningKey): Promise<Result<string>> {
  const checked = checkReceiptClaims(claims);
  if (!checked.ok) return checked;
  const header = { alg: "EdDSA", typ: RECEIPT_TYP, kid: key.kid };
  return ok(await signCompactJws(header, { ...claims }, key.privateKey));
}
