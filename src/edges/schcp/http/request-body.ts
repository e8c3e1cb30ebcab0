/**
 * Request bodies, checked in this order, each a 400 INVALID_REQUEST that names the field:
 * 1. strict JSON over the raw bytes (SchCP §3.1: duplicate members and invalid UTF-8 are invalid);
 * 2. payment data anywhere (§8: reason payment_not_accepted), before the closed-schema check so
 *    a payment member is reported as what it is;
 * 3. the closed request schema (§5.2 "The request schema is closed").
 */
import type { HostConfig } from "../../../booking/api.js";
import { parseStrictJson } from "../../../protocol/json/index.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import { validateSchcp } from "../../../protocol/schcp/validate.js";
import type { SchcpTypeOf, SchemaName } from "../../../protocol/schcp/validate.js";
import { findPaymentData } from "./payment.js";
import { edgeRefusal } from "./refusal-map.js";
import type { EdgeRefusal } from "./types.js";

function invalid(message: string, field: string, host?: HostConfig): EdgeRefusal {
  return edgeRefusal({ code: "INVALID_REQUEST", message, details: { field } }, host);
}

/** Strict JSON and the payment rule only (the operator API has its own closed shapes). */
export function parseJsonBody(bytes: Uint8Array, host?: HostConfig): Result<unknown, EdgeRefusal> {
  if (bytes.length === 0) return err(invalid("a JSON request body is required", "", host));
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) {
    const { code, field, message } = parsed.error;
    const what =
      code === "duplicate_member"
        ? "duplicate member"
        : code === "invalid_utf8"
          ? "invalid UTF-8"
          : "invalid JSON";
    return err(invalid(`${what}: ${message}${field === "" ? "" : ` at ${field}`}`, field, host));
  }
  const payment = findPaymentData(parsed.value);
  if (payment !== undefined) {
    return err(
      edgeRefusal(
        {
          code: "INVALID_REQUEST",
          reason: "payment_not_accepted",
          message: `${payment || "the body"} carries payment data; SchCP never takes payment (§8)`,
          details: { field: payment },
        },
        host,
      ),
    );
  }
  return ok(parsed.value);
}

export function parseRequestBody<N extends SchemaName>(
  schema: N,
  bytes: Uint8Array,
  host?: HostConfig,
): Result<SchcpTypeOf<N>, EdgeRefusal> {
  const json = parseJsonBody(bytes, host);
  if (!json.ok) return json;
  const valid = validateSchcp(schema, json.value);
  if (!valid.ok) return err(invalid(valid.error.message, valid.error.field, host));
  return valid;
}
