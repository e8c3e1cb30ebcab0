/**
 * The host endpoint (SchCP §3–§9) at {origin}/schcp/v0/{hostId}. Every operation runs one
 * pipeline, in this order (after the network origin's rate limit, §7.2, app.ts):
 *   host in the path -> body as bounded raw bytes (413) -> request signature against the
 *   configured public origin (§3.2, 401) -> availability's rate limit (§7.2, 429) -> strict
 *   JSON, payment data, closed schema (§3.1, §8, 400) -> a callback_url that can be delivered
 *   to (§5.8, 400) -> mandate for this host (§3.3, 401)
 *   -> idempotency (§9.1) -> the use case -> the refusal mapping (§9.2).
 * Signature first: nothing about an unauthenticated request's body is worth telling anyone.
 */
import type { Context, Hono } from "hono";
import type { HostRuntime } from "../../../booking/api.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import { resolveCaller, verifySignature } from "./auth.js";
import { readBoundedBody } from "../../http/body.js";
import { refuseCallbackUrl } from "./callback-check.js";
import { edgeRefusal, fromBookingRefusal } from "./refusal-map.js";
import { parseRequestBody } from "./request-body.js";
import { jsonResponse, refusalResponse, toHttp } from "../../http/respond.js";
import type { EdgeResponse } from "../../http/respond.js";
import { checkedResponse } from "./respond.js";
import { SCHCP_ROUTES } from "./schcp-route-table.js";
import type { SchcpRoute } from "./schcp-route-table.js";
import { requestPathAndQuery } from "./target-uri.js";
import { DEFAULT_MAX_BODY_BYTES } from "../../http/body.js";
import type { SchcpEdgeRefusal, SchcpHttpDeps } from "./types.js";

export const SCHCP_PREFIX = "/schcp/v0";
const SCHCP_BASE = `${SCHCP_PREFIX}/:hostId`;

export function mountSchcpRoutes(app: Hono, deps: SchcpHttpDeps, origin: string): void {
  for (const route of SCHCP_ROUTES) {
    const path = `${SCHCP_BASE}${route.path}`;
    const handler = async (c: Context): Promise<Response> => toHttp(await handle(c, route, deps, origin));
    if (route.method === "GET") app.get(path, handler);
    else if (route.method === "POST") app.post(path, handler);
    else app.delete(path, handler);
  }
}

async function handle(
  c: Context,
  route: SchcpRoute,
  deps: SchcpHttpDeps,
  origin: string,
): Promise<EdgeResponse> {
  const fail = (r: SchcpEdgeRefusal): EdgeResponse => refusalResponse(r);
  const hostId = c.req.param("hostId") ?? "";
  const host = deps.hosts.get(hostId);
  if (host === undefined) {
    return fail(edgeRefusal({ code: "NOT_FOUND", message: `no host "${hostId}" is served here` }));
  }

  const limit = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bytes = await readBoundedBody(c.req.raw, limit, c.env);
  if (!bytes.ok) {
    return fail(
      edgeRefusal(
        { code: "INVALID_REQUEST", status: 413, message: `the request body is larger than ${limit} bytes` },
        host.config,
      ),
    );
  }
  const body = bytes.value;
  const pathAndQuery = requestPathAndQuery(c.req.url);
  const nowMs = deps.clock.now();

  const verified = await verifySignature(
    {
      method: c.req.method,
      targetUri: origin + pathAndQuery,
      headers: c.req.raw.headers,
      body,
      nowMs,
      nonces: deps.nonces,
    },
    host,
  );
  if (!verified.ok) return fail(verified.error);

  if (route.rateLimited) {
    const taken = await deps.rateLimiter.take(verified.value.keyid, nowMs);
    if (!taken.ok) {
      return fail(
        edgeRefusal(
          {
            code: "RATE_LIMITED",
            message: "too many availability queries from this agent key; try again later",
            basis: { policy: "availability rate limit per agent key" },
            retryAfterMs: taken.error.retryAfterMs,
          },
          host.config,
        ),
      );
    }
  }

  const parsed = parseBody(route, body, host);
  if (!parsed.ok) return fail(parsed.error);
  const callback = refuseCallbackUrl(parsed.value, host.config, deps.allowPrivateCallbacksForTests === true);
  if (callback !== undefined) return fail(callback);

  const caller = await resolveCaller(
    verified.value,
    host,
    nowMs,
    route.mandateRequired(host),
    deps.mandateStatus,
  );
  if (!caller.ok) return fail(caller.error);

  const params = {
    holdId: c.req.param("holdId"),
    bookingId: c.req.param("bookingId"),
    waitlistId: c.req.param("waitlistId"),
  };
  const execute = async (): Promise<EdgeResponse> => {
    const answer = await route.call(deps.api, host.config.id, caller.value, params, parsed.value);
    const response = answer.ok
      ? jsonResponse(answer.value.status, answer.value.body)
      : refusalResponse(fromBookingRefusal(answer.error, host.config));
    return checkedResponse(response, route.response, deps.validateResponses ?? true, deps.logger, route.name);
  };
  if (route.idempotent === undefined) return execute();
  return deps.idempotency.run(
    {
      route: route.idempotent,
      hostId: host.config.id,
      caller: caller.value,
      idempotencyKey: (parsed.value as { idempotency_key: string }).idempotency_key,
      method: c.req.method,
      path: pathAndQuery,
      body,
    },
    execute,
  );
}

function parseBody(
  route: SchcpRoute,
  body: Uint8Array,
  host: HostRuntime,
): Result<unknown, SchcpEdgeRefusal> {
  if (route.request !== null) return parseRequestBody(route.request, body, host.config);
  if (body.length === 0) return ok(undefined);
  return err(
    edgeRefusal(
      {
        code: "INVALID_REQUEST",
        message: `${route.method} ${route.path} takes no request body`,
        details: { field: "" },
      },
      host.config,
    ),
  );
}
