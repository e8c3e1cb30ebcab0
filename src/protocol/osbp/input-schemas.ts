/**
 * JSON Schemas (draft 2020-12) for the eight tool inputs, exactly as OSBP "Tool Set" shows
 * them, usable as MCP tool inputSchema, and the validator an edge runs before a tool handler.
 *
 * Required members, from the spec's words: service.describe service_id is optional ("the
 * adapter may substitute its configured default"); availability.find needs only date;
 * policy.explain needs service_id (the spec gives it no default); verification.send/verify need
 * customer (with a phone or an email), purpose, and for verify code; booking.create needs the
 * mandate, idempotency_key ("every booking mutation must include"), the create-ready
 * service_id and schedule_id, date, time and customer, while provider_id, approval and
 * verification_code are optional; booking.status needs booking_id; handoff.request needs
 * reason and message. Every object is closed. Contact formats are not checked: the platform is
 * the enforcer of its own contact formats (OSBP "Core Objects").
 *
 * "date-time" and "date" are checked by the time module's parsers rather than ajv-formats, so
 * the schema and validateMandate agree on exactly one instant grammar (Z or an offset required).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { OSBP_MONEY_TYPES } from "../money/index.js";
import { childPointer, err, fieldError, ok, type FieldError, type Result } from "../result.js";
import { parseInstant, parseLocalDate } from "../time/index.js";
import { isToolName, TOOL_NAMES, type ToolName } from "./tool-names.js";
import { problem } from "./problems.js";
import type { Problem, ToolInputs } from "./types.js";

export type JsonSchemaObject = { readonly [keyword: string]: unknown };

const DRAFT = "https://json-schema.org/draft/2020-12/schema";
const id = { type: "string", minLength: 1 } as const;
const text = { type: "string", minLength: 1 } as const;
const wallClock = {
  type: "string",
  pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,3})?)?$",
  description: "a merchant-local wall-clock without offset, e.g. 2026-05-05T13:00:00",
} as const;
const idList = { type: "array", items: id } as const;
const closed = (properties: Record<string, unknown>, required: string[] = []): JsonSchemaObject => ({
  type: "object",
  additionalProperties: false,
  properties,
  required,
});

const money = closed(
  {
    amount_minor: {
      type: "integer",
      minimum: 0,
      description: "integer in the currency's ISO 4217 minor unit",
    },
    currency: { type: "string", pattern: "^[A-Z]{3}$", description: "an ISO 4217 code" },
    type: { enum: [...OSBP_MONEY_TYPES] },
    display: { type: "string" },
  },
  ["currency"],
);

const customer = closed({
  id,
  display_name: text,
  given_name: text,
  family_name: text,
  phone: { ...text, description: "E.164, e.g. +15555550100" },
  email: text,
});

const contactCustomer = {
  ...customer,
  anyOf: [{ required: ["phone"] }, { required: ["email"] }],
  description: "a customer with a phone or an email",
};

const mandate = {
  ...closed(
    {
      id,
      expires_at: {
        type: "string",
        format: "date-time",
        description: "an RFC 3339 date-time with Z or an offset",
      },
      allowed_actions: { type: "array", items: text },
      organization_id: id,
      service_ids: idList,
      provider_ids: idList,
      schedule_ids: idList,
      earliest_start: wallClock,
      latest_end: wallClock,
      max_price: money,
      allow_policy_fee: { type: "boolean" },
      max_extra_fee: money,
    },
    ["id", "expires_at", "allowed_actions", "organization_id", "earliest_start", "latest_end", "max_price"],
  ),
  description: "BookingMandate: the user's scoped authorization",
};

const date = { type: "string", format: "date", description: "a merchant-local date YYYY-MM-DD" } as const;
const tool = (description: string, schema: JsonSchemaObject): JsonSchemaObject => ({
  $schema: DRAFT,
  description,
  ...schema,
});

export const TOOL_INPUT_SCHEMAS: Readonly<Record<ToolName, JsonSchemaObject>> = {
  "service.describe": tool("Describe a bookable service", closed({ service_id: id })),
  "availability.find": tool(
    "Find candidate slots for one service, schedule and merchant-local date",
    closed({ service_id: id, schedule_id: id, date, provider_id: id }, ["date"]),
  ),
  "policy.explain": tool(
    "Explain payment and cancellation policy",
    closed({ service_id: id }, ["service_id"]),
  ),
  "verification.send": tool(
    "Send a verification code after requires_verification",
    closed({ customer: contactCustomer, purpose: { ...text, description: "booking:{organization_id}" } }, [
      "customer",
      "purpose",
    ]),
  ),
  "verification.verify": tool(
    "Verify a code for non-booking flows",
    closed({ customer: contactCustomer, purpose: text, code: text }, ["customer", "purpose", "code"]),
  ),
  "booking.create": tool(
    "Create the appointment inside the BookingMandate after user approval",
    closed(
      {
        mandate,
        idempotency_key: text,
        service_id: id,
        schedule_id: id,
        // As the published tool-input schema has it: any string. An empty one names no
        // provider, so a provider-scoped mandate answers provider_unknown (Mandate Enforcement).
        provider_id: { type: "string", description: "the slot's provider_id; empty names none" },
        date,
        time: {
          type: "string",
          pattern: "^[0-9]{2}:[0-9]{2}(:[0-9]{2})?$",
          description: "a merchant-local time HH:MM or HH:MM:SS",
        },
        customer,
        approval: closed({ confirmed: { type: "boolean" }, token: text }, ["confirmed", "token"]),
        verification_code: text,
      },
      ["mandate", "idempotency_key", "service_id", "schedule_id", "date", "time", "customer"],
    ),
  ),
  "booking.status": tool("Read appointment state", closed({ booking_id: id, customer }, ["booking_id"])),
  "handoff.request": tool(
    "Hand off to a human; carries no customer names or contact details",
    closed({ reason: text, message: text, mandate_id: id }, ["reason", "message"]),
  ),
};

const ajv = new Ajv2020({ allErrors: false, verbose: true, strict: true, strictRequired: false });
ajv.addFormat("date-time", { type: "string", validate: (s: string) => parseInstant(s, "").ok });
ajv.addFormat("date", { type: "string", validate: (s: string) => parseLocalDate(s, "").ok });

const VALIDATORS = new Map<ToolName, ValidateFunction>(
  TOOL_NAMES.map((name): [ToolName, ValidateFunction] => [name, ajv.compile(TOOL_INPUT_SCHEMAS[name])]),
);

export type ToolInputError = FieldError<"invalid_input">;

function describe(e: ErrorObject): ToolInputError {
  const params = e.params as Record<string, unknown>;
  const description =
    typeof e.parentSchema?.description === "string" ? e.parentSchema.description : undefined;
  const at = e.instancePath;
  const name = at === "" ? "the input" : at;
  const fail = (field: string, message: string) => fieldError("invalid_input", field, message);
  switch (e.keyword) {
    case "required": {
      const field = childPointer(at, String(params.missingProperty));
      return fail(field, `${field} is required`);
    }
    case "additionalProperties": {
      const field = childPointer(at, String(params.additionalProperty));
      return fail(field, `${field} is not a member of this input`);
    }
    case "minLength":
      return fail(at, `${name} must not be empty`);
    case "enum":
      return fail(at, `${name} must be one of ${JSON.stringify(params.allowedValues)}`);
    case "anyOf":
    case "pattern":
    case "format":
      if (description !== undefined) return fail(at, `${name} must be ${description}`);
      return fail(at, `${name} ${e.message ?? "is invalid"}`);
    default:
      return fail(at, `${name} ${e.message ?? "is invalid"}`);
  }
}

/** Checks a tool input against its schema; the error names the first offending field. */
export function validateToolInput<N extends ToolName>(
  tool: N,
  value: unknown,
): Result<ToolInputs[N], ToolInputError> {
  const validate = isToolName(tool) ? VALIDATORS.get(tool) : undefined;
  if (validate === undefined)
    return err(fieldError("invalid_input", "", `unknown tool ${JSON.stringify(tool)}`));
  if (validate(value)) return ok(value as ToolInputs[N]);
  const errors = validate.errors ?? [];
  // anyOf reports each failed branch first; its own error is the one that explains the rule.
  const first = errors.find((e) => e.keyword === "anyOf") ?? errors[0];
  return err(first === undefined ? fieldError("invalid_input", "", "the input is invalid") : describe(first));
}

/**
 * The Problem an edge returns for a schema-invalid input: a mandate field is the protocol's
 * invalid_mandate; anything else is the adapter-specific code invalid_input.
 */
export function toolInputProblem(e: ToolInputError): Problem {
  const mandate = e.field === "/mandate" || e.field.startsWith("/mandate/");
  // A Problem has no field member: the message names it (describe() above already does).
  const text = e.field !== "" && !e.message.includes(e.field) ? `${e.field}: ${e.message}` : e.message;
  return problem(mandate ? "invalid_mandate" : "invalid_input", `Invalid input: ${text}`);
}
