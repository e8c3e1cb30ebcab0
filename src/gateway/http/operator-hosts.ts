/**
 * The operator's view of host health (booking/hosts/health.ts), beside the booking routes and
 * behind the same bearer credential:
 *
 *   GET  /operator/v0/hosts                   every host: [{ host_id, name, health, since, … }]
 *   GET  /operator/v0/{hostId}/health         one host
 *   POST /operator/v0/{hostId}/health/refresh read its catalog now (after reconnecting it)
 *
 * health is "ok" | "degraded" | "needs_reconnection"; since, last_error.at, catalog_read_at and
 * next_check_at are RFC 3339 instants. The view is this process's (each reads its own catalog).
 */
import type { Hono } from "hono";
import type { HostRuntime } from "../../booking/api.js";
import { formatInstant } from "../../protocol/time/index.js";
import { operatorCredentialMatches } from "./operator-auth.js";
import { guarded, OPERATOR_UNAUTHORIZED } from "./operator-routes.js";
import { jsonResponse, toHttp } from "./respond.js";
import type { HttpAppDeps } from "./types.js";

export function mountOperatorHostRoutes(app: Hono, deps: HttpAppDeps): void {
  app.get("/operator/v0/hosts", (c) =>
    toHttp(
      operatorCredentialMatches(c.req.header("authorization") ?? null, deps.operatorToken)
        ? jsonResponse(200, { hosts: deps.hosts.list().map(hostHealthView) })
        : OPERATOR_UNAUTHORIZED,
    ),
  );
  app.get("/operator/v0/:hostId/health", async (c) =>
    toHttp(await guarded(c, deps, (host) => Promise.resolve(jsonResponse(200, hostHealthView(host))))),
  );
  app.post("/operator/v0/:hostId/health/refresh", async (c) =>
    toHttp(
      await guarded(c, deps, async (host) => {
        await host.refreshCatalog?.();
        return jsonResponse(200, hostHealthView(host));
      }),
    ),
  );
}

export function hostHealthView(host: HostRuntime): Record<string, unknown> {
  const base = { host_id: host.config.id, name: host.config.name };
  if (host.health === undefined) return { ...base, health: "ok" };
  const s = host.health.status();
  return {
    ...base,
    health: s.health,
    // Why a degraded host is degraded (upstream_too_large, upstream_too_costly, expansion_bound…).
    ...(s.health === "degraded" &&
      s.lastError !== undefined && { degraded_reason: s.lastError.reason ?? s.lastError.code }),
    since: formatInstant(s.since),
    ...(s.lastError !== undefined && {
      last_error: {
        code: s.lastError.code,
        message: s.lastError.message,
        ...(s.lastError.reason !== undefined && { reason: s.lastError.reason }),
        at: formatInstant(s.lastError.at),
      },
    }),
    ...(s.catalogReadAt !== undefined && { catalog_read_at: formatInstant(s.catalogReadAt) }),
    next_check_at: formatInstant(s.nextCheckAt),
  };
}
