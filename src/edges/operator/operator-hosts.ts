/**
 * The operator's view of host health (booking/hosts/health.ts), beside the booking routes and
 * behind the same bearer credential:
 *
 *   GET  /operator/v0/hosts                   the hosts, a page at a time:
 *        { hosts: [{ host_id, name, health, since, … }], next_cursor }
 *        ?limit=N (1-1000, default 500) ?cursor=<next_cursor of the page before>; next_cursor
 *        is null on the last page. Pages follow the configuration order; a host added or removed
 *        between pages may be missed or seen twice.
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
import { operatorRefusal } from "./operator-refusals.js";
import { jsonResponse, refusalResponse, toHttp } from "../http/respond.js";
import type { OperatorHttpDeps } from "./types.js";

export function mountOperatorHostRoutes(app: Hono, deps: OperatorHttpDeps): void {
  app.get("/operator/v0/hosts", (c) => {
    if (!operatorCredentialMatches(c.req.header("authorization") ?? null, deps.operatorToken))
      return toHttp(OPERATOR_UNAUTHORIZED);
    const page = hostsPage(deps.hosts.list(), c.req.query("limit"), c.req.query("cursor"));
    if (typeof page === "string")
      return toHttp(refusalResponse(operatorRefusal({ code: "INVALID_REQUEST", message: page })));
    return toHttp(jsonResponse(200, { hosts: page.hosts.map(hostHealthView), next_cursor: page.next }));
  });
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

/** A page of hosts when none is asked for: today's deployments fit in one. */
export const DEFAULT_HOSTS_PAGE = 500;
const MAX_HOSTS_PAGE = 1_000;

/**
 * The page of `list` after the cursor, or why the query is refused. A cursor names the last
 * host of its page and where it stood, so the next page starts after that host where it is
 * now, or at the same place when it is gone.
 */
function hostsPage(
  list: readonly HostRuntime[],
  limitParam: string | undefined,
  cursorParam: string | undefined,
): { hosts: readonly HostRuntime[]; next: string | null } | string {
  let limit = DEFAULT_HOSTS_PAGE;
  if (limitParam !== undefined) {
    if (!/^[1-9][0-9]{0,6}$/.test(limitParam) || Number(limitParam) > MAX_HOSTS_PAGE)
      return `limit must be a whole number from 1 to ${MAX_HOSTS_PAGE}`;
    limit = Number(limitParam);
  }
  let from = 0;
  if (cursorParam !== undefined) {
    const cursor = readCursor(cursorParam);
    if (cursor === undefined) return "cursor is not one this gateway gave";
    const { index, hostId } = cursor;
    if (list[index]?.config.id === hostId) from = index + 1;
    else {
      const at = list.findIndex((h) => h.config.id === hostId);
      from = at >= 0 ? at + 1 : Math.min(index, list.length);
    }
  }
  const hosts = list.slice(from, from + limit);
  const last = from + hosts.length - 1;
  const next = from + limit < list.length ? writeCursor(last, list[last]!.config.id) : null;
  return { hosts, next };
}

function writeCursor(index: number, hostId: string): string {
  return Buffer.from(JSON.stringify([index, hostId])).toString("base64url");
}

function readCursor(raw: string): { index: number; hostId: string } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (!Array.isArray(v) || v.length !== 2) return undefined;
    const [index, hostId] = v as [unknown, unknown];
    if (!Number.isSafeInteger(index) || (index as number) < 0 || typeof hostId !== "string") return undefined;
    return { index: index as number, hostId };
  } catch {
    return undefined;
  }
}

function hostHealthView(host: HostRuntime): Record<string, unknown> {
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
