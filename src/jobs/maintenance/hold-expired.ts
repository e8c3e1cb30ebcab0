/**
 * The hold.expired webhook (SchCP §5.8): "hold.expired carries the hold", the closed Hold as
 * the agent knew it, now with status "expired". Built from what the SchCP edge kept with the
 * hold record (its wire Hold; the core's decoder reads the payload, booking/holds/payload.ts),
 * and checked against the WebhookEvent schema before it is queued, since an agent refuses an
 * event that fails it.
 */
import type { SchcpHoldAttachment } from "../../booking/schcp/attachment.js";
import type { HoldRecord } from "../../holds/port.js";
import { sha256 } from "../../protocol/json/base64.js";
import { encodeBase64Url } from "../../protocol/json/base64.js";
import { err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";
import { validateSchcp } from "../../protocol/schcp/validate.js";
import type { WebhookEvent } from "../../protocol/schcp/types.js";
import { formatInstant } from "../../protocol/time/index.js";

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
  signed: Pick<SchcpHoldAttachment, "hold">,
): Result<WebhookEvent, FieldError> {
  const event = {
    event_id: holdExpiredEventId(record),
    type: "hold.expired",
    host_id: record.hostId,
    occurred_at: formatInstant(record.endedAt ?? record.expiresAt),
    hold: { ...signed.hold, status: "expired", expires_at: formatInstant(record.expiresAt) },
  };
  const valid = validateSchcp("WebhookEvent", event);
  if (!valid.ok) return err(fieldError("invalid_event", valid.error.field, valid.error.message));
  return ok(valid.value);
}
