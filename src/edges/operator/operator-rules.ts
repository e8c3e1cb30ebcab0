/**
 * The rules a person's calendar keeps (SchCP §7.9), behind the operator credential like the
 * booking routes. Rules are never published: only the operator (and its console) reads them.
 *
 *   POST   /operator/v0/{hostId}/rules         { "rule": "<compact JWS, typ schcp-rule+jwt>" }
 *          → 201 { rule } (200 when it replaced the rule with the same jti)
 *   GET    /operator/v0/{hostId}/rules         → 200 { rules: [rule, …] }, unexpired, oldest first
 *   DELETE /operator/v0/{hostId}/rules/{jti}   → 200 { removed: jti }, or 404 NOT_FOUND
 *
 * A rule is { jws, claims, answerable }: its exact bytes, its claims, and whether its cnf.jkt
 * names the key this gateway answers with for the host (src/booking/answers/decide.ts), so a
 * console can say that a rule naming another agent's key answers nothing here. A rule the
 * calendar refuses (not the owner's, expired, not a person's calendar, badly signed) is 400
 * INVALID_REQUEST with the reason in its message and details.problem.
 */
import type { Context, Hono } from "hono";
import type { HostRuntime } from "../../booking/api.js";
import type { RuleView } from "../../booking/answers/rules.js";
import { formatInstant } from "../../protocol/time/index.js";
import { readBoundedBody, DEFAULT_MAX_BODY_BYTES } from "../http/body.js";
import { parseJsonBody } from "../http/json-body.js";
import { jsonResponse, refusalResponse, toHttp } from "../http/respond.js";
import type { EdgeResponse } from "../http/respond.js";
import { guarded } from "./operator-routes.js";
import { bodyRefusal, operatorRefusal } from "./operator-refusals.js";
import type { OperatorHttpDeps } from "./types.js";

const RULES = "/operator/v0/:hostId/rules";

export function ruleJson(v: RuleView): Record<string, unknown> {
  return {
    jws: v.jws,
    claims: v.claims,
    // For people to read; the claims keep the signed NumericDates.
    issued_at: formatInstant(v.claims.iat * 1000),
    expires_at: formatInstant(v.claims.exp * 1000),
    answerable: v.answerable,
  };
}

const unsupported = (): EdgeResponse =>
  refusalResponse(operatorRefusal({ code: "NOT_FOUND", message: "this gateway keeps no rules" }));

export function mountOperatorRuleRoutes(app: Hono, deps: OperatorHttpDeps): void {
  app.get(RULES, async (c) =>
    toHttp(
      await guarded(c, deps, async (host) => {
        if (deps.api.listRules === undefined) return unsupported();
        const listed = await deps.api.listRules(host.config.id);
        return listed.ok
          ? jsonResponse(200, { rules: listed.value.map(ruleJson) })
          : refusalResponse(deps.bookingRefusal(listed.error, host.config));
      }),
    ),
  );
  app.post(RULES, async (c) => toHttp(await guarded(c, deps, (host) => addRoute(c, deps, host))));
  app.delete(`${RULES}/:jti`, async (c) =>
    toHttp(
      await guarded(c, deps, async (host) => {
        if (deps.api.removeRule === undefined) return unsupported();
        const jti = c.req.param("jti") ?? "";
        const removed = await deps.api.removeRule(host.config.id, jti);
        return removed.ok
          ? jsonResponse(200, { removed: jti })
          : refusalResponse(deps.bookingRefusal(removed.error, host.config));
      }),
    ),
  );
}

async function addRoute(c: Context, deps: OperatorHttpDeps, host: HostRuntime): Promise<EdgeResponse> {
  if (deps.api.addRule === undefined) return unsupported();
  const limit = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bytes = await readBoundedBody(c.req.raw, limit, c.env);
  if (!bytes.ok)
    return refusalResponse(
      operatorRefusal({
        code: "INVALID_REQUEST",
        status: 413,
        message: `the request body is larger than ${limit} bytes`,
      }),
    );
  const parsed = parseJsonBody(bytes.value);
  if (!parsed.ok) return refusalResponse(bodyRefusal(parsed.error));
  const body = parsed.value;
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return refusalResponse(
      operatorRefusal({ code: "INVALID_REQUEST", message: "the body is a JSON object" }),
    );
  const extra = Object.keys(body).find((k) => k !== "rule");
  if (extra !== undefined)
    return refusalResponse(
      operatorRefusal({
        code: "INVALID_REQUEST",
        message: `member "${extra}" is not allowed; send { "rule": "<compact JWS>" }`,
        details: { field: `/${extra}` },
      }),
    );
  const added = await deps.api.addRule(host.config.id, (body as Record<string, unknown>)["rule"]);
  if (!added.ok) return refusalResponse(deps.bookingRefusal(added.error, host.config));
  return jsonResponse(added.value.replaced ? 200 : 201, { rule: ruleJson(added.value.rule) });
}
