/**
 * Which of the five intents a host can really serve (A2A §Agent Card Shape: "only verified
 * capabilities"), read from what its upstream and policies allow:
 *
 *   list_services, check_availability  every host
 *   book_session        a public host (policies.access "public") with at least one public
 *                       service; a contacts-only host refuses an anonymous agent, so offering
 *                       it would only lead to 403s
 *   cancel_session      the upstream can cancel (BookingAbilities.cancel; Openings cannot)
 *   reschedule_session  the upstream can move (BookingAbilities.move; Openings cannot)
 *
 * An intent a host cannot serve answers 404 (below, notOffered): the operation does not exist
 * for that organization, exactly as its agent card does not list it; 400 would tell the
 * client to fix its request, which no request can.
 */
import type { HostRuntime } from "../../../booking/api.js";
import { bookingAbilitiesOf } from "../../../booking/hosts/capabilities.js";
import type { A2aIntent, IntentOutcome } from "../port.js";
import { A2A_INTENTS } from "../port.js";
import { publicServices } from "./services.js";
import { failure } from "./wire.js";

export function hostIntents(host: HostRuntime): readonly A2aIntent[] {
  const abilities = bookingAbilitiesOf(host);
  const can: Record<A2aIntent, boolean> = {
    list_services: true,
    check_availability: true,
    book_session: host.config.policies.access === "public" && publicServices(host).length > 0,
    cancel_session: abilities.cancel,
    reschedule_session: abilities.move,
  };
  return A2A_INTENTS.filter((i) => can[i]);
}

export const notOffered = (intent: A2aIntent): IntentOutcome =>
  failure(404, `This organization does not offer ${intent} through this gateway`, "INTENT_NOT_AVAILABLE");
