/**
 * The Connect routes, as a Hono sub-app the gateway mounts (the lead wires it; the console
 * provides the real operator sessions):
 *
 *   GET /connect/{provider}/start?host=ID   302 to the provider's authorization page
 *   GET /connect/{provider}/callback        finishes the grant, then 303 to "/" (the console)
 *
 * Both sit behind `requireOperator`; `sessionOf` names the operator session the state is bound
 * to, so a callback is accepted only in the browser session that started it. A failed callback
 * answers 400 with the operator-facing message (it names no token, code or secret).
 */
import { Hono, type MiddlewareHandler } from "hono";
import { OAUTH_PROVIDERS, type OAuthProvider } from "../credentials/record.js";
import type { Connect, ConnectFailure } from "./flow.js";

export interface ConnectRoutesOptions {
  readonly connect: Connect;
  /** The operator session id of a request, or undefined when there is none. */
  readonly sessionOf: (request: Request) => string | undefined | Promise<string | undefined>;
  readonly requireOperator: MiddlewareHandler;
}

const isProvider = (v: string): v is OAuthProvider => (OAUTH_PROVIDERS as readonly string[]).includes(v);

const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function failurePage(f: ConnectFailure): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connection not completed</title></head>
<body><main><h1>Connection not completed</h1><p role="alert">${escapeHtml(f.message)}</p><p><a href="/">Back to the console</a></p></main></body></html>`;
}

const STATUS: Record<ConnectFailure["kind"], 400 | 403 | 404 | 500 | 502> = {
  not_configured: 404,
  invalid_host: 400,
  denied: 400,
  provider_error: 400,
  bad_state: 400,
  expired_state: 400,
  wrong_session: 403,
  exchange_failed: 502,
  storage_failed: 500,
};

export function connectRoutes(opts: ConnectRoutesOptions): Hono {
  const app = new Hono();
  app.use("/connect/*", opts.requireOperator);

  app.get("/connect/:provider/start", async (c) => {
    const provider = c.req.param("provider");
    if (!isProvider(provider)) return c.notFound();
    const sessionId = await opts.sessionOf(c.req.raw);
    if (sessionId === undefined) return c.text("Sign in to the console first.", 401);
    const started = await opts.connect.startConnect({
      provider,
      hostId: c.req.query("host") ?? "",
      sessionId,
    });
    if (!started.ok) return c.html(failurePage(started), STATUS[started.kind]);
    c.header("cache-control", "no-store");
    return c.redirect(started.url.href, 302);
  });

  app.get("/connect/:provider/callback", async (c) => {
    const provider = c.req.param("provider");
    if (!isProvider(provider)) return c.notFound();
    const sessionId = await opts.sessionOf(c.req.raw);
    if (sessionId === undefined) return c.text("Sign in to the console first.", 401);
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    const done = await opts.connect.finishConnect(provider, c.req.url, sessionId);
    if (!done.ok) return c.html(failurePage(done), STATUS[done.kind]);
    return c.redirect("/", 303);
  });

  return app;
}
