/**
 * The hold.expired webhook (SchCP §5.8): "hold.expired carries the hold", the closed Hold as
 * the agent knew it, now with status "expired". Built from what the SchCP edge kept with the
 * hold record (its wire Hold; the core's decoder reads the payload, booking/holds/payload.ts),
 * and checked against the WebhookEvent schema before it is queued, since an agent refuses an
 * event that fails it.
 */
import type { OutboundEvent } from "../../booking/api.js";
import { decodeHoldPayload } from "../../booking/holds/payload.js";
import { schcpHold, type SchcpHoldAttachment } from "./attachment.js";
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

/**
 * What the jobs layer's sweeper sends when a hold lapses (it is handed this function, so the
 * jobs import nothing of the core's records): hold.expired to the callback_url the agent gave,
 * for a SchCP booking hold; nothing for a change offer's hold (a proposal, not a hold the agent
 * placed) or a hold placed through an edge without webhooks (no SchCP Hold kept with it).
 */
export function holdExpiredWebhook(record: HoldRecord): Result<OutboundEvent | undefined, FieldError> {
  const payload = decodeHoldPayload(record.payload);
  if (!payload.ok) return payload;
  const callbackUrl = payload.value.callbackUrl;
  const signed = schcpHold(payload.value.attachments);
  if (callbackUrl === undefined || payload.value.contract.kind !== "booking" || signed === undefined)
    return ok(undefined);
  const built = buildHoldExpiredEvent(record, signed);
  if (!built.ok) return built;
  return ok({ hostId: record.hostId, callbackUrl, event: { ...built.value } });
}
