import { describe, expect, it } from "vitest";
import { validateSchcp } from "../../../../src/protocol/schcp/validate.js";
import type { SchemaName } from "../../../../src/protocol/schcp/validate.js";
import * as ex from "./spec-examples.js";

type Json = Record<string, unknown>;

/** The object at a JSON pointer ("" is the root). */
function at(value: unknown, pointer: string): Json {
  let node = value;
  for (const token of pointer.split("/").slice(1)) node = (node as Json)[token];
  if (typeof node !== "object" || node === null) throw new Error(`no object at ${pointer}`);
  return node as Json;
}

const placed = <T extends Json>(v: T): T => ({
  ...v,
  place: { name: "Home", postal_code: "M6J 2W3", country: "CA" },
});

const withLocations = () => {
  const b = ex.booking();
  return {
    ...b,
    event: {
      ...b.event,
      locations: { main: { "@type": "Location", name: "Maple Street Auto, 12 Queen St" } },
    },
    proposal: {
      ...ex.changeOfferResponse().proposal,
      awaiting_host: true,
      consent: { approved: "offer", mandate: "m-1" },
    },
    declined_change: {
      proposal_id: "p_1",
      start: "2026-10-15T15:00:00-04:00",
      refusal: { code: "EXPIRED", reason: "host_did_not_answer", message: "no answer" },
    },
    answer: { by: "host", at: "2026-10-13T13:00:00Z" },
    meeting: {
      meeting_id: "mtg_1",
      revision: 1,
      contract_sha256: ex.SHA,
      pending_revision: {
        revision: 2,
        contract_sha256: ex.SHA,
        expires_at: "2026-10-16T00:00:00Z",
        answered: false,
      },
    },
    participants: [{ name: "Mira", role: "attendee", status: "not_required" }],
    reconfirm: { before: "PT24H", default: "release" },
  };
};

/**
 * [schema, example, pointer of a closed object inside it]. §5.2 "closed at any depth", §3.3
 * "unknown claims and constraint names, at any depth", §8 "request schemas are closed".
 */
const closedAt: [SchemaName, () => unknown, string[]][] = [
  ["HoldRequest", () => placed(ex.holdRequest()), ["", "/place"]],
  ["AvailabilityRequest", ex.availabilityRequest, ["", "/window", "/constraints"]],
  ["AvailabilityResponse", ex.availabilityResponse, ["", "/slots/0", "/slots/0/price", "/slots/0/total"]],
  ["Hold", () => placed(ex.hold()), ["", "/price", "/total", "/place"]],
  [
    "OfferClaims",
    ex.offer,
    ["", "/host", "/service", "/slot", "/price", "/total", "/lines/0", "/lines/1/amount"],
  ],
  ["OfferClaims", ex.changeOffer, ["/reconfirm"]],
  ["OfferClaims", ex.playdateOffer, ["/place", "/host"]],
  [
    "Booking",
    withLocations,
    ["", "/event", "/event/locations/main", "/price", "/lines/0", "/participants/0"],
  ],
  [
    "Booking",
    withLocations,
    ["/proposal", "/proposal/consent", "/declined_change", "/declined_change/refusal"],
  ],
  ["Booking", withLocations, ["/answer", "/meeting", "/meeting/pending_revision", "/reconfirm"]],
  [
    "ReceiptClaims",
    ex.receipt,
    ["", "/booking", "/booking/event", "/booking/lines/1", "/booking/total", "/consent"],
  ],
  ["BookingResponse", ex.bookingResponse, ["", "/booking", "/booking/event"]],
  [
    "MandateClaims",
    ex.mandate,
    [
      "",
      "/cnf",
      "/principal_jwk",
      "/constraints",
      "/constraints/window",
      "/constraints/max_price",
      "/consent",
      "/contact",
    ],
  ],
  ["MandateClaims", ex.childMandate, ["/issuer_jwk"]],
  ["AttestationClaims", ex.attestation, [""]],
  [
    "ConfirmRequest",
    () => ({ ...ex.confirmRequest(), participants: [{ name: "Mira", role: "attendee" }] }),
    ["", "/contact", "/participants/0"],
  ],
  ["CancelRequest", ex.cancelRequest, [""]],
  ["ChangeOfferRequest", ex.changeOfferRequest, ["", "/place"]],
  ["ChangeOfferResponse", ex.changeOfferResponse, ["", "/proposal"]],
  ["RescheduleRequest", ex.rescheduleRequest, [""]],
  ["ProposalResponseRequest", ex.proposalResponseRequest, [""]],
  ["RespondRequest", ex.respondRequest, [""]],
  ["WaitlistRequest", ex.waitlistRequest, ["", "/window"]],
  ["WaitlistEntry", ex.waitlistEntry, ["", "/window"]],
  [
    "WebhookEvent",
    ex.webhookEvent,
    ["", "/booking", "/booking/event", "/booking/refusal", "/alternatives/0"],
  ],
  ["Refusal", ex.refusalExample, ["", "/error", "/error/retry", "/error/remedies/0", "/error/remedies/1"]],
  ["MeetingContractClaims", ex.meetingContract, ["", "/principal_jwk", "/place", "/members/0", "/members/2"]],
  ["MeetingContractClaims", ex.meetingContract, ["/attendees/0"]],
  ["AcceptanceClaims", ex.acceptance, ["", "/jwk"]],
  ["RuleClaims", ex.rule, ["", "/cnf", "/principal_jwk"]],
  ["CommitRequest", ex.commitRequest, [""]],
  ["MeetingRevisionRequest", ex.meetingRevisionRequest, [""]],
  ["MeetingWithdrawRequest", ex.meetingWithdrawRequest, [""]],
  ["Money", () => ({ amount: "1.00", currency: "CAD" }), [""]],
  ["Jwk", () => ({ kty: "OKP", crv: "Ed25519", x: ex.X }), [""]],
];

const rows = closedAt.flatMap(([name, make, pointers]) =>
  pointers.flatMap((pointer) =>
    ["payment", "cancellation_fee"].map((member) => [name, pointer || "(root)", member, make] as const),
  ),
);

describe("closed schemas refuse an unknown member at every depth (§5.2, §3.3, §8)", () => {
  it.each(rows)("%s %s + %s", (name, where, member, make) => {
    const pointer = where === "(root)" ? "" : where;
    const value = make();
    expect(validateSchcp(name, value).ok).toBe(true);
    at(value, pointer)[member] = { amount: "25.00", currency: "CAD" };
    const result = validateSchcp(name, value);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("schema");
      expect(result.error.field).toBe(`${pointer}/${member}`);
    }
  });

  it("a JSON-parsed __proto__ member is an unknown member like any other", () => {
    const body: unknown = JSON.parse(
      `{"__proto__": {"payment": 1}, ${JSON.stringify(ex.cancelRequest()).slice(1)}`,
    );
    const result = validateSchcp("CancelRequest", body);
    expect(!result.ok && result.error.field).toBe("/__proto__");
  });

  it("a member name that needs escaping is reported as an RFC 6901 pointer", () => {
    const value = ex.holdRequest() as Json;
    value["a/b~c"] = 1;
    const result = validateSchcp("HoldRequest", value);
    expect(!result.ok && result.error.field).toBe("/a~1b~0c");
  });
});

describe("discovery and operator documents are open, but typed (§2.1)", () => {
  it.each(["", "/host", "/policies", "/policies/holds", "/services/0"])(
    "an unknown member at %s is ignored",
    (pointer) => {
      const doc = ex.discovery();
      at(doc, pointer).x_extension = { anything: true };
      expect(validateSchcp("DiscoveryDocument", doc).ok).toBe(true);
    },
  );

  it("an unknown member in the operator document is ignored", () => {
    const doc = ex.operatorDoc() as Json;
    doc.x_extension = 1;
    (doc.hosts as Json[])[0]!.x_note = "ok";
    expect(validateSchcp("OperatorDocument", doc).ok).toBe(true);
  });

  it.each([
    ["/policies/retention", (d: Json) => (at(d, "/policies").retention = "P1M")],
    ["/policies", (d: Json) => delete at(d, "/policies").retention],
    ["/services/0/duration", (d: Json) => (at(d, "/services/0").duration = "45 minutes")],
    ["/policies/confirmation", (d: Json) => (at(d, "/policies").confirmation = "auto")],
    ["/keys/0", (d: Json) => delete at(d, "/keys/0").kid],
    ["/host/timezone", (d: Json) => (at(d, "/host").timezone = "Mars/Olympus_Mons")],
    ["/services/0/price/amount", (d: Json) => (at(d, "/services/0/price").amount = 79)],
  ])("a wrongly typed known member fails: %s", (pointer, mutate) => {
    const doc = ex.discovery() as Json;
    mutate(doc);
    const result = validateSchcp("DiscoveryDocument", doc);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.field.startsWith(pointer)).toBe(true);
  });
});
