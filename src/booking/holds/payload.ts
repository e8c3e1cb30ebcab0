/**
 * The hold record's payload (api.ts HoldPayload): the wire Hold, the signed offer bytes and
 * their hash, the claims, and what the confirm needs, as JSON. Decoding checks the shape the
 * core relies on and answers a Result, so a corrupt record is reported, never thrown.
 */
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import type { HoldPayload } from "../api.js";

export function encodeHoldPayload(payload: HoldPayload): string {
  return JSON.stringify(payload);
}

export function decodeHoldPayload(text: string): Result<HoldPayload, FieldError> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err(fieldError("invalid_payload", "", "the hold payload is not JSON"));
  }
  const p = value as Partial<HoldPayload> | null;
  if (
    typeof p !== "object" ||
    p === null ||
    p.v !== 1 ||
    typeof p.offer !== "string" ||
    typeof p.offerSha256 !== "string" ||
    typeof p.hold !== "object" ||
    typeof p.claims !== "object" ||
    typeof p.serviceId !== "string" ||
    typeof p.start !== "number" ||
    typeof p.agentKey !== "string" ||
    (p.kind !== "booking" && p.kind !== "change")
  ) {
    return err(fieldError("invalid_payload", "", "the hold payload is not a version 1 HoldPayload"));
  }
  return ok(p as HoldPayload);
}
