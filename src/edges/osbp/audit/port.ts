/**
 * The OSBP audit trail (OSBP "Audit"): one redacted JSONL event per schema-valid tool call.
 * The MCP edge records; the adapter only reports its platform identity and the last upstream
 * call's metadata. Redaction is the protocol core's redactForAudit.
 */
import type { AuditEvent, PlatformIdentity, ToolName, UpstreamMeta } from "../../../protocol/osbp/index.js";

export interface AuditEntry {
  readonly tool_name: ToolName;
  readonly mandate_id?: string;
  /** The tool input as received (before redaction). */
  readonly input: unknown;
  /** The envelope without audit_event_id: {ok, value | problem, osbp_runtime?}. */
  readonly result: unknown;
  readonly platform?: PlatformIdentity;
  /** Absent when the tool answered locally (idempotency replay, handoff.request). */
  readonly upstream?: UpstreamMeta;
}

export interface AuditLog {
  /** Redacts, hashes, appends one line; resolves once the line is written. */
  record(entry: AuditEntry): Promise<AuditEvent>;
  close(): Promise<void>;
}

/** The spec's default location, relative to the working directory (OSBP "Audit"). */
export const DEFAULT_AUDIT_LOG_PATH = ".osbp/audit/events.jsonl";
/** OSBP "Audit": "set OSBP_AUDIT_LOG_PATH to override". */
export const AUDIT_LOG_PATH_ENV = "OSBP_AUDIT_LOG_PATH";
