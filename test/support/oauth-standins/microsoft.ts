/**
 * A stand-in for the Microsoft identity platform v2.0 authorization code flow, in its request
 * and answer shapes ("Microsoft identity platform and OAuth 2.0 authorization code flow",
 * https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow):
 *
 * - GET /{tenant}/oauth2/v2.0/authorize: client_id, response_type=code, redirect_uri (must match
 *   a registered one, else the AADSTS50011 error page, no redirect), scope, state,
 *   code_challenge / code_challenge_method. "Successful response": `?code=…&state=…`;
 *   "Error response": `?error=…&error_description=…&state=…`, `access_denied` when the user
 *   declines (AADSTS65004, "Microsoft Entra authentication and authorization error codes").
 * - POST /{tenant}/oauth2/v2.0/token, "Redeem a code for an access token": form client_id,
 *   scope, code, redirect_uri, grant_type, code_verifier, client_secret; answer token_type
 *   "Bearer", scope, expires_in, ext_expires_in, access_token, refresh_token (with
 *   offline_access only). Errors: error, error_description (AADSTS…), error_codes, timestamp,
 *   trace_id, correlation_id. "Refresh the access token": a new refresh token every time.
 */
import { randomUUID } from "node:crypto";
import {
  basicCredentials,
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

export const MICROSOFT_ORIGINS = ["https://login.microsoftonline.com"] as const;

const AUTHORIZE = /^\/([A-Za-z0-9.-]+)\/oauth2\/v2\.0\/authorize$/;
const TOKEN = /^\/([A-Za-z0-9.-]+)\/oauth2\/v2\.0\/token$/;
const CONSENT = /^\/([A-Za-z0-9.-]+)\/oauth2\/v2\.0\/consent$/;

/** Graph's resource id prefixes bare scopes in what the token endpoint says was granted. */
function grantedScope(requested: string): string {
  return requested
    .split(" ")
    .filter((s) => s !== "" && s !== "offline_access" && s !== "openid" && s !== "profile")
    .map((s) => (s.includes("://") ? s : `https://graph.microsoft.com/${s}`))
    .join(" ");
}

export async function startMicrosoftStandin(
  client: ClientRegistration & { readonly tenant?: string },
): Promise<OAuthStandin> {
  const book = new GrantBook("M.C5");
  const tenantOk = (t: string) => t === (client.tenant ?? t) || t === "common";

  const aadError = (status: number, error: string, code: number, text: string): Answer =>
    json(status, {
      error,
      error_description: `AADSTS${code}: ${text}`,
      error_codes: [code],
      timestamp: new Date()
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, "Z"),
      trace_id: randomUUID(),
      correlation_id: randomUUID(),
    });

  function authorize(r: ReceivedRequest, tenant: string): Answer {
    const q = r.query;
    if (!tenantOk(tenant))
      return html(400, errorPage("Microsoft", "AADSTS90002", `Tenant '${tenant}' not found.`));
    if (q["client_id"] !== client.clientId)
      return html(400, errorPage("Microsoft", "AADSTS700016", "Application was not found in the directory."));
    if (q["redirect_uri"] === undefined || !client.redirectUris.includes(q["redirect_uri"]))
      return html(
        400,
        errorPage(
          "Microsoft",
          "AADSTS50011",
          "The redirect URI specified in the request does not match the redirect URIs configured for the application.",
        ),
      );
    const back = (error: string, description: string) =>
      redirect(withQuery(q["redirect_uri"]!, { error, error_description: description, state: q["state"] }));
    if (q["response_type"] !== "code")
      return back(
        "unsupported_response_type",
        "AADSTS70005: response_type 'token' is not enabled for the application.",
      );
    if ((q["scope"] ?? "").trim() === "")
      return back(
        "invalid_request",
        "AADSTS900144: The request body must contain the following parameter: 'scope'.",
      );
    const method = q["code_challenge_method"];
    if (q["code_challenge"] !== undefined && method !== undefined && method !== "S256" && method !== "plain")
      return back("invalid_request", "AADSTS501491: Invalid code_challenge_method.");
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
        { provider: "Microsoft", action: `/${tenant}/oauth2/v2.0/consent`, scopes: q["scope"]!.split(" ") },
      ),
    );
  }

  function decide(r: ReceivedRequest): Answer {
    const f = fields(r.body);
    const auth = book.release(f["request"] ?? "");
    if (auth === undefined)
      return html(400, errorPage("Microsoft", "AADSTS90014", "This request is no longer valid."));
    if (f["decision"] !== "allow")
      return redirect(
        withQuery(auth.redirectUri, {
          error: "access_denied",
          error_description: "AADSTS65004: User declined to consent to access the app.",
          state: auth.state,
        }),
      );
    return redirect(withQuery(auth.redirectUri, { code: book.issueCode(auth), state: auth.state }));
  }

  function token(r: ReceivedRequest, tenant: string): Answer {
    const queued = book.tokenFailures.shift();
    if (queued !== undefined) return queued;
    if (!tenantOk(tenant)) return aadError(400, "invalid_request", 90002, `Tenant '${tenant}' not found.`);
    const f = fields(r.body);
    const basic = basicCredentials(r.headers["authorization"]);
    const clientId = basic?.id ?? f["client_id"];
    const secret = basic?.secret ?? f["client_secret"];
    if (clientId !== client.clientId)
      return aadError(400, "unauthorized_client", 700016, "Application was not found in the directory.");
    if (secret !== client.clientSecret)
      return aadError(401, "invalid_client", 7000215, "Invalid client secret provided.");
    if (f["grant_type"] === "refresh_token") {
      const g = book.byRefreshToken.get(f["refresh_token"] ?? "");
      if (g === undefined)
        return aadError(
          400,
          "invalid_grant",
          70008,
          "The provided authorization code or refresh token has expired due to inactivity.",
        );
      const next = book.record({
        ...g,
        accessToken: randomToken("eyJ0.standin-"),
        refreshToken: randomToken("M.C5.standin-"),
      });
      return json(200, {
        token_type: "Bearer",
        scope: g.scope,
        expires_in: 3599,
        ext_expires_in: 3599,
        access_token: next.accessToken,
        refresh_token: next.refreshToken,
      });
    }
    if (f["grant_type"] !== "authorization_code")
      return aadError(400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type.");
    const redeemed = book.redeem(f["code"] ?? "", {
      clientId,
      redirectUri: f["redirect_uri"] ?? "",
      codeVerifier: f["code_verifier"],
    });
    if (!redeemed.ok) {
      switch (redeemed.refusal) {
        case "used_code":
          return aadError(
            400,
            "invalid_grant",
            54005,
            "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.",
          );
        case "redirect_mismatch":
          return aadError(
            400,
            "invalid_grant",
            500112,
            "The reply address does not match the reply address provided when requesting Authorization code.",
          );
        case "verifier_missing":
        case "verifier_mismatch":
          return aadError(
            400,
            "invalid_grant",
            501481,
            "The Code_Verifier does not match the code_challenge supplied in the authorization request.",
          );
        case "unknown_code":
        case "expired_code":
        case "client_mismatch":
          return aadError(
            400,
            "invalid_grant",
            70008,
            "The provided authorization code or refresh token has expired due to inactivity.",
          );
      }
    }
    const { auth } = redeemed;
    const offline = auth.scope.split(" ").includes("offline_access");
    const g = book.record({
      clientId,
      scope: grantedScope(auth.scope),
      accessToken: randomToken("eyJ0.standin-"),
      refreshToken: offline ? randomToken("M.C5.standin-") : undefined,
    });
    return json(200, {
      token_type: "Bearer",
      scope: g.scope,
      expires_in: 3599,
      ext_expires_in: 3599,
      access_token: g.accessToken,
      ...(g.refreshToken !== undefined && { refresh_token: g.refreshToken }),
    });
  }

  const server = await startLoopback((r) => {
    let m: RegExpExecArray | null;
    if (r.method === "GET" && (m = AUTHORIZE.exec(r.path)) !== null) return authorize(r, m[1]!);
    if (r.method === "POST" && CONSENT.test(r.path)) return decide(r);
    if (r.method === "POST" && (m = TOKEN.exec(r.path)) !== null) return token(r, m[1]!);
    return json(404, { error: "not_found" });
  });
  return {
    provider: "microsoft",
    realOrigins: MICROSOFT_ORIGINS,
    origin: server.origin,
    received: server.received,
    grants: book.grants,
    failNextToken: (a) => void book.tokenFailures.push(a),
    close: () => server.close(),
  };
}
