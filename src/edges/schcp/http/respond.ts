/**
 * Turning decided responses into HTTP. JSON is serialized once, here, so a stored
 * idempotent response replays byte for byte (SchCP §9.1).
 */
import { refusal } from "../../../protocol/schcp/refusals.js";
import { validateSchcp } from "../../../protocol/schcp/validate.js";
import type { SchemaName } from "../../../protocol/schcp/validate.js";
import type { EdgeRefusal, EdgeResponse } from "./types.js";
import type { Logger } from "../../../protocol/logger.js";

const JSON_TYPE = "application/json";

export function toHttp(response: EdgeResponse): Response {
  const headers = new Headers({ "content-type": JSON_TYPE });
  if (response.retryAfterSec !== undefined) headers.set("retry-after", String(response.retryAfterSec));
  return new Response(response.body, { status: response.status, headers });
}

export function jsonResponse(status: number, body: unknown): EdgeResponse {
  return { status, body: JSON.stringify(body) };
}

export function refusalResponse(r: EdgeRefusal): EdgeResponse {
  const out = { status: r.status, body: JSON.stringify(r.body) };
  return r.retryAfterSec === undefined ? out : { ...out, retryAfterSec: r.retryAfterSec };
}

/** The gateway's own fault: a registered 500 the agent may retry later; details stay in the log. */
export function internalError(): EdgeResponse {
  const { status, body } = refusal("INTERNAL_ERROR");
  return { status, body: JSON.stringify(body) };
}

/**
 * Development guard: a response that fails its closed schema is the gateway's bug, and an
 * agent MUST refuse it anyway (§5.2, §5.3), so it is replaced with a 500 and logged.
 */
export function checkedResponse(
  response: EdgeResponse,
  schema: SchemaName,
  enabled: boolean,
  logger: Logger,
  route: string,
): EdgeResponse {
  if (!enabled) return response;
  const isError = response.status >= 400;
  const name: SchemaName = isError ? "Refusal" : schema;
  let value: unknown;
  try {
    value = JSON.parse(response.body);
  } catch {
    value = undefined;
  }
  const valid = validateSchcp(name, value);
  if (valid.ok) return response;
  logger.error("response failed its closed schema", {
    route,
    status: response.status,
    schema: name,
    field: valid.error.field,
    problem: valid.error.message,
  });
  return internalError();
}
