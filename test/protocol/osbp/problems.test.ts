import { describe, expect, it } from "vitest";
import {
  isProblemCode,
  MCP_TOOL_NAMES,
  mcpToolName,
  problem,
  PROBLEM_CODES,
  PROBLEM_DEFAULTS,
  TOOL_NAMES,
  toolNameFromMcp,
} from "../../../src/protocol/osbp/index.js";

describe("problem codes (OSBP Result Envelope code table)", () => {
  it("are exactly the protocol set", () => {
    expect([...PROBLEM_CODES].sort()).toEqual(
      [
        "invalid_mandate",
        "mandate_expired",
        "action_not_allowed",
        "organization_not_allowed",
        "service_not_allowed",
        "schedule_not_allowed",
        "provider_unknown",
        "provider_not_allowed",
        "slot_too_early",
        "slot_too_late",
        "price_exceeds_mandate",
        "policy_fee_exceeds_mandate",
        "currency_mismatch",
        "requires_payment_handoff",
        "requires_consultation_handoff",
        "requires_user_confirmation",
        "requires_verification",
        "verification_failed",
        "slot_taken",
        "idempotency_conflict",
        "booking_not_found",
        "booking_status_requires_verification",
        "rate_limited",
        "internal_adapter_error",
      ].sort(),
    );
  });

  it("are retryable only where the table says so", () => {
    const retryable = PROBLEM_CODES.filter((c) => PROBLEM_DEFAULTS[c].retryable);
    expect(retryable.sort()).toEqual(["rate_limited", "requires_verification", "slot_taken"]);
  });

  it("builds a Problem with defaults, overrides and adapter-specific codes", () => {
    expect(problem("price_exceeds_mandate")).toEqual({
      code: "price_exceeds_mandate",
      message: "Selected service or slot price exceeds BookingMandate.max_price",
      retryable: false,
    });
    expect(problem("requires_user_confirmation", "confirm", { retryable: true })).toEqual({
      code: "requires_user_confirmation",
      message: "confirm",
      retryable: true,
    });
    expect(problem("missing_config")).toMatchObject({ code: "missing_config", retryable: false });
    // Exactly the published members (problem.schema.json is closed).
    for (const p of [problem("invalid_mandate"), problem("missing_config"), problem("slot_taken", "x")])
      expect(Object.keys(p).sort()).toEqual(["code", "message", "retryable"]);
    expect(isProblemCode("missing_config")).toBe(false);
    expect(isProblemCode("slot_taken")).toBe(true);
  });
});

describe("tool names (OSBP Naming)", () => {
  it("flatten the eight dotted names", () => {
    expect(TOOL_NAMES.map(mcpToolName)).toEqual([
      "osbp_service_describe",
      "osbp_availability_find",
      "osbp_policy_explain",
      "osbp_verification_send",
      "osbp_verification_verify",
      "osbp_booking_create",
      "osbp_booking_status",
      "osbp_handoff_request",
    ]);
    for (const name of TOOL_NAMES) expect(toolNameFromMcp(MCP_TOOL_NAMES[name])).toBe(name);
    expect(toolNameFromMcp("osbp_booking_cancel")).toBeUndefined();
  });
});
