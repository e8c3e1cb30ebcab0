import { describe, expect, it } from "vitest";
import { validateSchcp } from "../../../../src/protocol/schcp/validate.js";
import type { SchemaName } from "../../../../src/protocol/schcp/validate.js";
import * as ex from "./spec-examples.js";

type Json = Record<string, unknown>;
type Mutation = (value: unknown) => void;
/** expected: "valid", or the JSON pointer the error must name. */
type Row = [label: string, make: () => unknown, mutate: Mutation | Mutation[], expected: string];

/** The parent object of a JSON pointer's last token, and that token. */
function parentOf(value: unknown, pointer: string): [Json, string] {
  const tokens = pointer.split("/").slice(1);
  const last = tokens.pop() ?? "";
  let node = value;
  for (const t of tokens) node = (node as Json)[t];
  return [node as Json, last];
}
const set =
  (pointer: string, v: unknown): Mutation =>
  (value) => {
    const [parent, key] = parentOf(value, pointer);
    parent[key] = v;
  };
const del =
  (pointer: string): Mutation =>
  (value) => {
    const [parent, key] = parentOf(value, pointer);
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  };

/** Runs a table: each row mutates a valid example and expects "valid" or the failing pointer. */
function table(name: SchemaName, rows: Row[]): void {
  it.each(rows)("%s", (_label, make, mutate, expected) => {
    const value = make();
    for (const m of Array.isArray(mutate) ? mutate : [mutate]) m(value);
    const result = validateSchcp(name, value);
    expect(result.ok ? "valid" : result.error.field).toBe(expected);
  });
}

const jwk = { kty: "OKP", crv: "Ed25519", x: ex.X };

describe("OfferClaims rules (§5.2, §4.2, §5.7)", () => {
  table("OfferClaims", [
    ["price without total and lines is invalid", ex.offer, [del("/total"), del("/lines")], "/total"],
    ["price and total without lines is invalid", ex.offer, del("/lines"), "/lines"],
    ["total without lines is invalid", ex.offer, [del("/price"), del("/lines")], "/lines"],
    ["lines alone are invalid", ex.offer, [del("/price"), del("/total")], "/total"],
    ["an unpriced extension has total and lines, no price (§5.8)", ex.changeOffer, del("/price"), "valid"],
    ["an offer without money is valid", ex.offer, [del("/price"), del("/total"), del("/lines")], "valid"],
    ["an empty lines list is invalid", ex.offer, set("/lines", []), "/lines"],
    [
      "a cancellation line kind is invalid (§5.2 No fee terms)",
      ex.offer,
      set("/lines/0/kind", "cancellation"),
      "/lines/0/kind",
    ],
    ["a money float is invalid", ex.offer, set("/total/amount", 89.27), "/total/amount"],
    [
      "open_end with a slot end is invalid (§4.2)",
      ex.playdateOffer,
      set("/slot/end", "2026-10-17T15:00:00-04:00"),
      "/slot/end",
    ],
    ["no open_end and no slot end is invalid", ex.offer, del("/slot/end"), "/slot/end"],
    ["open_end: false is not a way to say it", ex.offer, set("/open_end", false), "/open_end"],
    ["a booking offer needs hold_id", ex.offer, del("/hold_id"), "/hold_id"],
    ["a booking offer carries no prev", ex.offer, set("/prev", ex.SHA), "/prev"],
    ["a booking offer carries no booking_id", ex.offer, set("/booking_id", "b_1"), "/booking_id"],
    ["a change offer needs booking_id", ex.changeOffer, del("/booking_id"), "/booking_id"],
    ["a change offer needs prev", ex.changeOffer, del("/prev"), "/prev"],
    [
      "a change offer's prev may be null (booking made outside SchCP)",
      ex.changeOffer,
      set("/prev", null),
      "valid",
    ],
    ["a change offer carries no hold_id", ex.changeOffer, set("/hold_id", "h_1"), "/hold_id"],
    ["an unknown kind is invalid", ex.offer, set("/kind", "quote"), "/kind"],
    ["another version is invalid", ex.offer, set("/v", "0.3"), "/v"],
    ["host is optional (SHOULD)", ex.offer, del("/host"), "valid"],
    ["host needs tz", ex.offer, del("/host/tz"), "/host/tz"],
    ["host tz must be an IANA zone", ex.offer, set("/host/tz", "EST5EDT-ish"), "/host/tz"],
    ["a person's calendar names its owner", ex.playdateOffer, del("/host/owner"), "/host/owner"],
    ["retention is required", ex.offer, del("/retention"), "/retention"],
    ["retention is in weeks or days", ex.offer, set("/retention", "PT8760H"), "/retention"],
    ["reconfirm needs before", ex.changeOffer, del("/reconfirm/before"), "/reconfirm/before"],
    ["party_size is a positive integer", ex.offer, set("/party_size", 0), "/party_size"],
    ["approval_by is a date-time", ex.playdateOffer, set("/approval_by", "tomorrow"), "/approval_by"],
    ["iat is a NumericDate", ex.offer, set("/iat", "1792000000"), "/iat"],
  ]);
});

describe("MandateClaims rules (§3.3)", () => {
  table("MandateClaims", [
    [
      "max_bookings 0 is invalid",
      ex.mandate,
      set("/constraints/max_bookings", 0),
      "/constraints/max_bookings",
    ],
    [
      "max_bookings 1.5 is invalid",
      ex.mandate,
      set("/constraints/max_bookings", 1.5),
      "/constraints/max_bookings",
    ],
    [
      'max_bookings "1" is invalid',
      ex.mandate,
      set("/constraints/max_bookings", "1"),
      "/constraints/max_bookings",
    ],
    [
      "shared_limit must be a boolean",
      ex.mandate,
      set("/constraints/shared_limit", "true"),
      "/constraints/shared_limit",
    ],
    [
      "shared_limit over a list of hosts is valid",
      ex.mandate,
      [set("/constraints/shared_limit", true), set("/aud", ["a", "b"])],
      "valid",
    ],
    [
      "a closed mandate's offer_sha256 is valid",
      ex.mandate,
      set("/constraints/offer_sha256", ex.SHA),
      "valid",
    ],
    [
      "a malformed offer_sha256 is invalid",
      ex.mandate,
      set("/constraints/offer_sha256", "Xy3"),
      "/constraints/offer_sha256",
    ],
    [
      "a management mandate's bookings list is valid",
      ex.mandate,
      set("/constraints/bookings", ["b_1"]),
      "valid",
    ],
    ["max_price must be Money", ex.mandate, set("/constraints/max_price", 100), "/constraints/max_price"],
    ["an unknown scope is invalid", ex.mandate, set("/scope", ["hold", "respond"]), "/scope/1"],
    ["an empty scope is invalid", ex.mandate, set("/scope", []), "/scope"],
    ["a repeated scope is invalid", ex.mandate, set("/scope", ["book", "book"]), "/scope"],
    ["delegate is a scope", ex.mandate, set("/scope/4", "delegate"), "valid"],
    ["aud may be a list", ex.mandate, set("/aud", ["maple-street-auto", "fades-on-queen"]), "valid"],
    ["aud may not be an empty list", ex.mandate, set("/aud", []), "/aud"],
    ["aud may not be a number", ex.mandate, set("/aud", 5), "/aud"],
    ["iss is a principal thumbprint URN", ex.mandate, set("/iss", "sam@example"), "/iss"],
    ["cnf needs jkt", ex.mandate, del("/cnf/jkt"), "/cnf/jkt"],
    ["exp is required", ex.mandate, del("/exp"), "/exp"],
    ["a root carries no issuer_jwk", ex.mandate, set("/issuer_jwk", jwk), "/issuer_jwk"],
    ["a root carries no parent", ex.mandate, set("/parent", ex.JWS), "/parent"],
    ["a child needs parent", ex.childMandate, del("/parent"), "/parent"],
    ["a mandate with neither key is invalid", ex.childMandate, del("/issuer_jwk"), "/issuer_jwk"],
    ["a child with principal_jwk too is invalid", ex.childMandate, set("/principal_jwk", jwk), "/issuer_jwk"],
    ["at most four attestations", ex.mandate, set("/attestations", Array(5).fill(ex.JWS)), "/attestations"],
    ["an attestation is a compact JWS", ex.mandate, set("/attestations", ["not a jws"]), "/attestations/0"],
    ["consent states its mode", ex.mandate, del("/consent/mode"), "/consent/mode"],
    ["an unknown consent mode is invalid", ex.mandate, set("/consent/mode", "human_asleep"), "/consent/mode"],
    ["status is an https URL", ex.mandate, set("/status", "http://keyapp.example/s"), "/status"],
    [
      "a principal_jwk with a private d is invalid",
      ex.mandate,
      set("/principal_jwk/d", "secret"),
      "/principal_jwk/d",
    ],
  ]);
});

describe("Booking, receipt and response rules (§5.3, §5.5, §4.2, §6)", () => {
  const statuses = [
    "pending_host",
    "tentative",
    "confirmed",
    "declined",
    "expired",
    "cancelled",
    "completed",
    "no_show",
  ];
  table("Booking", [
    ...statuses.map((s): Row => [`status ${s} is valid`, ex.booking, set("/status", s), "valid"]),
    ["an unknown status is invalid", ex.booking, set("/status", "attended"), "/status"],
    ["offer_sha256 null: a booking made outside SchCP", ex.booking, set("/offer_sha256", null), "valid"],
    ["offer_sha256 is required", ex.booking, del("/offer_sha256"), "/offer_sha256"],
    ["end is required unless open-ended", ex.booking, del("/end"), "/end"],
    ["an open-ended booking has no end", ex.booking, set("/open_end", true), "/end"],
    [
      "an open-ended booking ended by the host has one",
      ex.booking,
      [set("/open_end", true), set("/status", "completed")],
      "valid",
    ],
    ["an open booking without end is valid", ex.booking, [set("/open_end", true), del("/end")], "valid"],
    ["price without lines is invalid", ex.booking, del("/lines"), "/lines"],
    ["event is required", ex.booking, del("/event"), "/event"],
    [
      "a rule's answer names the rule",
      ex.booking,
      set("/answer", { by: "rule", at: "2026-10-13T13:00:00Z" }),
      "/answer/rule",
    ],
    [
      "a host's answer names no rule",
      ex.booking,
      set("/answer", { by: "host", rule: "x", at: "2026-10-13T13:00:00Z" }),
      "/answer/rule",
    ],
    [
      "a refusal must be registered",
      ex.booking,
      [
        set("/status", "declined"),
        set("/refusal", { code: "DECLINED", reason: "fully_booked", message: "no" }),
      ],
      "/refusal/reason",
    ],
    [
      "host_declined:<suffix> is a registered reason (§9.2)",
      ex.booking,
      [
        set("/status", "declined"),
        set("/refusal", { code: "DECLINED", reason: "host_declined:fully_booked", message: "no" }),
      ],
      "valid",
    ],
    [
      "a participant has who or name",
      ex.booking,
      set("/participants", [{ role: "attendee", status: "pending" }]),
      "/participants/0/who",
    ],
    ["sequence is a non-negative integer", ex.booking, set("/sequence", -1), "/sequence"],
  ]);

  table("ReceiptClaims", [
    ["offer_sha256 without consent is invalid", ex.receipt, del("/consent"), "/consent"],
    ["consent without offer_sha256 is invalid", ex.receipt, del("/offer_sha256"), "/offer_sha256"],
    [
      "a booking made outside SchCP: no hash, no consent",
      ex.receipt,
      [del("/offer_sha256"), del("/consent"), set("/booking/offer_sha256", null)],
      "valid",
    ],
    ["retention is required", ex.receipt, del("/retention"), "/retention"],
    [
      "consent.approved is offer, contract or limits",
      ex.receipt,
      set("/consent/approved", "implied"),
      "/consent/approved",
    ],
    ["the booking inside is validated", ex.receipt, set("/booking/status", "paid"), "/booking/status"],
  ]);

  table("BookingResponse", [
    ["receipt is required", ex.bookingResponse, del("/receipt"), "/receipt"],
    ["offer and contract are compact JWS", ex.bookingResponse, set("/offer", "{}"), "/offer"],
  ]);
});

describe("Hold, slot and availability rules (§5.1, §5.2, §6)", () => {
  table("Hold", [
    ...["held", "released", "expired", "confirmed"].map((s): Row => [
      `status ${s} is valid`,
      ex.hold,
      set("/status", s),
      "valid",
    ]),
    ["an unknown status is invalid", ex.hold, set("/status", "pending"), "/status"],
    ["the offer is required", ex.hold, del("/offer"), "/offer"],
    ["price without total is invalid", ex.hold, del("/total"), "/total"],
    ["an open-ended hold has no end", ex.hold, set("/open_end", true), "/end"],
  ]);
  table("Slot", [
    [
      "open_end with end is invalid",
      () => ({ start: "2026-10-17T12:00:00-04:00", open_end: true }),
      set("/end", "2026-10-17T15:00:00-04:00"),
      "/end",
    ],
    ["total without price is invalid", () => ex.availabilityResponse().slots[0], del("/price"), "/price"],
  ]);
  table("AvailabilityRequest", [
    ["limit is a positive integer", ex.availabilityRequest, set("/limit", 0), "/limit"],
    ["the window needs an end", ex.availabilityRequest, del("/window/end"), "/window/end"],
  ]);
});

describe("request rules (§5.3, §5.7, §5.8, §5.9, §8)", () => {
  table("ConfirmRequest", [
    ["offer_sha256 is REQUIRED (§5.3)", ex.confirmRequest, del("/offer_sha256"), "/offer_sha256"],
    ["payment data is refused (§8)", ex.confirmRequest, set("/payment", { card: "4242" }), "/payment"],
    ["answers may ask for the person (§7.9)", ex.confirmRequest, set("/answers", "person"), "valid"],
    ["a meeting is a compact JWS", ex.confirmRequest, set("/meeting", "contract"), "/meeting"],
    [
      "a participant needs a role",
      ex.confirmRequest,
      set("/participants", [{ name: "Mira" }]),
      "/participants/0/role",
    ],
    [
      "booker is not a role a request names",
      ex.confirmRequest,
      set("/participants", [{ name: "M", role: "booker" }]),
      "/participants/0/role",
    ],
  ]);
  table("ChangeOfferRequest", [
    ["start alone is valid", ex.changeOfferRequest, del("/place"), "valid"],
    ["place alone is valid", ex.changeOfferRequest, del("/start"), "valid"],
    ["neither start nor place is invalid", ex.changeOfferRequest, [del("/start"), del("/place")], "/start"],
    ["sequence is required", ex.changeOfferRequest, del("/sequence"), "/sequence"],
  ]);
  table("ProposalResponseRequest", [
    ["accepting needs offer_sha256", ex.proposalResponseRequest, del("/offer_sha256"), "/offer_sha256"],
    [
      "declining does not",
      ex.proposalResponseRequest,
      [set("/accept", false), del("/offer_sha256")],
      "valid",
    ],
    ["accept is a boolean", ex.proposalResponseRequest, set("/accept", "yes"), "/accept"],
  ]);
  table("RespondRequest", [
    ["offer_sha256 is required", ex.respondRequest, del("/offer_sha256"), "/offer_sha256"],
  ]);
  table("WaitlistRequest", [["the window is required", ex.waitlistRequest, del("/window"), "/window"]]);
  table("WaitlistEntry", [
    ...["waiting", "offered", "booked", "left", "lapsed", "expired"].map((s): Row => [
      `status ${s} is valid`,
      ex.waitlistEntry,
      set("/status", s),
      "valid",
    ]),
    ["an unknown status is invalid", ex.waitlistEntry, set("/status", "served"), "/status"],
  ]);
});

describe("WebhookEvent rules (§5.8)", () => {
  const holdExpired = () => ({
    event_id: "e_2",
    type: "hold.expired",
    host_id: "maple-street-auto",
    hold: ex.hold(),
    occurred_at: "2026-10-13T21:05:00Z",
  });
  table("WebhookEvent", [
    ["a booking.* event carries a receipt", ex.webhookEvent, del("/receipt"), "/receipt"],
    ["a booking.* event carries the booking", ex.webhookEvent, del("/booking"), "/booking"],
    ["hold.expired carries the hold", holdExpired, [], "valid"],
    ["hold.expired carries no booking", holdExpired, set("/booking", ex.booking()), "/booking"],
    ["waitlist.offered needs the entry", holdExpired, set("/type", "waitlist.offered"), "/waitlist"],
    [
      "waitlist.offered with hold and entry",
      holdExpired,
      [
        set("/type", "waitlist.offered"),
        set("/waitlist", { ...ex.waitlistEntry(), status: "offered", hold_id: "h_01J9ZB7" }),
      ],
      "valid",
    ],
    ["an unknown type is invalid", ex.webhookEvent, set("/type", "booking.paid"), "/type"],
    ["host_id is required", ex.webhookEvent, del("/host_id"), "/host_id"],
  ]);
});

describe("Refusal rules (§9.2)", () => {
  table("Refusal", [
    [
      "an unregistered code is invalid",
      ex.refusalExample,
      set("/error/code", "PAYMENT_DECLINED"),
      "/error/code",
    ],
    [
      "a reason from another code is invalid",
      ex.refusalExample,
      set("/error/reason", "slot_taken"),
      "/error/reason",
    ],
    [
      "host_declined:* only under DECLINED",
      ex.refusalExample,
      set("/error/reason", "host_declined:busy"),
      "/error/reason",
    ],
    ["message is required", ex.refusalExample, del("/error/message"), "/error/message"],
    ["retry.after is a Duration", ex.refusalExample, set("/error/retry/after", 60), "/error/retry/after"],
    [
      "a contact remedy has a phone or url",
      ex.refusalExample,
      set("/error/remedies/1", { type: "contact" }),
      "/error/remedies/1/phone",
    ],
    [
      "an attest remedy lists attesters",
      ex.refusalExample,
      set("/error/remedies/0", { type: "attest" }),
      "/error/remedies/0/attesters",
    ],
    [
      "approve_offer needs offer_sha256",
      ex.refusalExample,
      set("/error/remedies/0", { type: "approve_offer" }),
      "/error/remedies/0/offer_sha256",
    ],
    [
      "an unknown remedy type is invalid",
      ex.refusalExample,
      set("/error/remedies/0", { type: "pay" }),
      "/error/remedies/0/type",
    ],
    [
      "a retry remedy",
      ex.refusalExample,
      set("/error/remedies/0", { type: "retry", after: "PT5M" }),
      "valid",
    ],
    [
      "details is open",
      ex.refusalExample,
      set("/error/details", { awaiting: ["x"], anything: { deep: 1 } }),
      "valid",
    ],
    ["basis is an object", ex.refusalExample, set("/error/basis", "holds"), "/error/basis"],
  ]);
});

describe("meeting, acceptance and rule claims (§5.12, §7.9)", () => {
  table("MeetingContractClaims", [
    ["at least two members", ex.meetingContract, [del("/members/2"), del("/members/1")], "/members"],
    [
      "a business member is named by its host URN",
      ex.meetingContract,
      set("/members/2/principal", ex.PRINCIPAL),
      "/members/2/principal",
    ],
    [
      "a person member by a principal",
      ex.meetingContract,
      set("/members/1/principal", "urn:schcp:host:x"),
      "/members/1/principal",
    ],
    ["end or open_end, not both", ex.meetingContract, set("/end", "2026-10-17T15:00:00-04:00"), "/end"],
    ["end or open_end, not neither", ex.meetingContract, del("/open_end"), "/end"],
    ["place is required", ex.meetingContract, del("/place"), "/place"],
    ["revision starts at 1", ex.meetingContract, set("/revision", 0), "/revision"],
    ["a member's answers may override", ex.meetingContract, set("/members/1/answers", "person"), "valid"],
  ]);
  table("AcceptanceClaims", [
    ["by rule carries the rule", ex.acceptance, set("/by", "rule"), "/rule"],
    ["by rule with a rule", ex.acceptance, [set("/by", "rule"), set("/rule", ex.JWS)], "valid"],
    ["by person carries no rule", ex.acceptance, set("/rule", ex.JWS), "/rule"],
    ["meeting_id is optional (informative)", ex.acceptance, del("/meeting_id"), "valid"],
    ["by is person or rule", ex.acceptance, set("/by", "host"), "/by"],
  ]);
  table("RuleClaims", [
    ["weekdays need tz", ex.rule, del("/tz"), "/tz"],
    ["an absent field does not narrow", ex.rule, [del("/weekdays"), del("/tz"), del("/services")], "valid"],
    ["weekdays are three-letter names", ex.rule, set("/weekdays", ["saturday"]), "/weekdays/0"],
  ]);
});
