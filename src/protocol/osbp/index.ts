/** The OSBP v0.1.0 protocol core: wire types, tool names, schemas, mandate rules, approval, audit redaction. */
export * from "./types.js";
export * from "./tool-names.js";
export * from "./problems.js";
export {
  TOOL_INPUT_SCHEMAS,
  toolInputProblem,
  validateToolInput,
  type JsonSchemaObject,
  type ToolInputError,
} from "./input-schemas.js";
export { parseMandateShape, type MandateShape } from "./mandate-shape.js";
export {
  validateMandate,
  validateRequestScope,
  type FixedMoney,
  type MandateContext,
  type ScopeIds,
  type ValidatedMandate,
} from "./validate-mandate.js";
export {
  approvalFactsFrom,
  buildApprovalSummary,
  moneyInWords,
  type ApprovalFacts,
} from "./approval-summary.js";
export {
  APPROVAL_INSTRUCTION_PATTERN,
  APPROVAL_TOKEN_PATTERN,
  DEFAULT_APPROVAL_TTL_MS,
  createApprovalGate,
  extractApprovalToken,
  type ApprovalCheck,
  type ApprovalContext,
  type ApprovalGate,
  type ApprovalGateOptions,
  type ApprovalRefusal,
} from "./approval-gate.js";
export { bookingPayloadHash, canonicalJson, sha256Hex } from "./payload-hash.js";
export { redactForAudit, redactionMarker, type AuditSnapshots, type RedactionKind } from "./redact.js";
