/**
 * Host-initiated changes reach the guest as webhooks (SchCP §5.8): an event carrying the
 * booking as it now stands and its fresh signed receipt, sent to the hold's callback_url.
 * The jobs layer signs and delivers it; here it is built and checked against the closed
 * WebhookEvent schema, because an agent refuses an event that fails.
 */
import type { BookingDeps, HostRuntime } from "../api.js";
import { formatInstant } from "../../protocol/time/index.js";
import { validateSchcp } from "../../protocol/schcp/validate.js";
import type { RefusalError, Slot, WebhookEvent, WebhookEventType } from "../../protocol/schcp/types.js";
import type { BookingState } from "./state.js";
import { buildBooking } from "./wire.js";

export interface WebhookExtras {
  readonly refusal?: RefusalError;
  readonly alternatives?: readonly Slot[];
}

export function bookingEvent(
  deps: Pick<BookingDeps, "ids">,
  host: HostRuntime,
  state: BookingState,
  type: Extract<WebhookEventType, `booking.${string}`>,
  now: number,
  extras: WebhookExtras = {},
): WebhookEvent {
  const event: WebhookEvent = {
    event_id: deps.ids.next("e_"),
    type,
    host_id: host.config.id,
    occurred_at: formatInstant(now),
    booking: buildBooking(state, host),
    receipt: state.receipt,
    ...(extras.refusal !== undefined && { refusal: extras.refusal }),
    ...(extras.alternatives !== undefined && { alternatives: [...extras.alternatives] }),
  };
  const valid = validateSchcp("WebhookEvent", event);
  // Built from our own state: a failure is a gateway bug, never sent (§5.8).
  if (!valid.ok) throw new Error(`webhook ${type}: ${valid.error.field} ${valid.error.message}`);
  return event;
}

/** Enqueues the event when the hold gave a callback_url; agents can always poll instead (§5.8). */
export async function notifyGuest(
  deps: Pick<BookingDeps, "ids" | "outbox">,
  host: HostRuntime,
  state: BookingState,
  type: Extract<WebhookEventType, `booking.${string}`>,
  now: number,
  extras: WebhookExtras = {},
): Promise<void> {
  if (state.callbackUrl === undefined) return;
  const event = bookingEvent(deps, host, state, type, now, extras);
  await deps.outbox.enqueue({ hostId: host.config.id, callbackUrl: state.callbackUrl, event: { ...event } });
}
