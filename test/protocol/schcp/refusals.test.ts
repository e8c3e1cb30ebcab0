import { describe, expect, it } from "vitest";
import {
  isRegisteredReason,
  REFUSAL_CODES,
  REFUSALS,
  refusal,
  withContactRemedy,
} from "../../../src/protocol/schcp/refusals.js";
import type { RefusalCode } from "../../../src/protocol/schcp/refusals.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";

/** The agreed table (/tmp/prompts/refusal-codes.md), restated independently of the source. */
const TABLE: [RefusalCode, number | null, string][] = [
  ["INVALID_REQUEST", 400, "invalid_request"],
  ["BAD_SIGNATURE", 401, "bad_signature"],
  ["MANDATE_INVALID", 401, "mandate_invalid"],
  ["MANDATE_SCOPE", 403, "not_in_scope"],
  ["MANDATE_LIMIT", 403, "outside_window"],
  ["OFFER_APPROVAL_REQUIRED", 403, "closed_approval_required"],
  ["NOT_PERMITTED", 403, "not_a_contact"],
  ["NOT_ELIGIBLE", 403, "returning_guests_only"],
  ["NOT_FOUND", 404, "not_found"],
  ["SLOT_UNAVAILABLE", 409, "slot_taken"],
  ["CONTRACT_MISMATCH", 409, "contract_mismatch"],
  ["STALE_SEQUENCE", 409, "stale_sequence"],
  ["INVALID_STATE", 409, "invalid_state"],
  ["IDEMPOTENCY_CONFLICT", 409, "idempotency_conflict"],
  ["OUTSIDE_BOOKING_WINDOW", 422, "outside_booking_window"],
  ["OUT_OF_SERVICE_AREA", 422, "outside_service_area"],
  ["DATA_NOT_ACCEPTED", 422, "free_text_notes"],
  ["HOLD_LIMIT", 429, "agent_limit"],
  ["RATE_LIMITED", 429, "rate_limited"],
  ["UNSUPPORTED", 501, "unsupported"],
  ["UPSTREAM_UNAVAILABLE", 503, "upstream_unavailable"],
  ["INTERNAL_ERROR", 500, "internal_error"],
  ["DECLINED", null, "host_declined"],
  ["EXPIRED", null, "host_did_not_answer"],
  ["CANCELLED", null, "host_cancelled"],
];

const SHA = "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU";

describe("refusal registry (§9.2)", () => {
  it("has exactly the agreed codes", () => {
    expect([...REFUSAL_CODES].sort()).toEqual(TABLE.map(([c]) => c).sort());
  });

  it.each(TABLE)("%s: status %s, default reason %s", (code, status, reason) => {
    expect(REFUSALS[code].status).toBe(status);
    expect(REFUSALS[code].reasons[0]).toBe(reason);
    const built = refusal(code);
    expect(built.status).toBe(status);
    expect(built.body.error.reason).toBe(reason);
    expect(built.body.error.code).toBe(code);
    expect(built.body.error.message.length).toBeGreaterThan(0);
  });

  it("marks the gateway's own codes as not named by the spec", () => {
    const own = REFUSAL_CODES.filter((c) => !REFUSALS[c].specNamed).sort();
    expect(own).toEqual(["INTERNAL_ERROR", "NOT_FOUND", "RATE_LIMITED", "UPSTREAM_UNAVAILABLE"]);
  });

  it.each([
    ["INVALID_REQUEST", "payment_not_accepted", true],
    ["INVALID_REQUEST", "party_size", true],
    ["BAD_SIGNATURE", "replayed_nonce", true],
    ["MANDATE_LIMIT", "shared_limit_reached", true],
    ["INVALID_STATE", "awaiting_members", true],
    ["HOLD_LIMIT", "holds_suspended", true],
    ["OUTSIDE_BOOKING_WINDOW", "too_soon", true],
    ["EXPIRED", "meeting_incomplete", true],
    ["DECLINED", "organizer_withdrew", true],
    ["DECLINED", "host_declined:fully_booked", true],
    ["DECLINED", "host_declined:", false],
    ["DECLINED", "host_declined:has space", false],
    ["CANCELLED", "host_declined:fully_booked", false],
    ["SLOT_UNAVAILABLE", "walk_in_reserve", true],
    ["SLOT_UNAVAILABLE", "host_cancelled", false],
    ["HOLD_LIMIT", "rate_limited", false],
    ["NOT_A_CODE", "not_found", false],
    ["toString", "x", false],
  ])("isRegisteredReason(%s, %s) is %s", (code, reason, expected) => {
    expect(isRegisteredReason(code, reason)).toBe(expected);
  });
});

describe("refusal() constructor", () => {
  it("every registered code and reason builds a body that validates against the Refusal schema", () => {
    for (const code of REFUSAL_CODES) {
      for (const reason of REFUSALS[code].reasons) {
        const { body } = refusal(code, { reason });
        const result = validateSchcp("Refusal", body);
        expect(result.ok ? "valid" : `${code}/${reason}: ${result.error.message}`).toBe("valid");
      }
    }
  });

  it("carries basis, retry, remedies and details, and still validates", () => {
    const built = refusal("OFFER_APPROVAL_REQUIRED", {
      message: "Ask the person to approve this offer",
      basis: { policy: "closed_mandate", closed_mandate: "always" },
      retry: { after: "PT1M" },
      remedies: [{ type: "approve_offer", offer_sha256: SHA }],
      details: { offer_sha256: SHA },
    });
    expect(built.status).toBe(403);
    expect(built.body).toEqual({
      error: {
        code: "OFFER_APPROVAL_REQUIRED",
        reason: "closed_approval_required",
        message: "Ask the person to approve this offer",
        basis: { policy: "closed_mandate", closed_mandate: "always" },
        retry: { after: "PT1M" },
        remedies: [{ type: "approve_offer", offer_sha256: SHA }],
        details: { offer_sha256: SHA },
      },
    });
    expect(validateSchcp("Refusal", built.body).ok).toBe(true);
  });

  it("accepts host_declined:<suffix> under DECLINED", () => {
    const { body } = refusal("DECLINED", { reason: "host_declined:fully_booked" });
    expect(body.error.reason).toBe("host_declined:fully_booked");
    expect(validateSchcp("Refusal", body).ok).toBe(true);
  });

  it("throws on an unregistered reason: a programmer error", () => {
    expect(() => refusal("SLOT_UNAVAILABLE", { reason: "fully_booked" } as never)).toThrow(
      /not a registered reason/,
    );
    expect(() => refusal("HOLD_LIMIT", { reason: "slot_taken" } as never)).toThrow();
    expect(() => refusal("CANCELLED", { reason: "host_declined:x" } as never)).toThrow();
  });

  it("leaves out empty optional members", () => {
    const { body } = refusal("NOT_FOUND", { remedies: [] });
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "reason"]);
  });
});

describe("withContactRemedy (§9.2: every refusal offers a contact remedy when the host publishes one)", () => {
  const base = refusal("HOLD_LIMIT", {
    reason: "new_guest_pool_full",
    remedies: [{ type: "attest", attesters: ["phonecheck.example"] }],
  }).body;

  it("adds the host's phone and url, keeping other remedies, and validates", () => {
    const body = withContactRemedy(base, {
      phone: "+1-416-555-0177",
      url: "https://maplestreetauto.example/contact",
    });
    expect(body.error.remedies).toEqual([
      { type: "attest", attesters: ["phonecheck.example"] },
      { type: "contact", phone: "+1-416-555-0177", url: "https://maplestreetauto.example/contact" },
    ]);
    expect(validateSchcp("Refusal", body).ok).toBe(true);
    expect(base.error.remedies).toHaveLength(1); // the input is not changed
  });

  it("replaces an earlier contact remedy instead of adding a second", () => {
    const once = withContactRemedy(base, { phone: "+1-416-555-0100" });
    const twice = withContactRemedy(once, { url: "https://maplestreetauto.example/contact" });
    expect(twice.error.remedies?.filter((r) => r.type === "contact")).toEqual([
      { type: "contact", url: "https://maplestreetauto.example/contact" },
    ]);
  });

  it("adds nothing when the host publishes neither (a person's calendar, §7.7)", () => {
    expect(withContactRemedy(base, {})).toBe(base);
  });
});
