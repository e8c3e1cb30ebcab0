/** The OSBP audit trail: the port and the JSONL log. */
export * from "./port.js";
export {
  AuditLogError,
  DEFAULT_AUDIT_SOURCE,
  createJsonlAuditLog,
  readAuditLog,
  type JsonlAuditLogOptions,
} from "./jsonl.js";
export { AUDIT_ID_PATTERN, createAuditIdGenerator } from "./ids.js";
