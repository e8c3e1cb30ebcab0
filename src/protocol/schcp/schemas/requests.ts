/**
 * Request bodies of the booking operations (SchCP §5.3–§5.12). Every one is closed: "Request
 * schemas are closed, so an endpoint MUST reject a request that carries payment data" (§8).
 * Availability and hold requests live in ./hold.ts.
 */
import { closed, enumOf, nonNegativeInt, positiveInt, ref, str, text } from "./common.js";
import type { Schema } from "./common.js";

const idempotency_key = ref("Id");
const sequence = nonNegativeInt;

export const requestDefs: Record<string, Schema> = {
  /** §5.10: a required participant has who; a named-only one a name. */
  ParticipantRequest: {
    ...closed(
      {
        who: ref("PrincipalId"),
        name: str,
        role: enumOf("attendee", "invitee"),
        relationship: str,
        confirm_within: ref("Duration"),
        default: enumOf("release", "keep"),
      },
      ["role"],
    ),
    anyOf: [{ required: ["who"] }, { required: ["name"] }],
  },
  ConfirmRequest: closed(
    {
      idempotency_key,
      // REQUIRED: "a request without it fails schema validation" (§5.3).
      offer_sha256: ref("Sha256"),
      contact: ref("Contact"),
      notes: text,
      participants: { type: "array", items: ref("ParticipantRequest"), minItems: 1 },
      meeting: ref("CompactJws"),
      answers: enumOf("person", "person_or_rule"),
    },
    ["idempotency_key", "offer_sha256"],
  ),
  CancelRequest: closed({ idempotency_key, reason: text }, ["idempotency_key"]),
  /** §5.7: start and place are each optional, but a request names at least one. */
  ChangeOfferRequest: {
    ...closed({ idempotency_key, sequence, start: ref("DateTime"), place: ref("Place") }, [
      "idempotency_key",
      "sequence",
    ]),
    anyOf: [{ required: ["start"] }, { required: ["place"] }],
  },
  ChangeOfferResponse: closed({ proposal: ref("Proposal") }, ["proposal"]),
  RescheduleRequest: closed({ idempotency_key, sequence, offer_sha256: ref("Sha256") }, [
    "idempotency_key",
    "sequence",
    "offer_sha256",
  ]),
  /** §5.8: offer_sha256 is required when accepting. */
  ProposalResponseRequest: {
    ...closed(
      {
        idempotency_key,
        proposal_id: ref("Id"),
        accept: { type: "boolean" },
        sequence,
        offer_sha256: ref("Sha256"),
      },
      ["idempotency_key", "proposal_id", "accept", "sequence"],
    ),
    if: { properties: { accept: { const: true } } },
    then: { required: ["offer_sha256"] },
  },
  /** §5.10: { idempotency_key, accept, offer_sha256 }, all three named, so all required. */
  RespondRequest: closed({ idempotency_key, accept: { type: "boolean" }, offer_sha256: ref("Sha256") }, [
    "idempotency_key",
    "accept",
    "offer_sha256",
  ]),
  CommitRequest: closed(
    {
      idempotency_key,
      contract_sha256: ref("Sha256"),
      acceptances: { type: "array", items: ref("CompactJws") },
    },
    ["idempotency_key", "contract_sha256", "acceptances"],
  ),
  MeetingRevisionRequest: closed({ idempotency_key, sequence, contract: ref("CompactJws") }, [
    "idempotency_key",
    "sequence",
    "contract",
  ]),
  MeetingWithdrawRequest: closed({ idempotency_key, contract_sha256: ref("Sha256"), reason: text }, [
    "idempotency_key",
    "contract_sha256",
    "reason",
  ]),
  WaitlistRequest: closed(
    {
      idempotency_key,
      service_id: ref("Id"),
      window: ref("TimeWindow"),
      callback_url: ref("HttpsUri"),
      party_size: positiveInt,
      place: ref("Place"),
    },
    ["idempotency_key", "service_id", "window"],
  ),
};
