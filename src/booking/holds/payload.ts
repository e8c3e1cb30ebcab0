/**
 * The hold record's payload (api.ts HoldPayload): the neutral contract, who placed the hold,
 * and each edge's attachment, as JSON. The one decoder of the stored record: it checks the
 * shape the core relies on and answers a Result, so a corrupt record is reported, never
 * thrown (decodeHoldOrThrow is for callers to whom corruption is a bug).
 *
 * Version 1 (before the core and the SchCP edge were split) kept the wire Hold and the signed offer at the top
 * level; it is read into version 2 with those as the SchCP attachment.
 */
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import type { HoldPayload } from "../api.js";
import { contractFromClaims, type StoredOfferTerms } from "../bookings/state.js";
import type { Place } from "../contract.js";

export function encodeHoldPayload(payload: HoldPayload): string {
  return JSON.stringify(payload);
}

const invalid = (message: string, field = "") => err(fieldError("invalid_payload", field, message));

export function decodeHoldPayload(text: string): Result<HoldPayload, FieldError> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid("the hold payload is not JSON");
  }
  if (typeof value !== "object" || value === null) return invalid("the hold payload is not an object");
  const p = value as Record<string, unknown>;
  if (typeof p["agentKey"] !== "string") return invalid("the hold payload lacks its agent", "/agentKey");
  if (p["callbackUrl"] !== undefined && typeof p["callbackUrl"] !== "string")
    return invalid("the hold payload's callbackUrl is not a string", "/callbackUrl");
  if (p["v"] === 2) {
    const c = p["contract"] as Partial<HoldPayload["contract"]> | undefined;
    if (
      typeof c !== "object" ||
      c === null ||
      typeof c.service?.id !== "string" ||
      typeof c.start !== "number" ||
      (c.kind !== "booking" && c.kind !== "change")
    ) {
      return invalid("the hold payload lacks its contract", "/contract");
    }
    return ok(value as HoldPayload);
  }
  if (p["v"] === 1) return fromV1(p);
  return invalid("unknown hold payload version", "/v");
}

/** For callers that wrote the record themselves: a payload that does not read is a bug. */
export function decodeHoldOrThrow(text: string, holdId: string): HoldPayload {
  const decoded = decodeHoldPayload(text);
  if (!decoded.ok) throw new Error(`hold ${holdId}: ${decoded.error.message}`);
  return decoded.value;
}

function fromV1(p: Record<string, unknown>): Result<HoldPayload, FieldError> {
  const { offer, offerSha256, claims, hold } = p;
  if (typeof hold !== "object" || hold === null) return invalid("the payload has no wire Hold", "/hold");
  if (p["kind"] !== "booking" && p["kind"] !== "change")
    return invalid("kind must be booking or change", "/kind");
  if (
    typeof offer !== "string" ||
    typeof offerSha256 !== "string" ||
    typeof claims !== "object" ||
    claims === null ||
    typeof p["serviceId"] !== "string" ||
    typeof p["start"] !== "number"
  ) {
    return invalid("the hold payload is not a version 1 HoldPayload");
  }
  const start = p["start"];
  const end = typeof p["end"] === "number" ? p["end"] : undefined;
  const partySize = typeof p["partySize"] === "number" ? p["partySize"] : 1;
  const place = p["place"] as Place | undefined;
  const str = (k: string): string | undefined => (typeof p[k] === "string" ? p[k] : undefined);
  const bookingId = str("bookingId");
  const proposalId = str("proposalId");
  const by = p["by"] === "guest" || p["by"] === "host" ? p["by"] : undefined;
  const callbackUrl = str("callbackUrl");
  return ok({
    v: 2,
    contract: contractFromClaims(claims as StoredOfferTerms, {
      start,
      ...(end !== undefined && { end }),
      partySize,
      ...(place !== undefined && { place }),
    }),
    ...(bookingId !== undefined && { bookingId }),
    ...(proposalId !== undefined && { proposalId }),
    ...(by !== undefined && { by }),
    agentKey: p["agentKey"] as string,
    principal: str("principal") ?? null,
    ...(callbackUrl !== undefined && { callbackUrl }),
    // The SchCP edge's attachment, as that edge reads it (its signed offer, claims and wire Hold).
    attachments: { schcp: { offer, offerSha256, claims, hold } },
  });
}
