/**
 * Host-initiated changes reach a SchCP guest as webhooks (§5.8): an event carrying the
 * booking as it now stands and its fresh signed receipt, sent to the hold's callback_url. The
 * core names the change (api.ts BookingNotice); here it is built and checked against the
 * closed WebhookEvent schema, because an agent refuses an event that fails; the jobs layer
 * signs and delivers it.
 */
import type { BookingDeps, BookingNotice, HostRuntime, NoticeExtras } from "../../booking/api.js";
import { formatInstant } from "../../protocol/time/index.js";
import { validateSchcp } from "../../protocol/schcp/validate.js";
import type { Slot, WebhookEvent } from "../../protocol/schcp/types.js";
import type { BookingState } from "../../booking/bookings/state.js";
import { schcpBooking } from "./attachment.js";
import { buildBooking, wireRefusal } from "./wire.js";

function bookingEvent(
  deps: Pick<BookingDeps, "ids">,
  host: HostRuntime,
  state: BookingState,
  notice: BookingNotice,
  now: number,
  extras: NoticeExtras = {},
): WebhookEvent {
  const signed = schcpBooking(state.attachments);
  if (signed === undefined) throw new Error(`booking ${state.bookingId} carries no SchCP offer`);
  const tz = host.config.timezone;
  const alternatives = extras.alternatives?.map((s): Slot => ({
    start: formatInstant(s.start, tz),
    ...(s.end === undefined ? { open_end: true as const } : { end: formatInstant(s.end, tz) }),
  }));
  const type = `booking.${notice}` as const;
  const event: WebhookEvent = {
    event_id: deps.ids.next("e_"),
    type,
    host_id: host.config.id,
    occurred_at: formatInstant(now),
    booking: buildBooking(state, host, signed),
    receipt: signed.receipt,
    ...(extras.refusal !== undefined && { refusal: wireRefusal(extras.refusal) }),
    ...(alternatives !== undefined && { alternatives }),
  };
  const valid = validateSchcp("WebhookEvent", event);
  // Built from our own state: a failure is a gateway bug, never sent (§5.8).
  if (!valid.ok) throw new Error(`webhook ${type}: ${valid.error.field} ${valid.error.message}`);
  return event;
}

/** Enqueues the event when the hold gave a callback_url; agents can always poll instead (§5.8). */
export async function notifySchcpGuest(
  deps: Pick<BookingDeps, "ids" | "outbox">,
  host: HostRuntime,
  state: BookingState,
  notice: BookingNotice,
  now: number,
  extras: NoticeExtras = {},
): Promise<void> {
  if (state.callbackUrl === undefined) return;
  const event = bookingEvent(deps, host, state, notice, now, extras);
  await deps.outbox.enqueue({ hostId: host.config.id, callbackUrl: state.callbackUrl, event: { ...event } });
}
