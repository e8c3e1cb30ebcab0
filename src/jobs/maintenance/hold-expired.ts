/**
 * The hold.expired webhook (SchCP §5.8): "hold.expired carries the hold", the closed Hold as
 * the agent knew it, now with status "expired". Built from the HoldPayload the core stored
 * with the hold record (its wire Hold and callback_url), and checked against the WebhookEvent
 * schema before it is queued, since an agent refuses an event that fails it.
 */
import type { HoldPayload } from "../../booking/api.js";
import type { HoldRecord } from "../../holds/port.js";
import { sha256 } from "../../protocol/json/base64.js";
import { encodeBase64Url } from "../../protocol/json/base64.js";
import { err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";
import { validateSchcp } from "../../protocol/schcp/validate.js";
import type { WebhookEvent } from "../../protocol/schcp/types.js";
import { formatInstant } from "../../protocol/time/index.js";

/**
 * The stored payload, read tolerantly but checked for what this job relies on. It was
 * written by this gateway, so a failure here is a bug or a format change, and is logged.
 */
export function readHoldPayload(raw: string): Result<HoldPayload, FieldError> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return err(fieldError("invalid_payload", "", "the hold's payload is not JSON"));
  }
  if (typeof value !== "object" || value === null) {
    return err(fieldError("invalid_payload", "", "the hold's payload is not an object"));
  }
  const p = value as Partial<Record<keyof HoldPayload, unknown>>;
  if (p.v !== 1) return err(fieldError("invalid_payload", "/v", "unknown payload version"));
  if (typeof p.hold !== "object" || p.hold === null) {
    return err(fieldError("invalid_payload", "/hold", "the payload has no wire Hold"));
  }
  if (p.kind !== "booking" && p.kind !== "change") {
    return err(fieldError("invalid_payload", "/kind", "kind must be booking or change"));
  }
  if (p.callbackUrl !== undefined && typeof p.callbackUrl !== "string") {
    return err(fieldError("invalid_payload", "/callbackUrl", "callbackUrl must be a string"));
  }
  return ok(value as HoldPayload);
}

/**
 * One id per expiry, derived from it (host, hold, creation time; a hold id may be reused once
 * its hold has ended), so queuing the same expiry twice is still one job (job id = event_id).
 */
export function holdExpiredEventId(record: HoldRecord): string {
  const digest = sha256(`hold.expired\n${record.hostId}\n${record.holdId}\n${record.createdAt}`);
  return `e_${encodeBase64Url(digest).slice(0, 26)}`;
}

export function buildHoldExpiredEvent(
  record: HoldRecord,
  payload: HoldPayload,
): Result<WebhookEvent, FieldError> {
  const event = {
    event_id: holdExpiredEventId(record),
    type: "hold.expired",
    host_id: record.hostId,
    occurred_at: formatInstant(record.endedAt ?? record.expiresAt),
    hold: { ...payload.hold, status: "expired", expires_at: formatInstant(record.expiresAt) },
  };
  const valid = validateSchcp("WebhookEvent", event);
  if (!valid.ok) return err(fieldError("invalid_event", valid.error.field, valid.error.message));
  return ok(valid.value);
}
