/**
 * Reading the HoldPayload (api.ts) the hold use case stored with a hold: the signed offer,
 * its hash and claims, and who placed it. Written by the gateway itself, so a payload that
 * does not read is corruption and throws.
 */
import type { HoldPayload } from "../api.js";

export function decodeHoldPayload(payload: string, holdId: string): HoldPayload {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    throw new Error(`hold ${holdId}: payload is not JSON`);
  }
  const p = value as Partial<HoldPayload> | null;
  if (
    p === null ||
    typeof p !== "object" ||
    p.v !== 1 ||
    typeof p.offer !== "string" ||
    typeof p.offerSha256 !== "string" ||
    typeof p.claims !== "object" ||
    typeof p.serviceId !== "string" ||
    typeof p.start !== "number" ||
    (p.kind !== "booking" && p.kind !== "change")
  ) {
    throw new Error(`hold ${holdId}: payload is not a HoldPayload`);
  }
  return p as HoldPayload;
}
