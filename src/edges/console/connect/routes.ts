/**
 * The Connect routes, as a Hono sub-app the gateway mounts (the lead wires it; the console
 * provides the real operator sessions):
 *
 *   GET /connect/{provider}/start?host=ID   302 to the provider's authorization page
 *   GET /connect/{provider}/callback        finishes the grant, then 303 to the draft's setup page,
 *                                           or to "/" (the console) with "Connected …"
 *   GET  /connect/{source}/disconnect?host=ID   "Disconnect X?" with a POST button
 *   POST /connect/{source}/disconnect?host=ID   disconnect.ts, then 303 to "/" with the outcome
 *                                               as the console's flash message
 *
 * {source} is square, google, microsoft or caldav. The POST is a console form: same origin
 * (Sec-Fetch-Site / Origin, as the console checks) and the session's CSRF token, compared in
 * constant time (console/sessions.ts secretsMatch); anything else is refused with 403 and
 * changes nothing.
 *
 * All sit behind `requireOperator` (any live console session: the operator or a business owner);
 * `sessionOf` names the session the state is bound to, so a callback is accepted only in the
 * browser session that started it. With `access` (wiring.ts hostAccess), a viewer starts or
 * disconnects only a host they may manage; another's is answered as an unknown one. A failed
 * callback answers 400 with the owner-facing message (it names no token, code or secret).
 * Every page is in the console's layout (src/edges/http/layout.ts), with its banner and navigation.
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { escapeHtml, htmlResponse, page as layoutPage } from "../../http/layout.js";
import { secretsMatch, viewerOf, type Sessions } from "../sessions.js";
import { consoleHeader, publicHeader } from "../pages.js";
import type { ConsoleViewer } from "../managed-hosts.js";
import { OAUTH_PROVIDERS, type OAuthProvider } from "../../../gateway/credentials/record.js";
import { readBoundedBody } from "../../http/body.js";
import {
  DISCONNECT_SOURCES,
  type Disconnect,
  type DisconnectSource,
  type DisconnectTarget,
} from "./disconnect.js";
import type { Connect, ConnectFailure } from "./flow.js";
import type { HostAccess } from "./wiring.js";

export interface ConnectRoutesOptions {
  /** Absent: no OAuth client here, so no start/callback routes (disconnect may still be served). */
  readonly connect?: Connect;
  /** The operator session id of a request, or undefined when there is none. */
  readonly sessionOf: (request: Request) => string | undefined | Promise<string | undefined>;
  readonly requireOperator: MiddlewareHandler;
  /** Per-host checks for the signed-in viewer, and what follows a grant; absent: any host, back to "/". */
  readonly access?: {
    readonly viewerOf: (request: Request) => Promise<ConsoleViewer | undefined>;
    readonly hosts: HostAccess;
    /** Where "Connected …" is said (the console's flash). */
    readonly sessions: Sessions;
  };
  /** Disconnect (GET/POST /connect/{source}/disconnect); absent: no such route. */
  readonly disconnect?: DisconnectRoutesOptions;
}

interface DisconnectRoutesOptions {
  readonly disconnect: Disconnect;
  /** The console's sessions: the form carries the session's CSRF token; the outcome is its flash. */
  readonly sessions: Sessions;
  /** The gateway's public origin (a form's Origin must be it, or the request's own). */
  readonly publicOrigin: string;
}

const isProvider = (v: string): v is OAuthProvider => (OAUTH_PROVIDERS as readonly string[]).includes(v);

function failurePage(f: ConnectFailure, header: string): string {
  return layoutPage(
    "Connection not completed",
    `<h1>Connection not completed</h1><p class="flash error" role="alert">${escapeHtml(f.message)}</p><p><a href="/">Back to the console</a></p>`,
    { header },
  );
}

/** The console's banner for the request's session (the guard has let it through), else its name only. */
async function bannerOf(opts: ConnectRoutesOptions, request: Request): Promise<string> {
  const sessions = opts.access?.sessions ?? opts.disconnect?.sessions;
  const session = sessions === undefined ? undefined : await sessions.use(await opts.sessionOf(request));
  return session === undefined ? publicHeader() : consoleHeader(session.csrf, viewerOf(session));
}

const INVALID_HOST: ConnectFailure = {
  kind: "invalid_host",
  message: "There is no such host here to connect, or it is not yours to manage.",
};

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

  if (opts.connect !== undefined) mountConnect(app, opts, opts.connect);
  if (opts.disconnect !== undefined) mountDisconnect(app, opts, opts.disconnect);
  return app;
}

function mountConnect(app: Hono, opts: ConnectRoutesOptions, connect: Connect): void {
  const access = opts.access;
  app.get("/connect/:provider/start", async (c) => {
    const provider = c.req.param("provider");
    if (!isProvider(provider)) return c.notFound();
    const sessionId = await opts.sessionOf(c.req.raw);
    if (sessionId === undefined) return c.text("Sign in to the console first.", 401);
    const hostId = c.req.query("host") ?? "";
    if (access !== undefined) {
      const viewer = await access.viewerOf(c.req.raw);
      if (viewer === undefined || !(await access.hosts.mayConnect(viewer, provider, hostId)))
        return htmlResponse(STATUS.invalid_host, failurePage(INVALID_HOST, await bannerOf(opts, c.req.raw)));
    }
    const started = await connect.startConnect({ provider, hostId, sessionId });
    if (!started.ok)
      return htmlResponse(
        STATUS[started.error.kind],
        failurePage(started.error, await bannerOf(opts, c.req.raw)),
      );
    c.header("cache-control", "no-store");
    return c.redirect(started.value.href, 302);
  });

  app.get("/connect/:provider/callback", async (c) => {
    const provider = c.req.param("provider");
    if (!isProvider(provider)) return c.notFound();
    const sessionId = await opts.sessionOf(c.req.raw);
    if (sessionId === undefined) return c.text("Sign in to the console first.", 401);
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    const done = await connect.finishConnect(provider, c.req.url, sessionId);
    if (!done.ok)
      return htmlResponse(STATUS[done.error.kind], failurePage(done.error, await bannerOf(opts, c.req.raw)));
    if (access === undefined) return c.redirect("/", 303);
    const next = await access.hosts.connected(done.value);
    if (next.flash !== undefined) {
      const session = await access.sessions.use(sessionId);
      if (session !== undefined) await access.sessions.flash(sessionId, session, { text: next.flash });
    }
    return c.redirect(next.location, 303);
  });
}

const isSource = (v: string): v is DisconnectSource => (DISCONNECT_SOURCES as readonly string[]).includes(v);

const SOURCE_NAMES: Record<DisconnectSource, string> = {
  square: "Square",
  google: "Google",
  microsoft: "Microsoft",
  caldav: "CalDAV",
};

/** A disconnect form is a CSRF token: a few hundred bytes. */
const MAX_FORM_BYTES = 4096;

const page = (title: string, body: string, header: string): string => layoutPage(title, body, { header });

function confirmPage(t: DisconnectTarget, csrf: string, action: string, header: string): string {
  const name = escapeHtml(t.name);
  const what =
    t.source === "caldav"
      ? "This deletes the CalDAV password the gateway keeps for it"
      : t.source === "microsoft"
        ? "This deletes the Microsoft grant the gateway keeps for it (Microsoft lets no app revoke its own access: you will be told where to remove it)"
        : `This revokes the gateway's ${SOURCE_NAMES[t.source]} access and deletes its grant`;
  return page(
    `Disconnect ${t.name}?`,
    `<h1>Disconnect ${name}?</h1>
<p>${what}, and ${name} stops offering time until it is connected again.</p>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<div class="actions"><button class="danger" type="submit">Disconnect ${name}</button><a href="/">Cancel</a></div></form>`,
    header,
  );
}

function mountDisconnect(app: Hono, opts: ConnectRoutesOptions, d: DisconnectRoutesOptions): void {
  const refused = (_c: Context, text: string) =>
    htmlResponse(
      403,
      page(
        "Request refused",
        `<h1>Request refused</h1><p role="alert">${escapeHtml(text)}</p><p><a href="/">Back to the console</a></p>`,
        publicHeader(),
      ),
    );

  /** The host the path names, when it is one this gateway can disconnect from that source. */
  const targetOf = async (c: Context): Promise<DisconnectTarget | undefined> => {
    const source = c.req.param("source") ?? "";
    const hostId = c.req.query("host") ?? "";
    if (!isSource(source) || hostId === "") return undefined;
    if (opts.access !== undefined) {
      const viewer = await opts.access.viewerOf(c.req.raw);
      if (viewer === undefined || !(await opts.access.hosts.mayDisconnect(viewer, hostId))) return undefined;
    }
    const t = await d.disconnect.target(hostId);
    return t?.source === source ? t : undefined;
  };
  const notFound = async (c: Context) =>
    htmlResponse(
      404,
      page(
        "Nothing to disconnect",
        `<h1>Nothing to disconnect</h1><p role="alert">No host here keeps those credentials in the gateway, or it is not yours to manage.</p><p><a href="/">Back to the console</a></p>`,
        await bannerOf(opts, c.req.raw),
      ),
    );

  /** Sent from a page of this origin (a browser says so; a missing header is not proof of the opposite). */
  const sameOrigin = (c: Context): boolean => {
    const site = c.req.header("sec-fetch-site");
    if (site !== undefined && site !== "same-origin") return false;
    const origin = c.req.header("origin");
    if (origin === undefined) return true;
    return origin === d.publicOrigin || origin === new URL(c.req.url).origin;
  };

  app.get("/connect/:source/disconnect", async (c) => {
    const id = await opts.sessionOf(c.req.raw);
    const session = await d.sessions.use(id);
    if (session === undefined) return c.redirect("/", 303);
    const t = await targetOf(c);
    if (t === undefined) return notFound(c);
    c.header("cache-control", "no-store");
    const url = new URL(c.req.url);
    // Its form posts here: under no-referrer a browser sends `Origin: null`, which sameOrigin refuses.
    return htmlResponse(
      200,
      confirmPage(
        t,
        session.csrf,
        `${url.pathname}${url.search}`,
        consoleHeader(session.csrf, viewerOf(session)),
      ),
      {
        "referrer-policy": "same-origin",
      },
    );
  });

  app.post("/connect/:source/disconnect", async (c) => {
    if (!sameOrigin(c)) return refused(c, "This form was not sent from the console's own pages.");
    const id = await opts.sessionOf(c.req.raw);
    const session = await d.sessions.use(id);
    if (id === undefined || session === undefined)
      return refused(c, "Your console session has ended. Sign in again.");
    const bytes = await readBoundedBody(c.req.raw, MAX_FORM_BYTES, c.env);
    const form = bytes.ok ? new URLSearchParams(new TextDecoder().decode(bytes.value)) : undefined;
    if (form === undefined || !secretsMatch(form.get("csrf") ?? undefined, session.csrf))
      return refused(c, "This form has expired or was not issued by the console. Reload the page.");
    const t = await targetOf(c);
    if (t === undefined) return notFound(c);
    const done = await d.disconnect.disconnectHost(t.hostId);
    await d.sessions.flash(id, session, {
      text: done.ok ? `${t.name}: ${done.value.message}` : done.error.message,
      ...((!done.ok || done.value.ownerAction) && { error: true }),
    });
    c.header("cache-control", "no-store");
    return c.redirect("/", 303);
  });
}
