/**
 * The operator API's refusals, in SchCP's refusal shape (SchCP §9.2) so one client reads both
 * APIs. The ones the operator API decides itself (a bad query or body, an unknown host, an
 * oversized body) are built here from the SchCP registry (src/protocol/schcp/refusals.ts), with
 * the registry's status and first reason. The core's refusals are not mapped here: the SchCP
 * edge's one table does that, handed in by the composition root (OperatorHttpDeps.bookingRefusal).
 */
import type { EdgeRefusal } from "../http/respond.js";
import type { JsonBodyError } from "../http/json-body.js";
import { refusal } from "../../protocol/schcp/refusals.js";
import type { RefusalBody } from "../../protocol/schcp/types.js";

export interface OperatorRefusalInput {
  readonly code: "INVALID_REQUEST" | "NOT_FOUND";
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  /** The HTTP status when it is not the registry's (413 for an oversized body). */
  readonly status?: number;
}

export function operatorRefusal(input: OperatorRefusalInput): EdgeRefusal<RefusalBody> {
  const built = refusal(input.code, {
    message: input.message,
    ...(input.details !== undefined && { details: { ...input.details } }),
  });
  return { status: input.status ?? built.status, body: built.body };
}

/** A body the kit would not take (src/edges/http/json-body.ts): 400 INVALID_REQUEST naming the field. */
export function bodyRefusal(e: JsonBodyError): EdgeRefusal<RefusalBody> {
  if (e.kind === "invalid")
    return operatorRefusal({ code: "INVALID_REQUEST", message: e.message, details: { field: e.field } });
  // SchCP §8: payment data is refused as what it is.
  const built = refusal("INVALID_REQUEST", {
    reason: "payment_not_accepted",
    message: e.message,
    details: { field: e.field },
  });
  return { status: built.status, body: built.body };
}
