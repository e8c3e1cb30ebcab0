/**
 * Schema validation of SchCP wire values (§2.1, §3.3, §5.2, §5.3, §8).
 *
 * One Ajv (JSON Schema 2020-12) instance holds SCHCP_SCHEMA_DOCUMENT; each named definition is
 * compiled once, on first use, and cached. Formats are asserted (§2.1), patterns use the "u"
 * flag (Ajv's default), and validation never throws: any input, however odd, gets a Result.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { childPointer, err, ok } from "../result.js";
import type { FieldError, Result } from "../result.js";
import { SCHCP_SCHEMA_DOCUMENT, SCHCP_SCHEMA_ID } from "./schemas/document.js";
import { isDateTime, isLocalDateTime, isTimeZone } from "./schemas/formats.js";
import type * as T from "./types.js";

/** What each schema name validates to. */
interface SchcpTypes {
  DiscoveryDocument: T.DiscoveryDocument;
  OperatorDocument: T.OperatorDocument;
  AvailabilityRequest: T.AvailabilityRequest;
  AvailabilityResponse: T.AvailabilityResponse;
  HoldRequest: T.HoldRequest;
  Hold: T.Hold;
  ConfirmRequest: T.ConfirmRequest;
  BookingResponse: T.BookingResponse;
  Booking: T.Booking;
  OfferClaims: T.OfferClaims;
  ReceiptClaims: T.ReceiptClaims;
  MandateClaims: T.MandateClaims;
  CancelRequest: T.CancelRequest;
  ChangeOfferRequest: T.ChangeOfferRequest;
  ChangeOfferResponse: T.ChangeOfferResponse;
  RescheduleRequest: T.RescheduleRequest;
  ProposalResponseRequest: T.ProposalResponseRequest;
  RespondRequest: T.RespondRequest;
  WebhookEvent: T.WebhookEvent;
  WaitlistRequest: T.WaitlistRequest;
  WaitlistEntry: T.WaitlistEntry;
  Refusal: T.RefusalBody;
  Duration: T.Duration;
  Money: T.SchcpMoney;
  Retention: T.Retention;
  Jwk: T.Jwk;
  AttestationClaims: T.AttestationClaims;
  MeetingContractClaims: T.MeetingContractClaims;
  AcceptanceClaims: T.AcceptanceClaims;
  RuleClaims: T.RuleClaims;
  CommitRequest: T.CommitRequest;
  MeetingRevisionRequest: T.MeetingRevisionRequest;
  MeetingWithdrawRequest: T.MeetingWithdrawRequest;
  Place: T.Place;
  Slot: T.Slot;
  Proposal: T.Proposal;
  DateTime: T.DateTime;
}

export type SchemaName = keyof SchcpTypes;
export type SchcpTypeOf<N extends SchemaName> = SchcpTypes[N];

export const SCHEMA_NAMES = [
  "DiscoveryDocument",
  "OperatorDocument",
  "AvailabilityRequest",
  "AvailabilityResponse",
  "HoldRequest",
  "Hold",
  "ConfirmRequest",
  "BookingResponse",
  "Booking",
  "OfferClaims",
  "ReceiptClaims",
  "MandateClaims",
  "CancelRequest",
  "ChangeOfferRequest",
  "ChangeOfferResponse",
  "RescheduleRequest",
  "ProposalResponseRequest",
  "RespondRequest",
  "WebhookEvent",
  "WaitlistRequest",
  "WaitlistEntry",
  "Refusal",
  "Duration",
  "Money",
  "Retention",
  "Jwk",
  "AttestationClaims",
  "MeetingContractClaims",
  "AcceptanceClaims",
  "RuleClaims",
  "CommitRequest",
  "MeetingRevisionRequest",
  "MeetingWithdrawRequest",
  "Place",
  "Slot",
  "Proposal",
  "DateTime",
] as const satisfies readonly SchemaName[];

/** One schema violation: the JSON pointer of the offending member and what is wrong. */
interface SchemaIssue {
  readonly field: string;
  readonly keyword: string;
  readonly message: string;
}

/** The first (most specific) issue, plus the full list for logs. */
export interface SchemaError extends FieldError<"schema"> {
  readonly errors?: readonly SchemaIssue[];
}

let ajv: Ajv2020 | undefined;
const compiled = new Map<SchemaName, ValidateFunction>();

function instance(): Ajv2020 {
  if (ajv !== undefined) return ajv;
  // allErrors lets us report the most specific error (a nested unknown member rather than a
  // summary "if" failure). strict catches mistakes in our own schemas at compile time.
  // strictTypes and strictRequired are off because conditional subschemas ("then":
  // {"properties": …}, "if": {"required": …}) rightly leave those to the schema they refine.
  const a = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    validateFormats: true,
    // ECMA-262 patterns with the "u" flag: "$" only at the very end, as §2.1 requires.
    unicodeRegExp: true,
  });
  a.addFormat("date-time", { type: "string", validate: isDateTime });
  a.addFormat("local-date-time", { type: "string", validate: isLocalDateTime });
  a.addFormat("iana-time-zone", { type: "string", validate: isTimeZone });
  a.addFormat("uri", fullFormats.uri);
  a.addFormat("hostname", fullFormats.hostname);
  a.addFormat("email", fullFormats.email);
  a.addSchema(SCHCP_SCHEMA_DOCUMENT);
  ajv = a;
  return a;
}

/** Compiles (once) the named definition. Throws only on a programmer error in the schemas. */
function validator(name: SchemaName): ValidateFunction {
  const cached = compiled.get(name);
  if (cached !== undefined) return cached;
  const fn = instance().getSchema(`${SCHCP_SCHEMA_ID}#/$defs/${name}`);
  if (fn === undefined) throw new Error(`SchCP schema ${name} is not defined`);
  compiled.set(name, fn);
  return fn;
}

/** Points at the member at fault: the unknown or missing member itself, not its parent. */
function toIssue(e: ErrorObject): Issue {
  const p = e.params as Record<string, unknown>;
  const member = p.additionalProperty ?? p.missingProperty ?? p.unevaluatedProperty;
  const field = typeof member === "string" ? childPointer(e.instancePath, member) : e.instancePath;
  return { field, keyword: e.keyword, message: describe(e), conditional: CONDITIONAL.test(e.schemaPath) };
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case "additionalProperties":
      return "is not a member this schema defines";
    case "false schema":
      return "is not allowed here";
    case "required":
    case "dependentRequired":
      return "is required";
    default:
      return e.message ?? "is invalid";
  }
}

/** Errors found inside a conditional branch, as opposed to the schema's own members. */
const CONDITIONAL = /\/(?:then|else|allOf|anyOf|oneOf|not)(?:\/|$)/;
/** Summary keywords say only that a branch failed; the branch's own errors are more useful. */
const SUMMARY = new Set(["if", "anyOf", "oneOf", "allOf", "not"]);

/** The most specific issue: a plain member error first, then a conditional one, then a summary. */
function primary(issues: readonly Issue[]): Issue | undefined {
  const rank = (i: Issue): number => (SUMMARY.has(i.keyword) ? 2 : i.conditional ? 1 : 0);
  return [...issues].sort((a, b) => rank(a) - rank(b))[0];
}

interface Issue extends SchemaIssue {
  readonly conditional: boolean;
}

/**
 * Validates `value` against the named SchCP schema. On failure, `field` is the JSON pointer
 * of the first specific error and `errors` lists every issue found.
 */
export function validateSchcp<N extends SchemaName>(
  name: N,
  value: unknown,
): Result<SchcpTypeOf<N>, SchemaError> {
  return run(validator(name), name, value) as Result<SchcpTypeOf<N>, SchemaError>;
}

function run(fn: ValidateFunction, name: string, value: unknown): Result<unknown, SchemaError> {
  if (fn(value)) return ok(value);
  const issues = (fn.errors ?? []).map(toIssue);
  const first = primary(issues);
  return err({
    code: "schema",
    field: first?.field ?? "",
    message:
      first === undefined ? `not a valid ${name}` : `${name}: ${first.field || "value"} ${first.message}`,
    errors: issues.map(({ field, keyword, message }) => ({ field, keyword, message })),
  });
}

let sdJwtMandate: ValidateFunction | undefined;

/**
 * MandateClaims as §3.4 evaluates an SD-JWT VC mandate: the same closed members, formats and
 * constraints, except that the principal key is the issuer JWT's jwk header, never a claim,
 * and there is no chain. So principal_jwk, issuer_jwk and parent are refused outright instead
 * of one of them being required (the only part of MandateClaims that depends on the envelope).
 */
export function validateSdJwtMandateClaims(value: unknown): Result<T.MandateClaims, SchemaError> {
  if (sdJwtMandate === undefined) {
    const defs = (SCHCP_SCHEMA_DOCUMENT.$defs ?? {}) as Record<string, Record<string, unknown>>;
    const { if: _if, then: _then, else: _else, ...members } = defs.MandateClaims ?? {};
    const props = members.properties as Record<string, unknown>;
    // Refs inside MandateClaims are document-relative ("#/$defs/Id"); make them absolute.
    const schema = JSON.parse(
      JSON.stringify({
        ...members,
        properties: { ...props, principal_jwk: false, issuer_jwk: false, parent: false },
      }).replaceAll('"#/$defs/', `"${SCHCP_SCHEMA_ID}#/$defs/`),
    ) as Record<string, unknown>;
    sdJwtMandate = instance().compile(schema);
  }
  return run(sdJwtMandate, "MandateClaims", value) as Result<T.MandateClaims, SchemaError>;
}
