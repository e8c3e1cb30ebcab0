/**
 * What the outbox accepts (SchCP §5.8): an event that matches the closed WebhookEvent schema
 * (an agent refuses one that does not, so sending it would be pointless) and names the host it
 * is delivered for. Checked once, at enqueue, so a bad event is reported where it was made.
 */
import { createHash } from "node:crypto";
import type { OutboundEvent } from "../../booking/api.js";
import { err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";
import { validateSchcp } from "../../protocol/schcp/validate.js";
import type { WebhookEvent } from "../../protocol/schcp/types.js";

export function checkOutboundEvent(outbound: OutboundEvent): Result<WebhookEvent, FieldError> {
  const valid = validateSchcp("WebhookEvent", outbound.event);
  if (!valid.ok) return err(fieldError("invalid_event", `/event${valid.error.field}`, valid.error.message));
  if (valid.value.host_id !== outbound.hostId) {
    return err(
      fieldError("host_mismatch", "/event/host_id", "host_id is not the host the event is sent for"),
    );
  }
  if (typeof outbound.callbackUrl !== "string" || !URL.canParse(outbound.callbackUrl)) {
    return err(fieldError("invalid_callback_url", "/callbackUrl", "callbackUrl is not an absolute URL"));
  }
  return ok(valid.value);
}

const SAFE_JOB_ID = /^[A-Za-z0-9_.~-]{1,200}$/;

/**
 * The queue's job id for an event: the event_id itself, so one event is enqueued once.
 * BullMQ refuses integer-looking ids and ':' in custom ids; anything it would refuse, or that
 * is very long, is replaced by a digest of itself (still one id per event).
 */
export function jobIdFor(eventId: string): string {
  if (SAFE_JOB_ID.test(eventId) && String(Number.parseInt(eventId, 10)) !== eventId) return eventId;
  return `x-${createHash("sha256").update(eventId).digest("base64url")}`;
}
