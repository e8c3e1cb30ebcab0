/**
 * The core's BookingStatus in the spec's wire vocabulary (A2A §Lifecycle States, §3 Response
 * Fields). `status` is the reference implementation's internal status, `derived_state` the
 * Servicialo milestone with its index:
 *
 *   pending_host, tentative  pendiente_confirmacion  solicitado (0)  the host has not yet
 *                                                                    accepted the request
 *   confirmed                agendado                agendado   (1)  booked at the host's
 *                            system; "confirmado" (2) means attendance confirmed, which the
 *                            gateway never learns, so it is not claimed
 *   completed                completado              completado (4)
 *   cancelled, declined,     cancelled               cancelled (exception state, no index)
 *   expired
 *   no_show                  no_show                 cancelled (exception state, no index)
 */
import type { BookingStatus } from "../../../booking/bookings/state.js";

export interface WireState {
  readonly status: string;
  readonly derived_state: string;
  readonly derived_state_index: number | null;
}

export function wireState(status: BookingStatus): WireState {
  switch (status) {
    case "pending_host":
    case "tentative":
      return { status: "pendiente_confirmacion", derived_state: "solicitado", derived_state_index: 0 };
    case "confirmed":
      return { status: "agendado", derived_state: "agendado", derived_state_index: 1 };
    case "completed":
      return { status: "completado", derived_state: "completado", derived_state_index: 4 };
    case "no_show":
      return { status: "no_show", derived_state: "cancelled", derived_state_index: null };
    case "cancelled":
    case "declined":
    case "expired":
      return { status: "cancelled", derived_state: "cancelled", derived_state_index: null };
  }
}

/** reschedule_session's `status` (A2A §5): the internal status in the spec's English words. */
export function internalStatus(status: BookingStatus): string {
  if (status === "confirmed") return "scheduled";
  if (status === "pending_host" || status === "tentative") return "pending_confirmation";
  return status;
}
