/**
 * The operator console (issue #13), served by the gateway itself:
 *
 *   GET  /                                                  sign-in, or Operate when signed in
 *   POST /console/sign-in                                   the operator credential -> a session
 *   POST /console/sign-out                                  ends the session
 *   POST /console/hosts/{hostId}/bookings/{id}/approve      through the OperatorApi, then back to /
 *   POST /console/hosts/{hostId}/bookings/{id}/decline
 *
 * Sign-in takes the same credential as the operator API (compared in constant time) and
 * starts a server-side session (sessions.ts). Every POST is refused with 403 unless it comes
 * from this origin (Sec-Fetch-Site, Origin) and — after sign-in — carries the session's
 * synchronizer token; a GET never changes anything. Failed sign-ins are limited per network
 * origin (sign-in-limit.ts). The pages are script-free under a strict CSP (layout.ts).
 *
 * The cookie: `__Host-gw_session` (Secure, Path=/, no Domain: the browser binds it to this
 * exact origin) whenever the console is reached over https — the request's scheme, or a public
 * origin that is https (TLS ended at a proxy). Browsers refuse a `__Host-` cookie without
 * Secure, and a Secure cookie set over plain http, so the embedded default on
 * http://127.0.0.1 uses `gw_session` with the same HttpOnly, SameSite=Strict and Path=/.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { parse as parseCookies } from "hono/utils/cookie";
import { readBoundedBody } from "../http/body.js";
import { originKey } from "../http/origin-limit.js";
import type { HttpAppDeps } from "../http/types.js";
import { htmlResponse as layoutResponse } from "./layout.js";
import { operateView } from "./operate-view.js";
import { operatePage, refusedPage, signInPage } from "./pages.js";
import { secretsMatch, type Session, type Sessions } from "./sessions.js";
import type { SignInLimiter } from "./sign-in-limit.js";
import { draftsFor, mountSetup } from "./setup-routes.js";
import type { SetupChoices } from "../setup/choices.js";

export interface ConsoleDeps {
  readonly sessions: Sessions;
  readonly signInLimiter: SignInLimiter;
  /** What an upstream offers a host being set up (src/gateway/setup/choices.ts); absent: ids are typed. */
  readonly setupChoices?: SetupChoices;
}

export const SECURE_COOKIE = "__Host-gw_session";
export const PLAIN_COOKIE = "gw_session";

/** `__Host-` whenever the console is reached over https, or its public origin is https. */
const cookieNameFor = (request: Request, publicOrigin: string) =>
  new URL(request.url).protocol === "https:" || publicOrigin.startsWith("https:")
    ? SECURE_COOKIE
    : PLAIN_COOKIE;

/** The console session id a request carries (not checked: Sessions.use says whether it is live). */
export function sessionIdOf(request: Request, publicOrigin: string): string | undefined {
  const name = cookieNameFor(request, publicOrigin);
  return parseCookies(request.headers.get("cookie") ?? "", name)[name];
}

/**
 * Guards routes outside the console (Connect) with its sessions: no live session → 303 to "/",
 * the sign-in page. Using the session restarts its idle clock, as a console page does.
 */
export function requireConsoleSession(sessions: Sessions, publicOrigin: string): MiddlewareHandler {
  return async (c, next) => {
    const session = await sessions.use(sessionIdOf(c.req.raw, publicOrigin));
    if (session === undefined)
      return new Response(null, { status: 303, headers: { location: "/", "cache-control": "no-store" } });
    await next();
  };
}

/** Console forms are a token and a credential: a few hundred bytes. */
const MAX_FORM_BYTES = 4096;

/**
 * The console's pages send their origin with same-origin requests: under no-referrer Chromium
 * sends `Origin: null` with a form POST, which the same-origin check must refuse. No URL here
 * carries a secret, and cross-origin requests still get no referrer.
 */
const htmlResponse = (status: number, body: string, headers: Record<string, string> = {}) =>
  layoutResponse(status, body, { "referrer-policy": "same-origin", ...headers });

export function mountConsole(app: Hono, deps: HttpAppDeps, con: ConsoleDeps): void {
  const cookieName = (c: Context) => cookieNameFor(c.req.raw, deps.publicOrigin);
  const secureFor = (c: Context) => cookieName(c) === SECURE_COOKIE;
  const cookie = (c: Context, value: string, maxAgeSec: number) =>
    `${cookieName(c)}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSec}` +
    (secureFor(c) ? "; Secure" : "");
  const clearCookie = (c: Context) => cookie(c, "", 0);
  const sessionId = (c: Context) => sessionIdOf(c.req.raw, deps.publicOrigin);
  const home = (headers: Record<string, string> = {}) =>
    new Response(null, { status: 303, headers: { location: "/", "cache-control": "no-store", ...headers } });
  const forbidden = (text: string) => htmlResponse(403, refusedPage("Request refused", text));

  /** The request came from a page of this origin (a browser says so; a missing header is not proof of the opposite). */
  const sameOrigin = (c: Context): boolean => {
    const site = c.req.header("sec-fetch-site");
    if (site !== undefined && site !== "same-origin") return false;
    const origin = c.req.header("origin");
    if (origin === undefined) return true;
    return origin === deps.publicOrigin || origin === new URL(c.req.url).origin;
  };

  const readForm = async (c: Context, maxBytes = MAX_FORM_BYTES): Promise<URLSearchParams | undefined> => {
    const bytes = await readBoundedBody(c.req.raw, maxBytes, c.env);
    return bytes.ok ? new URLSearchParams(new TextDecoder().decode(bytes.value)) : undefined;
  };

  /** The session of a state-changing POST, or the 403 that refuses it. */
  const authorized = async (
    c: Context,
    maxBytes?: number,
  ): Promise<
    { ok: true; id: string; session: Session; form: URLSearchParams } | { ok: false; res: Response }
  > => {
    if (!sameOrigin(c))
      return { ok: false, res: forbidden("This form was not sent from the console's own pages.") };
    const id = sessionId(c);
    const session = await con.sessions.use(id);
    if (id === undefined || session === undefined)
      return { ok: false, res: forbidden("Your console session has ended. Sign in again.") };
    const form = await readForm(c, maxBytes);
    if (form === undefined || !secretsMatch(form.get("csrf") ?? undefined, session.csrf))
      return {
        ok: false,
        res: forbidden("This form has expired or was not issued by the console. Reload the page."),
      };
    return { ok: true, id, session, form };
  };

  mountSetup(app, deps, con, { authorized, htmlResponse, sessionId, forbidden });

  app.get("/", async (c) => {
    const id = sessionId(c);
    const session = await con.sessions.use(id);
    if (id === undefined || session === undefined) {
      const ended = id !== undefined;
      return htmlResponse(
        200,
        signInPage(ended ? { error: "Your console session has ended. Sign in again." } : {}),
        ended ? { "set-cookie": clearCookie(c) } : {},
      );
    }
    const view = await operateView(deps);
    if (session.flash !== undefined) await con.sessions.flash(id, session, undefined);
    return htmlResponse(200, operatePage(view, session.csrf, session.flash, await draftsFor(deps, session)));
  });

  app.post("/console/sign-in", async (c) => {
    if (!sameOrigin(c)) return forbidden("This form was not sent from the console's own pages.");
    const who = originKey(c.req.raw.headers, c.env, deps.originRateLimit?.trustForwardedFor === true);
    const waitMs = await con.signInLimiter.blockedFor(who);
    if (waitMs > 0) {
      const minutes = Math.ceil(waitMs / 60_000);
      return htmlResponse(
        429,
        signInPage({
          error: `Too many wrong credentials from your network. Try again in ${minutes} minute(s).`,
        }),
        { "retry-after": String(Math.ceil(waitMs / 1000)) },
      );
    }
    const form = await readForm(c);
    if (form === undefined || !secretsMatch(form.get("credential")?.trim(), deps.operatorToken)) {
      await con.signInLimiter.failed(who);
      return htmlResponse(401, signInPage({ error: "That is not the operator credential." }));
    }
    const previous = sessionId(c);
    if (previous !== undefined) await con.sessions.end(previous);
    const { id } = await con.sessions.create();
    deps.logger.info("console sign-in", { origin: who });
    return home({ "set-cookie": cookie(c, id, Math.floor(con.sessions.policy.absoluteMs / 1000)) });
  });

  app.post("/console/sign-out", async (c) => {
    const a = await authorized(c);
    if (!a.ok) return a.res;
    await con.sessions.end(a.id);
    return home({ "set-cookie": clearCookie(c) });
  });

  app.post("/console/hosts/:hostId/bookings/:bookingId/:action{approve|decline}", async (c) => {
    const a = await authorized(c);
    if (!a.ok) return a.res;
    const hostId = c.req.param("hostId");
    const bookingId = c.req.param("bookingId");
    const approve = c.req.param("action") === "approve";
    const host = deps.hosts.get(hostId);
    let flash: Session["flash"];
    if (host === undefined) flash = { text: `No host "${hostId}" is served here.`, error: true };
    else {
      const done = approve
        ? await deps.api.approve(hostId, bookingId)
        : await deps.api.decline(hostId, bookingId, {});
      flash = done.ok
        ? {
            text: `${approve ? "Approved" : "Declined"}: ${done.value.contract.service.name} at ${host.config.name} (booking ${bookingId}) is now ${done.value.status.replace("_", " ")}.`,
          }
        : {
            text: `Booking ${bookingId} could not be ${approve ? "approved" : "declined"}: ${done.error.message}`,
            error: true,
          };
      deps.logger.info("console booking answer", {
        host_id: hostId,
        booking_id: bookingId,
        action: approve ? "approve" : "decline",
        ok: done.ok,
      });
    }
    await con.sessions.flash(a.id, a.session, flash);
    return home();
  });
}
