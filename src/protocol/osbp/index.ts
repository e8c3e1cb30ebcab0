/** The OSBP v0.1.0 protocol core: wire types, tool names, schemas, mandate rules, approval, audit redaction. */
export * from "./types.js";
export * from "./tool-names.js";
export * from "./problems.js";
export { TOOL_INPUT_SCHEMAS, toolInputProblem, validateToolInput } from "./input-schemas.js";
export { validateMandate, validateRequestScope, type MandateContext } from "./validate-mandate.js";
export {
  approvalFactsFrom,
  buildApprovalSummary,
  moneyInWords,
  type ApprovalFacts,
} from "./approval-summary.js";
export {
  APPROVAL_INSTRUCTION_PATTERN,
  APPROVAL_TOKEN_PATTERN,
  createApprovalGate,
  extractApprovalToken,
  type ApprovalContext,
  type ApprovalGate,
} from "./approval-gate.js";
export { bookingPayloadHash, canonicalJson, sha256Hex } from "./payload-hash.js";
export { redactForAudit, redactionMarker } from "./redact.js";
