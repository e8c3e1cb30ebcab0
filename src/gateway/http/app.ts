/**
 * The gateway's HTTP edge. It only translates: requests in, neutral calls to the
 * layers below, protocol-shaped responses out. Tested in process through
 * `app.request()`, without a socket.
 *
 * This first edge serves the operator document (SchCP §2.3). Connected hosts, their
 * discovery documents and the host endpoint (§3–§9) are added by the SchCP endpoint work.
 */
import { Hono } from "hono";
import { refusal } from "../../protocol/schcp/refusals.js";

export const SCHCP_VERSION = "0.4";

export interface OperatorListing {
  readonly id: string;
  readonly discovery: string;
  readonly host_domain: string | null;
}

export interface HttpAppConfig {
  /** The public origin agents address (SchCP §3.2: never derived from the Host header). */
  readonly publicOrigin: string;
  readonly operatorName: string;
  readonly hosts: readonly OperatorListing[];
}

export function createHttpApp(config: HttpAppConfig): Hono {
  const app = new Hono();
  const domain = new URL(config.publicOrigin).hostname;

  // §3.1: every response serving a discovery or operator document, and every
  // host-endpoint response, carries SchCP-Version.
  app.use("*", async (c, next) => {
    await next();
    c.header("SchCP-Version", SCHCP_VERSION);
  });

  app.get("/.well-known/scheduling.json", (c) =>
    c.json({
      schcp: SCHCP_VERSION,
      operator: { name: config.operatorName, domain },
      hosts: config.hosts,
    }),
  );

  app.get("/healthz", (c) => c.json({ ok: true }));

  app.notFound((c) => {
    const { status, body } = refusal("NOT_FOUND", { message: `no route for ${c.req.method} ${c.req.path}` });
    return c.json(body, status as 404);
  });

  return app;
}
