import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  TOOL_INPUT_SCHEMAS,
  TOOL_NAMES,
  toolInputProblem,
  validateToolInput,
  type ToolName,
} from "../../../src/protocol/osbp/index.js";
import { createInput, mandate } from "./samples.js";

// The spec's own example inputs (OSBP "Tool Set").
const EXAMPLES: Record<ToolName, unknown> = {
  "service.describe": { service_id: "service_123" },
  "availability.find": {
    service_id: "service_123",
    schedule_id: "schedule_123",
    date: "2026-05-05",
    provider_id: "provider_123",
  },
  "policy.explain": { service_id: "service_123" },
  "verification.send": {
    customer: { phone: "+15555550100", email: "jane@example.com" },
    purpose: "booking:org_01jw3z8x9k2m4n6p8r0s1t3v5w",
  },
  "verification.verify": {
    customer: { phone: "+15555550100", email: "jane@example.com" },
    purpose: "booking:org_01jw3z8x9k2m4n6p8r0s1t3v5w",
    code: "123456",
  },
  "booking.create": {
    ...createInput(),
    approval: { confirmed: true, token: "approve_opaque_adapter_token" },
    verification_code: "123456",
  },
  "booking.status": { booking_id: "appointment_123", customer: { phone: "+15555550100" } },
  "handoff.request": {
    reason: "requires_payment_handoff",
    message: "This service requires a deposit. Please complete the booking with the merchant directly.",
    mandate_id: "mnd_2026_05_01_001",
  },
};

describe("tool input schemas", () => {
  it("are draft 2020-12 object schemas for all eight tools", () => {
    expect(Object.keys(TOOL_INPUT_SCHEMAS).sort()).toEqual([...TOOL_NAMES].sort());
    for (const schema of Object.values(TOOL_INPUT_SCHEMAS)) {
      expect(schema).toMatchObject({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
      });
    }
  });

  it("compile under a plain Ajv 2020 in strict mode (usable as MCP inputSchema elsewhere)", () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, validateFormats: false });
    for (const schema of Object.values(TOOL_INPUT_SCHEMAS)) expect(() => ajv.compile(schema)).not.toThrow();
  });

  it.each(TOOL_NAMES)("%s accepts the spec's example input", (tool) => {
    expect(validateToolInput(tool, EXAMPLES[tool])).toEqual({ ok: true, value: EXAMPLES[tool] });
  });

  it("accepts the minimal inputs the spec makes optional", () => {
    expect(validateToolInput("service.describe", {}).ok).toBe(true);
    expect(validateToolInput("availability.find", { date: "2026-05-05" }).ok).toBe(true);
    const { approval: _a, verification_code: _v, provider_id: _p, ...first } = createInput();
    expect(validateToolInput("booking.create", first).ok).toBe(true);
  });
});

describe("validateToolInput errors name the field", () => {
  const create = (over: Record<string, unknown>) => ({ ...createInput(), ...over });
  it.each([
    ["booking.create", create({ idempotency_key: undefined }), "/idempotency_key", /is required/],
    ["booking.create", create({ mandate: undefined }), "/mandate", /is required/],
    ["booking.create", create({ date: "2026-02-30" }), "/date", /date/],
    ["booking.create", create({ time: "1pm" }), "/time", /HH:MM/],
    ["booking.create", create({ extra: 1 }), "/extra", /not a member/],
    ["booking.create", create({ idempotency_key: "" }), "/idempotency_key", /must not be empty/],
    ["booking.create", create({ customer: { nickname: "J" } }), "/customer/nickname", /not a member/],
    ["booking.create", create({ approval: { confirmed: true } }), "/approval/token", /is required/],
    [
      "booking.create",
      create({ approval: { confirmed: "yes", token: "t" } }),
      "/approval/confirmed",
      /boolean/,
    ],
    [
      "booking.create",
      create({ mandate: mandate({ expires_at: "2026-05-01T23:59:59" }) }),
      "/mandate/expires_at",
      /date-time/,
    ],
    [
      "booking.create",
      create({ mandate: mandate({ earliest_start: "2026-05-01T09:00:00Z" }) }),
      "/mandate/earliest_start",
      /without offset/,
    ],
    [
      "booking.create",
      create({ mandate: mandate({ max_price: { amount_minor: 1.5, currency: "USD" } }) }),
      "/mandate/max_price/amount_minor",
      /integer/,
    ],
    ["booking.create", create({ mandate: mandate({ service_ids: "s" }) }), "/mandate/service_ids", /array/],
    ["availability.find", {}, "/date", /is required/],
    ["availability.find", { date: "2026-05-05T00:00:00Z" }, "/date", /date/],
    ["policy.explain", {}, "/service_id", /is required/],
    ["verification.send", { customer: {}, purpose: "booking:o" }, "/customer", /a phone or an email/],
    ["verification.verify", { customer: { email: "a@b.c" }, purpose: "p" }, "/code", /is required/],
    ["booking.status", { customer: { phone: "+1" } }, "/booking_id", /is required/],
    ["handoff.request", { reason: "x" }, "/message", /is required/],
    ["service.describe", [], "", /the input must be object/],
  ] as const)("%s %j -> %s", (tool, value, field, message) => {
    const r = validateToolInput(tool, value);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("invalid_input");
    expect(r.error.field).toBe(field);
    expect(r.error.message).toMatch(message);
  });

  it("rejects an unknown tool without throwing", () => {
    const r = validateToolInput("booking.cancel" as ToolName, {});
    expect(!r.ok && r.error.message).toMatch(/unknown tool/);
  });

  it("never throws on arbitrary JSON (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...TOOL_NAMES), fc.jsonValue(), (tool, value) => {
        const r = validateToolInput(tool, value);
        if (!r.ok) expect(r.error.code).toBe("invalid_input");
      }),
    );
  });
});

describe("toolInputProblem", () => {
  it("maps mandate fields to invalid_mandate and the rest to invalid_input", () => {
    expect(toolInputProblem({ code: "invalid_input", field: "/mandate/expires_at", message: "m" })).toEqual({
      code: "invalid_mandate",
      message: "Invalid input: /mandate/expires_at: m",
      retryable: false,
    });
    expect(toolInputProblem({ code: "invalid_input", field: "/mandates", message: "m" }).code).toBe(
      "invalid_input",
    );
  });
});
