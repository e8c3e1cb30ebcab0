/**
 * A stand-in for Google's OAuth 2.0 endpoints for web server applications, in their request and
 * answer shapes ("Using OAuth 2.0 for Web Server Applications",
 * https://developers.google.com/identity/protocols/oauth2/web-server):
 *
 * - GET /o/oauth2/v2/auth (accounts.google.com), step 1 "Set authorization parameters":
 *   client_id, redirect_uri (must match a registered one exactly, else Google shows
 *   "Error 400: redirect_uri_mismatch" and does not redirect), response_type=code, scope,
 *   access_type, prompt, state, code_challenge / code_challenge_method (plain or S256).
 *   A request Google refuses shows its error page; the owner's choice comes back on the
 *   redirect URI as step 4 says: `?state=…&code=…&scope=…` on Allow, `?error=access_denied&state=…`
 *   on Deny.
 * - POST /token (oauth2.googleapis.com), step 5 "Exchange authorization code for refresh and
 *   access tokens": form body code, client_id, client_secret, redirect_uri,
 *   grant_type=authorization_code, code_verifier; answer access_token, expires_in,
 *   refresh_token (only with access_type=offline), scope, token_type "Bearer". "Refreshing an
 *   access token (offline access)": grant_type=refresh_token, no new refresh token. Errors are
 *   RFC 6749 §5.2 JSON (`invalid_grant`, `invalid_client`, `redirect_uri_mismatch`).
 *
 * No id_token: the gateway asks no openid scope, so Google returns none.
 */
import {
  holdForConsent,
  errorPage,
  fields,
  GrantBook,
  randomToken,
  basicCredentials,
  type ClientRegistration,
} from "./grants.js";
import {
  html,
  json,
  redirect,
  startLoopback,
  withQuery,
  type Answer,
  type ReceivedRequest,
} from "./loopback.js";
import type { OAuthStandin } from "./standin.js";

export const GOOGLE_ORIGINS = ["https://accounts.google.com", "https://oauth2.googleapis.com"] as const;

const CONSENT_PATH = "/o/oauth2/v2/consent";

export async function startGoogleStandin(client: ClientRegistration): Promise<OAuthStandin> {
  const book = new GrantBook("4/0A");

  function authorize(r: ReceivedRequest): Answer {
    const q = r.query;
    if (q["client_id"] !== client.clientId)
      return html(401, errorPage("Google", "Error 401: invalid_client", "The OAuth client was not found."));
    if (q["redirect_uri"] === undefined || !client.redirectUris.includes(q["redirect_uri"]))
      return html(
        400,
        errorPage(
          "Google",
          "Error 400: redirect_uri_mismatch",
          "You can't sign in to this app because it doesn't comply with Google's OAuth 2.0 policy.",
        ),
      );
    const problems: string[] = [];
    if (q["response_type"] !== "code") problems.push("response_type must be code");
    if ((q["scope"] ?? "").trim() === "") problems.push("Missing required parameter: scope");
    const method = q["code_challenge_method"];
    if (method !== undefined && method !== "S256" && method !== "plain")
      problems.push("Invalid code_challenge_method");
    if (method !== undefined && q["code_challenge"] === undefined) problems.push("Missing code_challenge");
    if (problems.length > 0)
      return html(400, errorPage("Google", "Error 400: invalid_request", problems.join("; ")));
    return html(
      200,
      holdForConsent(
        book,
        {
          clientId: client.clientId,
          redirectUri: q["redirect_uri"],
          scope: q["scope"]!,
          state: q["state"],
          codeChallenge: q["code_challenge"],
          codeChallengeMethod: method,
          query: q,
        },
        { provider: "Google", action: CONSENT_PATH, scopes: q["scope"]!.split(" ") },
      ),
    );
  }

  function decide(r: ReceivedRequest): Answer {
    const f = fields(r.body);
    const auth = book.release(f["request"] ?? "");
    if (auth === undefined)
      return html(400, errorPage("Google", "Error 400: invalid_request", "This request is no longer valid."));
    if (f["decision"] !== "allow")
      return redirect(withQuery(auth.redirectUri, { error: "access_denied", state: auth.state }));
    return redirect(
      withQuery(auth.redirectUri, {
        state: auth.state,
        code: book.issueCode(auth),
        scope: auth.scope,
        authuser: "0",
        prompt: "consent",
      }),
    );
  }

  const invalidGrant = (description: string) =>
    json(400, { error: "invalid_grant", error_description: description });

  function token(r: ReceivedRequest): Answer {
    const queued = book.tokenFailures.shift();
    if (queued !== undefined) return queued;
    const f = fields(r.body);
    const basic = basicCredentials(r.headers["authorization"]);
    const clientId = basic?.id ?? f["client_id"];
    const secret = basic?.secret ?? f["client_secret"];
    if (clientId !== client.clientId || secret !== client.clientSecret)
      return json(401, { error: "invalid_client", error_description: "Unauthorized" });
    if (f["grant_type"] === "refresh_token") {
      const g = book.byRefreshToken.get(f["refresh_token"] ?? "");
      if (g === undefined) return invalidGrant("Token has been expired or revoked.");
      return json(200, {
        access_token: randomToken("ya29.standin-"),
        expires_in: 3599,
        scope: g.scope,
        token_type: "Bearer",
      });
    }
    if (f["grant_type"] !== "authorization_code")
      return json(400, {
        error: "unsupported_grant_type",
        error_description: `Invalid grant_type: ${f["grant_type"] ?? ""}`,
      });
    const redeemed = book.redeem(f["code"] ?? "", {
      clientId,
      redirectUri: f["redirect_uri"] ?? "",
      codeVerifier: f["code_verifier"],
    });
    if (!redeemed.ok) {
      if (redeemed.refusal === "redirect_mismatch")
        return json(400, { error: "redirect_uri_mismatch", error_description: "Bad Request" });
      if (redeemed.refusal === "verifier_missing") return invalidGrant("Missing code verifier.");
      if (redeemed.refusal === "verifier_mismatch") return invalidGrant("Invalid code verifier.");
      return invalidGrant("Bad Request");
    }
    const { auth } = redeemed;
    // A refresh token only for offline access (web-server guide, "Refresh access tokens (offline access)").
    const offline = auth.query["access_type"] === "offline";
    const g = book.record({
      clientId,
      scope: auth.scope,
      accessToken: randomToken("ya29.standin-"),
      refreshToken: offline ? randomToken("1//standin-") : undefined,
    });
    return json(200, {
      access_token: g.accessToken,
      expires_in: 3599,
      ...(g.refreshToken !== undefined && { refresh_token: g.refreshToken }),
      scope: g.scope,
      token_type: "Bearer",
    });
  }

  const server = await startLoopback((r) => {
    if (r.method === "GET" && r.path === "/o/oauth2/v2/auth") return authorize(r);
    if (r.method === "POST" && r.path === CONSENT_PATH) return decide(r);
    if (r.method === "POST" && r.path === "/token") return token(r);
    return json(404, { error: "not_found" });
  });
  return {
    provider: "google",
    realOrigins: GOOGLE_ORIGINS,
    origin: server.origin,
    received: server.received,
    grants: book.grants,
    failNextToken: (a) => void book.tokenFailures.push(a),
    close: () => server.close(),
  };
}
