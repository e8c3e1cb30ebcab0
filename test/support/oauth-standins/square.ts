/**
 * A stand-in for Square's OAuth API, in its request and answer shapes:
 *
 * - GET /oauth2/authorize (reference "Authorize",
 *   https://developer.squareup.com/reference/square/o-auth-api/authorize, and "Create the
 *   Square authorization URL", https://developer.squareup.com/docs/oauth-api/create-urls-for-square-authorization):
 *   client_id, scope (space-separated permissions), session, state, locale, redirect_uri
 *   (optional; when given it must be the one in the Developer Console), code_challenge for the
 *   PKCE flow only. Allow → `redirect_uri?code=…&response_type=code&state=…`; Deny →
 *   `?error=access_denied&error_description=user_denied&state=…`.
 * - POST /oauth2/token (reference "ObtainToken",
 *   https://developer.squareup.com/reference/square/oauth-api/obtain-token): JSON client_id,
 *   client_secret (code flow) or code_verifier (PKCE flow), code, grant_type, redirect_uri;
 *   answer ObtainTokenResponse access_token, token_type "bearer", expires_at (ISO 8601, 30
 *   days), merchant_id, refresh_token, short_lived. A refused code answers in the
 *   `{message, type}` shape Square's OAuth endpoints use (fixtures/square/SOURCES.md).
 */
import {
  holdForConsent,
  errorPage,
  fields,
  GrantBook,
  randomToken,
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

export const SQUARE_ORIGINS = ["https://connect.squareup.com"] as const;
export const SQUARE_SANDBOX_ORIGINS = ["https://connect.squareupsandbox.com"] as const;

const CONSENT_PATH = "/oauth2/consent";

export async function startSquareStandin(
  client: ClientRegistration & {
    readonly merchantId?: string;
    readonly sandbox?: boolean;
    /** Issue this access token (e.g. the one test/e2e/support/fake-square.ts accepts), not a random one. */
    readonly fixedAccessToken?: string;
    /** Square's API shares this origin: every non-OAuth request goes here (square-api.ts). */
    readonly api?: (r: ReceivedRequest) => Answer | Promise<Answer>;
  },
): Promise<OAuthStandin> {
  const book = new GrantBook("sq0cgp-");
  const merchantId = client.merchantId ?? "MLSTANDIN0MERCHANT";
  const accessToken = () => client.fixedAccessToken ?? randomToken("EAAAl-standin-");
  const notAuthorized = (message: string) => json(401, { message, type: "service.not_authorized" });

  function authorize(r: ReceivedRequest): Answer {
    const q = r.query;
    if (q["client_id"] !== client.clientId)
      return html(
        400,
        errorPage("Square", "Invalid application", "The client_id is not a Square application."),
      );
    const redirectUri = q["redirect_uri"] ?? client.redirectUris[0]!;
    if (!client.redirectUris.includes(redirectUri))
      return html(
        400,
        errorPage(
          "Square",
          "Invalid redirect URL",
          "The redirect_uri does not match the application's Redirect URL.",
        ),
      );
    if ((q["scope"] ?? "").trim() === "")
      return html(400, errorPage("Square", "Invalid request", "scope is required."));
    return html(
      200,
      holdForConsent(
        book,
        {
          clientId: client.clientId,
          redirectUri,
          scope: q["scope"]!,
          state: q["state"],
          codeChallenge: q["code_challenge"],
          // Square's PKCE flow is S256 only ("Use PKCE", developer.squareup.com/docs/oauth-api/overview).
          codeChallengeMethod: q["code_challenge"] === undefined ? undefined : "S256",
          query: q,
        },
        { provider: "Square", action: CONSENT_PATH, scopes: q["scope"]!.split(/[ +]/) },
      ),
    );
  }

  function decide(r: ReceivedRequest): Answer {
    const f = fields(r.body);
    const auth = book.release(f["request"] ?? "");
    if (auth === undefined)
      return html(400, errorPage("Square", "Invalid request", "This request is no longer valid."));
    if (f["decision"] !== "allow")
      return redirect(
        withQuery(auth.redirectUri, {
          error: "access_denied",
          error_description: "user_denied",
          state: auth.state,
        }),
      );
    return redirect(
      withQuery(auth.redirectUri, { code: book.issueCode(auth), response_type: "code", state: auth.state }),
    );
  }

  function token(r: ReceivedRequest): Answer {
    const queued = book.tokenFailures.shift();
    if (queued !== undefined) return queued;
    if (!(r.headers["content-type"] ?? "").startsWith("application/json"))
      return json(400, {
        errors: [
          {
            category: "INVALID_REQUEST_ERROR",
            code: "INVALID_CONTENT_TYPE",
            detail: "Content-Type must be application/json",
          },
        ],
      });
    const f = fields(r.body);
    if (f["client_id"] !== client.clientId) return notAuthorized("Not Authorized");
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString().replace(/\.\d+Z$/, "Z");
    if (f["grant_type"] === "refresh_token") {
      const g = book.byRefreshToken.get(f["refresh_token"] ?? "");
      if (g === undefined || f["client_secret"] !== client.clientSecret)
        return notAuthorized("Invalid refresh token");
      // Code flow: the same refresh token comes back (fixtures/square/SOURCES.md).
      return json(200, {
        access_token: accessToken(),
        token_type: "bearer",
        expires_at: expiresAt,
        merchant_id: merchantId,
        refresh_token: g.refreshToken,
        short_lived: false,
      });
    }
    if (f["grant_type"] !== "authorization_code") return notAuthorized("Invalid grant_type");
    // The code flow authenticates with the secret; the PKCE flow has the verifier instead.
    const pkce = f["code_verifier"] !== undefined;
    if (!pkce && f["client_secret"] !== client.clientSecret) return notAuthorized("Not Authorized");
    const redeemed = book.redeem(f["code"] ?? "", {
      clientId: f["client_id"],
      redirectUri: f["redirect_uri"],
      codeVerifier: f["code_verifier"],
    });
    if (!redeemed.ok)
      return notAuthorized(
        redeemed.refusal === "used_code"
          ? "Authorization code is already claimed"
          : "Invalid authorization code",
      );
    const g = book.record({
      clientId: f["client_id"],
      scope: redeemed.auth.scope,
      accessToken: accessToken(),
      refreshToken: randomToken("EQAAl-standin-"),
    });
    return json(200, {
      access_token: g.accessToken,
      token_type: "bearer",
      expires_at: expiresAt,
      merchant_id: merchantId,
      refresh_token: g.refreshToken,
      short_lived: false,
      ...(pkce && {
        refresh_token_expires_at: new Date(Date.now() + 90 * 86_400_000)
          .toISOString()
          .replace(/\.\d+Z$/, "Z"),
      }),
    });
  }

  const server = await startLoopback((r) => {
    if (r.method === "GET" && r.path === "/oauth2/authorize") return authorize(r);
    if (r.method === "POST" && r.path === CONSENT_PATH) return decide(r);
    if (r.method === "POST" && r.path === "/oauth2/token") return token(r);
    if (client.api !== undefined) return client.api(r);
    return json(404, {
      errors: [{ category: "INVALID_REQUEST_ERROR", code: "NOT_FOUND", detail: "Not found" }],
    });
  });
  return {
    provider: "square",
    realOrigins: client.sandbox === true ? SQUARE_SANDBOX_ORIGINS : SQUARE_ORIGINS,
    origin: server.origin,
    received: server.received,
    grants: book.grants,
    failNextToken: (a) => void book.tokenFailures.push(a),
    close: () => server.close(),
  };
}
