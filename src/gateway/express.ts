/**
 * The gateway inside an existing Express 5 app, as one piece of middleware:
 *
 *   const runtime = await createGatewayRuntime({ hosts, publicOrigin: "https://shop.example", dataDir });
 *   app.use(gatewayRouter(runtime));   // before express.json() and other body parsers
 *   app.use(express.json());
 *
 * It serves everything `serve` serves (SchCP, discovery, operator API, console, Connect) through
 * @hono/node-server's request listener, so the gateway reads the Node request itself. Three
 * rules follow from the protocol, not from Express:
 * - Mount it at the root (no path argument). SchCP signatures cover the target URI rebuilt from
 *   PUBLIC_ORIGIN and the path the gateway routes on; under a sub-path both would be wrong.
 * - Mount it before any body parser. The signature's Content-Digest covers the exact body bytes,
 *   which a parser has consumed; such a request on a gateway path gets a 500 naming the fix.
 * - Requests the gateway has no route for reach the host app's next handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { NextFunction, Request as ExpressRequest, RequestHandler } from "express";
import { createHttpApp } from "./app/app.js";
import type { ReadinessProbe } from "./app/app.js";
import type { HttpAppDeps } from "./app/types.js";

// What an app embedding the gateway builds it from: the package exports this module alone
// (`booking-gateway/express`), so the runtime and the config-file reader are published here too.
export { createGatewayRuntime } from "./runtime/runtime.js";
export type { GatewayRuntime, GatewayRuntimeOptions } from "./runtime/runtime.js";
export { loadHostsConfigFile } from "./cli/config-file.js";

/** Set on the notFound answer below: the listener then writes nothing and Express goes on. */
const ALREADY_SENT = "x-hono-already-sent";

/** Paths the gateway answers under; used only to name a consumed body as a mount-order mistake. */
const GATEWAY_PATHS =
  /^\/(?:$|\.well-known\/scheduling\.json|hosts\/|schcp\/|operator\/|console|connect\/|approve\/|webhooks\/|push\/|healthz|readyz|metrics)/;

export function gatewayRouter(deps: HttpAppDeps & ReadinessProbe): RequestHandler {
  const app = createHttpApp(deps);
  // Fall-through is decided by the gateway's own router, not by guessing paths: when no route
  // of the gateway answered, Hono calls notFound, and only then is the request handed back.
  // Matching routes up front would not work: the app's "*" middleware matches every path.
  const passed = new WeakMap<IncomingMessage, NextFunction>();
  app.notFound((c) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const next = incoming === undefined ? undefined : passed.get(incoming);
    if (next === undefined) return c.json({ error: { code: "NOT_FOUND", message: "no route" } }, 404);
    next();
    return new Response(null, { headers: { [ALREADY_SENT]: "1" } });
  });
  // autoCleanupIncoming off: a request handed back must keep its body unread for the host app
  // (Node itself discards an unread body once a response ends).
  const listener = getRequestListener(app.fetch, {
    autoCleanupIncoming: false,
    overrideGlobalObjects: false,
  });

  return (req, res, next) => {
    if (req.baseUrl !== "") {
      res
        .status(500)
        .type("text/plain")
        .send(
          `booking-gateway: mounted under "${req.baseUrl}"; mount gatewayRouter at the root (app.use(gatewayRouter(runtime))) — signatures name the path from the public origin`,
        );
      return;
    }
    if (bodyConsumed(req) && GATEWAY_PATHS.test(req.path)) {
      res
        .status(500)
        .type("text/plain")
        .send(
          "booking-gateway: the request body was already read by a body parser; mount gatewayRouter before express.json() and other body parsers (signatures cover the exact body bytes)",
        );
      return;
    }
    passed.set(req, next);
    listener(req, res as ServerResponse).catch(next);
  };
}

function bodyConsumed(req: ExpressRequest): boolean {
  if (req.method === "GET" || req.method === "HEAD") return false;
  // Express 5's parsers leave req.body undefined unless they parsed it.
  return req.body !== undefined || req.readableEnded || req.readableFlowing !== null;
}
