/**
 * The SchCP answers beyond the kit's (src/edges/http/respond.ts: toHttp, jsonResponse,
 * refusalResponse): the registered 500, and the development check of every response against
 * its closed schema.
 */
import { refusal } from "../../../protocol/schcp/refusals.js";
import { validateSchcp } from "../../../protocol/schcp/validate.js";
import type { SchemaName } from "../../../protocol/schcp/validate.js";
import type { EdgeResponse } from "../../http/respond.js";
import type { Logger } from "../../../protocol/logger.js";

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
