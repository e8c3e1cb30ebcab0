/**
 * The gateway's HTTP edge: one Hono app. It only translates: requests in, neutral calls to
 * the booking core, protocol-shaped responses out. Tested in process through `app.request()`.
 *
 *   GET  /.well-known/scheduling.json            operator document (SchCP §2.3)
 *   GET  /hosts/{hostId}/scheduling.json         a host's discovery document (§2.1)
 *   *    /schcp/v0/{hostId}/...                  the host endpoint (§5), see schcp-route-table.ts
 *   *    /operator/v0/{hostId}/bookings[...]     the operator API (Bearer credential)
 *   *    /operator/v0/hosts, /{hostId}/health     host health for operators (operator-hosts.ts)
 *   POST /webhooks/square/{hostId}               Square booking notifications (square-webhooks.ts)
 *   POST /push/{google,microsoft}/{hostId}       calendar push notifications (calendar-push.ts)
 *   GET  /, POST /console/...                    the operator console (src/edges/console)
 *   GET  /connect/{provider}/start|callback      Connect, behind console sessions (src/edges/console/connect)
 *   GET, POST /connect/{source}/disconnect       disconnect a host (revoke, delete, stop offering time)
 *   *    /api/servicialo/{hostId}/...             Servicialo A2A, REST and JSON-RPC (src/edges/a2a)
 *   GET  /metrics                                the Prometheus scrape (src/gateway/metrics)
 *
 * This file is also the composition of every HTTP edge into that one app: A2A, the console
 * and Connect are mounted here, over HttpAppDeps (types.ts), which carries their dependencies
 * too. That is why it, and types.ts, import every edge: the composition root may, an edge may
 * not (docs/ARCHITECTURE.md, Layers). What one edge needs of another is handed over here: the
 * SchCP edge's refusal mapping to the operator API, the A2A intents and key store to the
 * console. What the edges share of HTTP (body reading, answers, origin and rate limits, the
 * page layout) is in src/edges/http, not here.
 */
import { Hono } from "hono";
import { HoldStoreUnavailableError } from "../../holds/port.js";
import { edgeRefusal, fromBookingRefusal } from "../../edges/schcp/http/refusal-map.js";
import { internalError } from "../../edges/schcp/http/respond.js";
import { jsonResponse, refusalResponse, toHttp } from "../../edges/http/respond.js";
import type { OperatorHttpDeps } from "../../edges/operator/types.js";
import { mountOperatorHostRoutes } from "../../edges/operator/operator-hosts.js";
import { mountOperatorUpstreamRoutes } from "../../edges/operator/operator-upstreams.js";
import { mountApprovalRoutes } from "../../edges/approval/approval-routes.js";
import { mountOperatorRoutes } from "../../edges/operator/operator-routes.js";
import { mountOperatorRuleRoutes } from "../../edges/operator/operator-rules.js";
import { originRateLimit } from "../../edges/http/origin-limit.js";
import { mountSchcpRoutes, SCHCP_PREFIX } from "../../edges/schcp/http/schcp-routes.js";
import { mountA2aRest } from "../../edges/a2a/rest-routes.js";
import { mountSquareWebhooks } from "../../edges/inbound/square-webhooks.js";
import { mountCalendarPush } from "../../edges/inbound/calendar-push.js";
import {
  consoleViewerOf,
  mountConsole,
  requireConsoleSession,
  sessionIdOf,
} from "../../edges/console/routes.js";
import { connectRoutes } from "../../edges/console/connect/routes.js";
import { crossSiteCallbackBounce, hostAccess } from "../../edges/console/connect/wiring.js";
import { normalizeOrigin } from "../../edges/schcp/http/target-uri.js";
import type { HttpAppDeps } from "./types.js";
import { mountA2aJsonRpc } from "../../edges/a2a/jsonrpc/routes.js";
import { answerScrape } from "../metrics/endpoint.js";
import { requestSpan } from "./request-span.js";

export const SCHCP_VERSION = "0.4";

/** What /readyz asks: the runtime's store (GatewayRuntime passes itself, which has one). */
export interface ReadinessProbe {
  readonly store?: { getHold(hostId: string, holdId: string, now: number): Promise<unknown> };
}

const READY_TIMEOUT_MS = 2000;

export function createHttpApp(deps: HttpAppDeps & ReadinessProbe): Hono {
  const origin = normalizeOrigin(deps.publicOrigin);
  // Configuration is checked before this point (CLI, runtime); a bad origin here is a bug.
  if (origin === undefined) throw new Error(`createHttpApp: "${deps.publicOrigin}" is not an http(s) origin`);
  const app = new Hono();

  // A span per edge request, around everything the request does (request-span.ts).
  app.use("*", requestSpan());
  // §3.1: every host-endpoint response, and every response serving a discovery or operator
  // document, carries SchCP-Version; the operator API and errors carry it too.
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("SchCP-Version", SCHCP_VERSION);
  });

  // §3.2: discovery and operator documents are plain unsigned GETs.
  app.get("/.well-known/scheduling.json", (c) => {
    const entity = deps.documents.operatorEntity?.();
    if (entity === undefined) return toHttp(jsonResponse(200, deps.documents.operator()));
    // Built once per set of hosts; an agent holding this copy is answered 304 (RFC 9110 §13.1.2).
    if (etagMatches(c.req.header("if-none-match"), entity.etag))
      return new Response(null, { status: 304, headers: { etag: entity.etag } });
    const res = toHttp({ status: 200, body: entity.body });
    res.headers.set("etag", entity.etag);
    return res;
  });
  app.get("/hosts/:hostId/scheduling.json", (c) => {
    const hostId = c.req.param("hostId");
    const doc = deps.documents.host(hostId);
    return toHttp(
      doc === undefined
        ? refusalResponse(edgeRefusal({ code: "NOT_FOUND", message: `no host "${hostId}" is served here` }))
        : jsonResponse(200, doc),
    );
  });
  // Liveness: the process answers. Readiness: the store answers too, so a load balancer only
  // sends traffic to a replica that can take a hold (a Redis round trip when REDIS_URL is set).
  app.get("/healthz", () => toHttp(jsonResponse(200, { ok: true })));
  // Beside the probes: the operator's scrape, behind the operator credential unless opened
  // (src/gateway/metrics/endpoint.ts); absent with METRICS=off.
  const metrics = deps.metrics;
  if (metrics !== undefined)
    app.get("/metrics", (c) => answerScrape(metrics, c.req.header("authorization"), deps.operatorToken));
  app.get("/readyz", async () => {
    const store = deps.store;
    if (store === undefined) return toHttp(jsonResponse(503, { ready: false, reason: "no store" }));
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        store.getHold("readyz", "probe", deps.clock.now()),
        new Promise(
          (_, fail) => (timer = setTimeout(() => fail(new Error("store timed out")), READY_TIMEOUT_MS)),
        ),
      ]);
      return toHttp(jsonResponse(200, { ready: true }));
    } catch (e) {
      return toHttp(jsonResponse(503, { ready: false, reason: e instanceof Error ? e.message : String(e) }));
    } finally {
      clearTimeout(timer);
    }
  });

  // §7.2: the network origin's allowance is spent before a body is read or a signature checked.
  if (deps.originRateLimit !== undefined) {
    const hostOf = (path: string) =>
      deps.hosts.get(path.slice(SCHCP_PREFIX.length + 1).split("/")[0] ?? "")?.config;
    const refuse = (retryAfterMs: number, path: string) =>
      toHttp(
        refusalResponse(
          edgeRefusal(
            {
              code: "RATE_LIMITED",
              message: "too many requests from this network origin; try again later",
              basis: { policy: "rate limit per network origin" },
              retryAfterMs,
            },
            hostOf(path),
          ),
        ),
      );
    app.use(`${SCHCP_PREFIX}/*`, originRateLimit(deps.originRateLimit, refuse));
  }
  mountSchcpRoutes(app, deps, origin);
  // The Servicialo A2A edge (src/edges/a2a): REST intents and JSON-RPC over the same A2aIntents.
  if (deps.a2a !== undefined) {
    const trustForwardedFor = deps.originRateLimit?.trustForwardedFor === true;
    mountA2aRest(app, { intents: deps.a2a, trustForwardedFor });
    mountA2aJsonRpc(app, deps.a2a, {
      publicOrigin: origin,
      logger: deps.logger,
      trustForwardedFor,
      clock: deps.clock,
    });
  }
  // The operator API answers the core's refusals in SchCP's shape (SchCP §9.2): the SchCP edge's
  // mapping is handed to it here, so neither edge imports the other.
  const operator: OperatorHttpDeps = { ...deps, bookingRefusal: fromBookingRefusal };
  mountOperatorRoutes(app, operator);
  mountOperatorHostRoutes(app, operator);
  mountOperatorRuleRoutes(app, operator);
  if (deps.upstreams !== undefined) mountOperatorUpstreamRoutes(app, operator, deps.upstreams);
  if (deps.approval !== undefined) mountApprovalRoutes(app, deps.approval);
  if (deps.console !== undefined) mountConsole(app, { ...deps, publicOrigin: origin }, deps.console);
  // Connect and disconnect, for the operator and business owners alike (each only their own
  // hosts): deps.connect exists whenever the gateway has a token vault, with or without an
  // OAuth client (a CalDAV-only gateway still disconnects).
  if (deps.console !== undefined && deps.connect !== undefined) {
    const con = deps.console;
    const signedIn = requireConsoleSession(con.sessions, origin, con.accounts);
    app.route(
      "/",
      connectRoutes({
        ...(deps.connect.connect !== undefined && { connect: deps.connect.connect }),
        sessionOf: (r) => sessionIdOf(r, origin),
        requireOperator: async (c, next) =>
          crossSiteCallbackBounce(c.req.raw, sessionIdOf(c.req.raw, origin) !== undefined) ??
          signedIn(c, next),
        access: {
          viewerOf: consoleViewerOf(con, origin),
          hosts: hostAccess(deps.hosts, deps.managedHosts),
          sessions: con.sessions,
        },
        disconnect: {
          disconnect: deps.connect.disconnect(deps.hosts, deps.managedHosts),
          sessions: con.sessions,
          publicOrigin: origin,
        },
      }),
    );
  }
  if (deps.squareWebhooks !== undefined)
    mountSquareWebhooks(
      app,
      {
        publicOrigin: origin,
        logger: deps.logger,
        ...(deps.maxBodyBytes !== undefined && { maxBodyBytes: deps.maxBodyBytes }),
      },
      deps.squareWebhooks,
    );
  if (deps.calendarPush !== undefined)
    mountCalendarPush(
      app,
      { logger: deps.logger, ...(deps.maxBodyBytes !== undefined && { maxBodyBytes: deps.maxBodyBytes }) },
      deps.calendarPush,
    );

  app.notFound((c) =>
    toHttp(
      refusalResponse(
        edgeRefusal({ code: "NOT_FOUND", message: `no route for ${c.req.method} ${c.req.path}` }),
      ),
    ),
  );

  app.onError((e, c) => {
    if (e instanceof HoldStoreUnavailableError) {
      deps.logger.error("store unavailable", { method: c.req.method, path: c.req.path, error: e.message });
      return toHttp(
        refusalResponse(
          edgeRefusal({
            code: "UPSTREAM_UNAVAILABLE",
            message: "the gateway's store is not answering; try again shortly",
            retryAfterMs: 1000,
          }),
        ),
      );
    }
    deps.logger.error("unhandled error", {
      method: c.req.method,
      path: c.req.path,
      error: e instanceof Error ? (e.stack ?? e.message) : String(e),
    });
    return toHttp(internalError());
  });

  return app;
}

/** If-None-Match against a strong ETag: "*" or any listed tag, compared weakly (RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}
