/**
 * Where a refusal points inside a mandate. Following jose/jws.ts, a JWS's members are
 * "<jws>/header/..." and "<jws>/payload/...", so the root of a chain is reported as
 * "SchCP-Mandate/payload/parent" and its claims below that.
 */
import { childPointer } from "../../result.js";

/** The request header that carries the mandate (§3.3). */
export const MANDATE_HEADER = "SchCP-Mandate";

/** The pointer of a claim of the JWS at `jwsField`. */
export function claimField(jwsField: string, ...path: string[]): string {
  return path.reduce((at, key) => childPointer(at, key), childPointer(jwsField, "payload"));
}

/** A child's parent link: its parent claim. */
export const PARENT_FIELD = claimField(MANDATE_HEADER, "parent");
