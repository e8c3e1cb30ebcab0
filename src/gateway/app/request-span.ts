/**
 * One span per edge request (docs/ARCHITECTURE.md, Tracing): the server span every core
 * operation and upstream call of the request is a child of. Named by the method and the route
 * as registered (`POST /schcp/v0/:hostId/holds`), never by the raw path, and tagged with the
 * edge the path belongs to. Probes (/healthz, /readyz) and the scrape (/metrics) get none.
 */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { failSpan, inSpan } from "../../protocol/tracing.js";

/** The edge a path is served by (docs/ARCHITECTURE.md, Edges); undefined: no span. */
function edgeOfPath(path: string): string | undefined {
  if (path === "/healthz" || path === "/readyz" || path === "/metrics") return undefined;
  const first = path.split("/")[1] ?? "";
  if (first === "schcp") return "schcp";
  if (first === "api" && path.startsWith("/api/servicialo/")) return "a2a";
  if (first === "operator") return "operator";
  if (first === "approve") return "approval";
  if (first === "webhooks" || first === "push") return "inbound";
  if (first === ".well-known" || first === "hosts") return "discovery";
  return "console";
}

export function requestSpan(): MiddlewareHandler {
  return async (c, next) => {
    const edge = edgeOfPath(c.req.path);
    if (edge === undefined) return next();
    const method = c.req.method;
    await inSpan(
      `${method} ${edge}`,
      { kind: "server", attributes: { "http.request.method": method, "gateway.edge": edge } },
      async (span) => {
        await next();
        const route = routePath(c, -1);
        span.updateName(`${method} ${route}`);
        span.setAttributes({ "http.route": route, "http.response.status_code": c.res.status });
        if (c.res.status >= 500) failSpan(span, String(c.res.status));
      },
    );
  };
}
