import { describe, expect, it } from "vitest";
import { validateSchcp } from "../../../../src/protocol/schcp/validate.js";
import type { SchemaName } from "../../../../src/protocol/schcp/validate.js";
import * as ex from "./spec-examples.js";

/** Every JSON example printed in SchCP v0.4, "…" filled in, against its schema. */
const cases: [string, SchemaName, () => unknown][] = [
  ["§2.1 discovery document (with §2.4 brand)", "DiscoveryDocument", ex.discovery],
  ["§2.3 operator document", "OperatorDocument", ex.operatorDoc],
  ["§5.1 availability request", "AvailabilityRequest", ex.availabilityRequest],
  [
    "§5.1 availability response (priced, open-ended, unpriced slots)",
    "AvailabilityResponse",
    ex.availabilityResponse,
  ],
  ["§5.2 hold request", "HoldRequest", ex.holdRequest],
  ["§5.2 hold response", "Hold", ex.hold],
  ["§5.2 offer with a price", "OfferClaims", ex.offer],
  ["§5.2 playdate offer: no money, no end", "OfferClaims", ex.playdateOffer],
  ["§5.7 change offer", "OfferClaims", ex.changeOffer],
  ["§5.3 confirm request", "ConfirmRequest", ex.confirmRequest],
  ["§5.3 confirm response", "BookingResponse", ex.bookingResponse],
  ["§5.3 booking", "Booking", ex.booking],
  ["§5.3 receipt claims", "ReceiptClaims", ex.receipt],
  ["§3.3 mandate", "MandateClaims", ex.mandate],
  ["§3.3 delegated child mandate", "MandateClaims", ex.childMandate],
  ["§7.5 attestation", "AttestationClaims", ex.attestation],
  ["§5.6 cancel request", "CancelRequest", ex.cancelRequest],
  ["§5.7 change-offer request", "ChangeOfferRequest", ex.changeOfferRequest],
  ["§5.7 change-offer response", "ChangeOfferResponse", ex.changeOfferResponse],
  ["§5.7 reschedule request", "RescheduleRequest", ex.rescheduleRequest],
  ["§5.8 proposal-response request", "ProposalResponseRequest", ex.proposalResponseRequest],
  ["§5.10 respond request", "RespondRequest", ex.respondRequest],
  ["§5.9 waitlist request", "WaitlistRequest", ex.waitlistRequest],
  ["§5.9 waitlist entry", "WaitlistEntry", ex.waitlistEntry],
  ["§9 error", "Refusal", ex.refusalExample],
  ["§5.8 webhook event", "WebhookEvent", ex.webhookEvent],
  ["§5.12 meeting contract", "MeetingContractClaims", ex.meetingContract],
  ["§5.12 acceptance", "AcceptanceClaims", ex.acceptance],
  ["§5.12 commit request", "CommitRequest", ex.commitRequest],
  ["§5.12 meeting revision request", "MeetingRevisionRequest", ex.meetingRevisionRequest],
  ["§5.12 meeting withdraw request", "MeetingWithdrawRequest", ex.meetingWithdrawRequest],
  ["§7.9 rule", "RuleClaims", ex.rule],
];

describe("SchCP spec examples validate", () => {
  it.each(cases)("%s", (_label, name, make) => {
    const result = validateSchcp(name, make());
    expect(result.ok ? "valid" : result.error).toBe("valid");
  });

  it("§5.10 participants in a confirm request", () => {
    const body = {
      ...ex.confirmRequest(),
      participants: [
        {
          who: ex.PRINCIPAL,
          role: "invitee",
          relationship: "brother",
          confirm_within: "PT2H",
          default: "release",
        },
        { name: "Mira", role: "attendee", relationship: "child" },
      ],
    };
    expect(validateSchcp("ConfirmRequest", body).ok).toBe(true);
  });

  it("§7.9 a booking answered by a rule, with participants and a meeting", () => {
    const b = {
      ...ex.booking(),
      status: "tentative",
      answer: { by: "rule", rule: "Weekend playdates with my contacts", at: "2026-10-13T13:00:00Z" },
      participants: [
        {
          who: ex.PRINCIPAL,
          role: "booker",
          confirm_by: "2026-10-14T13:00:00Z",
          default: "release",
          status: "pending",
        },
        { name: "Mira", role: "attendee", relationship: "child", status: "not_required" },
      ],
      meeting: { meeting_id: "mtg_01J9ZH", revision: 1, contract_sha256: ex.SHA, acceptance: ex.JWS },
    };
    expect(validateSchcp("BookingResponse", { booking: b, receipt: ex.JWS, contract: ex.JWS }).ok).toBe(true);
  });
});
