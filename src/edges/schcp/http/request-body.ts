/**
 * Request bodies, checked in this order, each a 400 INVALID_REQUEST that names the field:
 * 1. strict JSON over the raw bytes (SchCP §3.1: duplicate members and invalid UTF-8 are invalid);
 * 2. payment data anywhere (§8: reason payment_not_accepted), before the closed-schema check so
 *    a payment member is reported as what it is;
 * 3. the closed request schema (§5.2 "The request schema is closed").
 * The first two are the kit's (src/edges/http/json-body.ts); this file words them as SchCP
 * refusals and adds the third.
 */
import type { HostConfig } from "../../../booking/api.js";
import { err } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import { validateSchcp } from "../../../protocol/schcp/validate.js";
import type { SchcpTypeOf, SchemaName } from "../../../protocol/schcp/validate.js";
import { parseJsonBody } from "../../http/json-body.js";
import { edgeRefusal } from "./refusal-map.js";
import type { SchcpEdgeRefusal } from "./types.js";

function invalid(message: string, field: string, host?: HostConfig): SchcpEdgeRefusal {
  return edgeRefusal({ code: "INVALID_REQUEST", message, details: { field } }, host);
}

export function parseRequestBody<N extends SchemaName>(
  schema: N,
  bytes: Uint8Array,
  host?: HostConfig,
): Result<SchcpTypeOf<N>, SchcpEdgeRefusal> {
  const json = parseJsonBody(bytes);
  if (!json.ok) {
    const { kind, field, message } = json.error;
    return err(
      kind === "payment"
        ? edgeRefusal(
            { code: "INVALID_REQUEST", reason: "payment_not_accepted", message, details: { field } },
            host,
          )
        : invalid(message, field, host),
    );
  }
  const valid = validateSchcp(schema, json.value);
  if (!valid.ok) return err(invalid(valid.error.message, valid.error.field, host));
  return valid;
}
