/**
 * The SchCP edge's hooks into the core (api.ts BookingEdge): the signed offer is made when a
 * hold is placed for a SchCP caller, or a change hold for a booking that stands on a SchCP
 * offer (§5.2, §5.7: kind "change", prev the current contract's hash); a fresh receipt is
 * signed whenever the core writes such a booking (§5.3); and the guest's webhooks are built
 * from the booking as it then stands (§5.8).
 */
import { offerSha256 } from "../../protocol/schcp/offer/index.js";
import type { BookingEdge } from "../../booking/api.js";
import {
  isSchcpOffer,
  schcpOffer,
  type SchcpBookingAttachment,
  type SchcpHoldAttachment,
} from "./attachment.js";
import { offerClaims, signOfferOnce, wireHold } from "./offer.js";
import { issueReceipt } from "./receipt.js";
import { notifySchcpGuest } from "./webhook.js";
import type { SchcpEdgeOptions } from "./key-app.js";
import { waitlistOffered } from "./waitlist.js";
import { verifyMeetingAcceptance } from "./meeting/acceptance.js";

export const schcpEdge: BookingEdge = {
  async holdAttachment(host, held): Promise<SchcpHoldAttachment> {
    const prev =
      held.contract.kind === "change"
        ? (schcpOffer(held.booking?.attachments)?.offerSha256 ?? null)
        : undefined;
    const claims = offerClaims(host, held, prev);
    const offer = await signOfferOnce(host, claims);
    return {
      offer,
      offerSha256: offerSha256(offer),
      claims,
      hold: wireHold(host, held.holdId, held.contract, held.expiresAt, offer),
    };
  },

  async bookingAttachment(host, state, attachment, now): Promise<unknown> {
    if (!isSchcpOffer(attachment)) return attachment;
    const signed = attachment;
    const receipt = await issueReceipt(state, host, signed, now);
    const kept: SchcpBookingAttachment = {
      offer: signed.offer,
      offerSha256: signed.offerSha256,
      claims: signed.claims,
      receipt,
    };
    return kept;
  },

  notify: notifySchcpGuest,

  // §5.9: the offer a freed time became, told to the entry's agent.
  waitlistOffered,

  // §5.12: a member's acceptance of a meeting booking's current contract.
  verifyAcceptance: verifyMeetingAcceptance,
};

/**
 * The hooks with shared booking limits (§3.3): a booking that will not happen gives each unit
 * it holds back to its key app, DELETE {status}/claims/{claim_id}, before the ending is
 * answered; a key app that does not answer is tried again in the background, never stopping
 * the cancel.
 */
export function schcpEdgeWith(options: SchcpEdgeOptions): BookingEdge {
  const keyApps = options.keyApps;
  if (keyApps === undefined) return schcpEdge;
  return {
    ...schcpEdge,
    async giveBack(host, _state, claims) {
      for (const claim of claims) {
        const back = await keyApps.giveBack(claim.keeper, claim.id).catch(() => false);
        if (!back)
          await keyApps.giveBackLater({ hostId: host.config.id, statusUrl: claim.keeper, claimId: claim.id });
      }
    },
  };
}
