/**
 * The operator console, served by the gateway itself:
 *
 *   GET  /                                                  sign-in, or Operate when signed in
 *   POST /console/sign-in                                   the operator credential -> a session
 *   POST /console/sign-out                                  ends the session
 *   POST /console/hosts/{hostId}/bookings/{id}/approve      through the OperatorApi, then back to /
 *   POST /console/hosts/{hostId}/bookings/{id}/decline
 *   GET|POST /console/hosts/{hostId}/bookings/{id}/counter  other terms instead (counter-routes.ts, §5.11)
 *   GET|POST /console/owners, /console/invite/{token}, ...  owner accounts (accounts-routes.ts)
 *   GET  /console/hosts/{hostId}                            the host's week (host-routes.ts)
 *   GET|POST /console/key, /console/hosts/{hostId}/contacts|rules  a person's calendar (people-routes.ts)
 *
 * Sign-in takes the same credential as the operator API (compared in constant time), or a
 * business owner's email and password (accounts.ts), and starts a server-side session
 * (sessions.ts) that remembers who signed in. An owner sees and answers only their own
 * hosts (accounts-access.ts); another owner's host answers 404 as an unknown one would.
 * Every POST is refused with 403 unless it comes from this origin (Sec-Fetch-Site, Origin)
 * and — after sign-in — carries the session's synchronizer token; a GET never changes
 * anything. Failed sign-ins, operator or owner, are limited per network origin, each attempt counted
 * before it is checked (sign-in-limit.ts), and checks run a few at a time (sign-in-gate.ts). The pages are script-free under a strict CSP
 * (src/edges/http/layout.ts), but for the key app's own script on the two pages that sign
 * (people-pages.ts).
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
import type { ConsoleAppDeps } from "./app-deps.js";
import { htmlResponse as layoutResponse } from "../http/layout.js";
import { operateView } from "./operate-view.js";
import type { ConsoleViewer } from "./managed-hosts.js";
import { requireHostAccess } from "./accounts-access.js";
import { mountAccountRoutes } from "./accounts-routes.js";
import { mountA2aKeyRoutes } from "./a2a-key-routes.js";
import { mountHostRoutes } from "./host-routes.js";
import { mountCounterRoutes } from "./counter-routes.js";
import { mountPeopleRoutes } from "./people-routes.js";
import { ownerViewer, type OwnerAccounts } from "./accounts.js";
import { consoleHeader, operatePage, refusedPage, signInPage } from "./pages.js";
import { secretsMatch, viewerOf, type Session, type Sessions } from "./sessions.js";
import { draftsFor, mountSetup } from "./setup-routes.js";
import type { Authorized, ConsoleDeps, ConsoleKit } from "./kit.js";

const SECURE_COOKIE = "__Host-gw_session";
const PLAIN_COOKIE = "gw_session";

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

/** Who a live session belongs to; undefined once an owner's account is disabled (their sessions end with it). */
async function liveViewer(
  accounts: OwnerAccounts | undefined,
  session: Session | undefined,
): Promise<ConsoleViewer | undefined> {
  if (session === undefined) return undefined;
  const viewer = viewerOf(session);
  if (viewer.kind === "operator") return viewer;
  return accounts !== undefined && (await accounts.active(viewer.ownerId)) ? viewer : undefined;
}

/**
 * Who is signed in to the console on a request (undefined: nobody, or the session ended), for
 * routes outside the console (Connect) to filter by mayManage. Restarts the session's idle clock.
 */
export function consoleViewerOf(
  con: { readonly sessions: Sessions; readonly accounts?: OwnerAccounts | undefined },
  publicOrigin: string,
): (request: Request) => Promise<ConsoleViewer | undefined> {
  return async (request) =>
    liveViewer(con.accounts, await con.sessions.use(sessionIdOf(request, publicOrigin)));
}

/**
 * Guards routes outside the console (Connect) with its sessions: no live session → 303 to "/",
 * the sign-in page. Using the session restarts its idle clock, as a console page does. Without
 * `accounts` only the operator passes (an owner's session cannot be checked as still enabled).
 */
export function requireConsoleSession(
  sessions: Sessions,
  publicOrigin: string,
  accounts?: OwnerAccounts,
): MiddlewareHandler {
  const viewerOf = consoleViewerOf({ sessions, accounts }, publicOrigin);
  return async (c, next) => {
    if ((await viewerOf(c.req.raw)) === undefined)
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

export function mountConsole(app: Hono, deps: ConsoleAppDeps, con: ConsoleDeps): void {
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
  const authorized = async (c: Context, maxBytes?: number): Promise<Authorized> => {
    if (!sameOrigin(c))
      return { ok: false, error: forbidden("This form was not sent from the console's own pages.") };
    const id = sessionId(c);
    const session = await con.sessions.use(id);
    const viewer = await liveViewer(con.accounts, session);
    if (id === undefined || session === undefined || viewer === undefined)
      return { ok: false, error: forbidden("Your console session has ended. Sign in again.") };
    const form = await readForm(c, maxBytes);
    if (form === undefined || !secretsMatch(form.get("csrf") ?? undefined, session.csrf))
      return {
        ok: false,
        error: forbidden("This form has expired or was not issued by the console. Reload the page."),
      };
    return { ok: true, value: { id, session, viewer, form } };
  };

  const startSession = async (c: Context, viewer?: ConsoleViewer): Promise<Response> => {
    const previous = sessionId(c);
    if (previous !== undefined) await con.sessions.end(previous);
    const { id } = await con.sessions.create(viewer);
    return home({ "set-cookie": cookie(c, id, Math.floor(con.sessions.policy.absoluteMs / 1000)) });
  };

  const signedIn: ConsoleKit["signedIn"] = async (c) => {
    const id = sessionId(c);
    const session = await con.sessions.use(id);
    const viewer = await liveViewer(con.accounts, session);
    return id === undefined || session === undefined || viewer === undefined
      ? undefined
      : { id, session, viewer };
  };

  mountSetup(app, deps, con, { authorized, signedIn, htmlResponse, sessionId, forbidden });

  app.get("/", async (c) => {
    const s = await signedIn(c);
    if (s === undefined) {
      const ended = sessionId(c) !== undefined;
      return htmlResponse(
        200,
        signInPage(ended ? { error: "Your console session has ended. Sign in again." } : {}),
        ended ? { "set-cookie": clearCookie(c) } : {},
      );
    }
    const { id, session, viewer } = s;
    const view = await operateView(deps, viewer);
    if (session.flash !== undefined) await con.sessions.flash(id, session, undefined);
    return htmlResponse(
      200,
      operatePage(view, session.csrf, session.flash, viewer, await draftsFor(deps, viewer)),
    );
  });

  /** 429 with the sign-in page, saying why and when to try again. */
  const tooMany = (text: string, waitMs: number) =>
    htmlResponse(429, signInPage({ error: text }), {
      "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
    });

  /**
   * The form's credential checked: an owner's email and password, else the operator credential.
   * One answer for an unknown email, a wrong password or a disabled account.
   */
  const check = async (form: URLSearchParams | undefined): Promise<ConsoleViewer | undefined> => {
    const email = form?.get("email");
    if (form !== undefined && email !== null && email !== undefined) {
      const account = await con.accounts.signIn(email, form.get("password") ?? "");
      return account === undefined ? undefined : ownerViewer(account);
    }
    return form !== undefined && secretsMatch(form.get("credential")?.trim(), deps.operatorToken)
      ? { kind: "operator" }
      : undefined;
  };

  app.post("/console/sign-in", async (c) => {
    if (!sameOrigin(c)) return forbidden("This form was not sent from the console's own pages.");
    const who = originKey(c.req.raw.headers, c.env, deps.originRateLimit?.trustForwardedFor === true);
    // Read (bounded in bytes and time) before taking a place at the gate: a slow body holds none.
    const form = await readForm(c);
    // A place at the gate first (sign-in-gate.ts), then the attempt counted before the check
    // (sign-in-limit.ts): a burst gets neither more checks than the limit nor every thread.
    const gated = await con.signInGate.run(who, async () => {
      const waitMs = await con.signInLimiter.attempt(who);
      if (waitMs > 0) return { waitMs };
      const viewer = await check(form);
      if (viewer !== undefined) await con.signInLimiter.succeeded(who);
      return { viewer };
    });
    if (!gated.ok) return tooMany("Sign-in is busy at the moment. Try again in a few seconds.", 2_000);
    const { waitMs, viewer } = gated.value;
    if (waitMs !== undefined)
      return tooMany(
        `Too many wrong credentials from your network. Try again in ${Math.ceil(waitMs / 60_000)} minute(s).`,
        waitMs,
      );
    if (viewer === undefined)
      return htmlResponse(
        401,
        signInPage({
          error:
            (form?.get("email") ?? null) !== null
              ? "That email and password do not match an owner account."
              : "That is not the operator credential.",
        }),
      );
    deps.logger.info("console sign-in", {
      origin: who,
      ...(viewer.kind === "owner" && { owner_id: viewer.ownerId }),
    });
    return startSession(c, viewer.kind === "owner" ? viewer : undefined);
  });

  app.post("/console/sign-out", async (c) => {
    const a = await authorized(c);
    if (!a.ok) return a.error;
    await con.sessions.end(a.value.id);
    return home({ "set-cookie": clearCookie(c) });
  });

  app.post("/console/hosts/:hostId/bookings/:bookingId/:action{approve|decline}", async (c) => {
    const a = await authorized(c);
    if (!a.ok) return a.error;
    const hostId = c.req.param("hostId");
    const bookingId = c.req.param("bookingId");
    const approve = c.req.param("action") === "approve";
    // Another owner's host is refused as an unknown one: nothing is changed, nothing confirmed.
    if (!(await requireHostAccess(deps.managedHosts, a.value.viewer, hostId)))
      return htmlResponse(
        404,
        refusedPage(
          "Not found",
          `No host "${hostId}" is served here.`,
          consoleHeader(a.value.session.csrf, a.value.viewer),
        ),
      );
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
        ...(a.value.viewer.kind === "owner" && { owner_id: a.value.viewer.ownerId }),
      });
    }
    await con.sessions.flash(a.value.id, a.value.session, flash);
    return home();
  });

  // SchCP §5.12: a person's meeting booking is answered on its member page, signed with their
  // own key; a fresh link is made for each visit (the link dies with its first answer).
  app.get("/console/hosts/:hostId/bookings/:bookingId/meeting", async (c) => {
    const s = await signedIn(c);
    if (s === undefined) return home();
    const hostId = c.req.param("hostId");
    const bookingId = c.req.param("bookingId");
    const link =
      (await requireHostAccess(deps.managedHosts, s.viewer, hostId)) && deps.hosts.get(hostId) !== undefined
        ? await deps.approval?.memberLink?.(hostId, bookingId)
        : undefined;
    if (link !== undefined)
      return new Response(null, { status: 303, headers: { location: link, "cache-control": "no-store" } });
    await con.sessions.flash(s.id, s.session, {
      text: `Booking ${bookingId} is no meeting waiting for your answer.`,
      error: true,
    });
    return home();
  });

  const kit: ConsoleKit = {
    html: htmlResponse,
    sameOrigin,
    readForm,
    authorized,
    signedIn,
    redirect: (location) =>
      new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } }),
    forbidden,
    startSession,
  };
  mountAccountRoutes(app, deps, con, kit);
  mountHostRoutes(app, deps, con, kit);
  mountCounterRoutes(app, deps, con, kit);
  mountPeopleRoutes(app, deps, con, kit);
  if (deps.a2aKeys !== undefined) mountA2aKeyRoutes(app, deps, deps.a2aKeys, kit);
}
