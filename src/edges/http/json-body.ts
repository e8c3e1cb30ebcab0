/**
 * A JSON request body, read the same way by every edge that takes one (the SchCP host endpoint,
 * the operator API), in this order:
 * 1. strict JSON over the raw bytes (SchCP §3.1: duplicate members and invalid UTF-8 are invalid);
 * 2. payment data anywhere (SchCP §8, payment-data.ts), before any schema check so a payment
 *    member is reported as what it is.
 * No schema: each edge checks its own closed shapes after this, and words a failure as its own
 * refusal.
 */
import { parseStrictJson } from "../../protocol/json/index.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { findPaymentData } from "./payment-data.js";

/** Why a body was not taken: each a 400 on every edge that uses this. */
export interface JsonBodyError {
  /** "payment": the body carries payment data (SchCP §8); "invalid": empty or not strict JSON. */
  readonly kind: "invalid" | "payment";
  /** The JSON pointer of the member at fault ("" for the whole body). */
  readonly field: string;
  readonly message: string;
}

export function parseJsonBody(bytes: Uint8Array): Result<unknown, JsonBodyError> {
  if (bytes.length === 0)
    return err({ kind: "invalid", field: "", message: "a JSON request body is required" });
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) {
    const { code, field, message } = parsed.error;
    const what =
      code === "duplicate_member"
        ? "duplicate member"
        : code === "invalid_utf8"
          ? "invalid UTF-8"
          : "invalid JSON";
    return err({
      kind: "invalid",
      field,
      message: `${what}: ${message}${field === "" ? "" : ` at ${field}`}`,
    });
  }
  const payment = findPaymentData(parsed.value);
  if (payment !== undefined) {
    return err({
      kind: "payment",
      field: payment,
      message: `${payment || "the body"} carries payment data; SchCP never takes payment (§8)`,
    });
  }
  return ok(parsed.value);
}
