/**
 * One refresh_token grant at a provider's token endpoint (RFC 6749 §6), answered as a
 * classified outcome the refresher can act on:
 *   granted    a new access token (and, when the provider rotates it, a new refresh token)
 *   revoked    the grant is gone for good (invalid_grant, or any other 4xx but 408/429):
 *              only the business reconnecting helps
 *   transient  no answer, 408/429 or 5xx, or an answer we could not read: try again later
 *
 * Google and Microsoft speak RFC 6749 (a form-encoded POST, an RFC 6749 §5 answer), so their
 * refresh goes through oauth4webapi, which builds the request and checks the answer.
 * Square's ObtainToken does not: its documented request is a JSON body
 * (`{client_id, client_secret, grant_type: "refresh_token", refresh_token}` with
 * `Content-Type: application/json`), it answers `expires_at` (an ISO instant) rather than
 * `expires_in`, and its errors are Square's own shapes, not `{error: "invalid_grant"}`
 * (developer.squareup.com/reference/square/oauth-api/obtain-token). oauth4webapi sends only
 * form bodies, so that one request is written here over fetch.
 *
 * Microsoft (identity platform v2.0) rotates the refresh token on every use; Google and Square's
 * code flow usually answer without one or with the same one: keep whatever comes back.
 * Nothing here puts a token, a secret or an upstream error description into a message.
 */
import * as oauth from "oauth4webapi";
import { boundedAnswerFetch } from "./bounded-answer.js";
import type { OAuthProvider, TokenRecord } from "./record.js";

export interface OAuthClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

export type RefreshOutcome =
  | {
      readonly kind: "granted";
      readonly accessToken: string;
      readonly refreshToken?: string;
      readonly expiresAt?: number;
      readonly scope?: string;
    }
  /** `error`: the OAuth error code or Square's error code/type, safe to log (never a description). */
  | { readonly kind: "revoked"; readonly status: number; readonly error?: string }
  | { readonly kind: "transient"; readonly status?: number; readonly why: string };

export interface RefreshRequest {
  readonly record: TokenRecord;
  readonly client: OAuthClient;
  readonly fetch: typeof fetch;
  readonly now: number;
  readonly timeoutMs?: number;
  /** Square-Version to pin on Square's ObtainToken (the host's pinned version). */
  readonly squareVersion?: string;
}

/** The issuer each provider's answers name, for oauth4webapi's checks of an id_token. */
const GOOGLE_ISSUER = "https://accounts.google.com";
/** Scopes that make Microsoft answer an id_token; a refresh needs none of them (see below). */
const OIDC_SCOPES = new Set(["openid", "profile", "email"]);

const permanentStatus = (status: number): boolean =>
  status >= 400 && status < 500 && status !== 408 && status !== 429;

export async function refreshGrant(req: RefreshRequest): Promise<RefreshOutcome> {
  const refreshToken = req.record.refreshToken;
  if (refreshToken === undefined) return { kind: "revoked", status: 0, error: "no_refresh_token" };
  // Every answer read under a byte cap and the call's deadline (bounded-answer.ts).
  const bounded = { ...req, fetch: boundedAnswerFetch(req.fetch) };
  return req.record.provider === "square"
    ? refreshSquare(bounded, refreshToken)
    : refreshStandard(bounded, req.record.provider, refreshToken);
}

async function refreshStandard(
  req: RefreshRequest,
  provider: Exclude<OAuthProvider, "square">,
  refreshToken: string,
): Promise<RefreshOutcome> {
  const endpoint = new URL(req.record.tokenEndpoint);
  // oauth4webapi checks an id_token's issuer against `as.issuer`. Google's is fixed. Microsoft's
  // names the user's tenant, which a "common" authority cannot know in advance, so the refresh
  // asks Microsoft for the granted scopes minus the OpenID ones (a subset is allowed on a
  // refresh) and no id_token comes back: the gateway needs only the Graph access token.
  const issuer =
    provider === "google"
      ? GOOGLE_ISSUER
      : `${endpoint.origin}${endpoint.pathname.replace(/\/oauth2\/v2\.0\/token$/, "/v2.0")}`;
  const as: oauth.AuthorizationServer = { issuer, token_endpoint: endpoint.href };
  const client: oauth.Client = { client_id: req.client.clientId };
  const scope =
    provider === "microsoft" && req.record.scope !== undefined
      ? req.record.scope
          .split(/\s+/)
          .filter((s) => s !== "" && !OIDC_SCOPES.has(s))
          .join(" ")
      : undefined;
  let status: number | undefined;
  const seen: typeof fetch = async (input, init) => {
    const answer = await req.fetch(input, init);
    status = answer.status;
    return answer;
  };
  let answer: Response;
  try {
    answer = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(req.client.clientSecret),
      refreshToken,
      {
        [oauth.customFetch]: seen,
        signal: AbortSignal.timeout(req.timeoutMs ?? 10_000),
        ...(scope !== undefined && scope !== "" && { additionalParameters: { scope } }),
      },
    );
  } catch (e) {
    return { kind: "transient", why: `token endpoint unreachable (${errorName(e)})` };
  }
  try {
    const tokens = await oauth.processRefreshTokenResponse(as, client, answer);
    return {
      kind: "granted",
      accessToken: tokens.access_token,
      ...(tokens.refresh_token !== undefined && { refreshToken: tokens.refresh_token }),
      ...(typeof tokens.expires_in === "number" && { expiresAt: req.now + tokens.expires_in * 1000 }),
      ...(typeof tokens.scope === "string" && { scope: tokens.scope }),
    };
  } catch (e) {
    const code = status ?? answer.status;
    if (e instanceof oauth.ResponseBodyError) {
      return permanentStatus(e.status)
        ? { kind: "revoked", status: e.status, error: safeCode(e.error) }
        : { kind: "transient", status: e.status, why: `token endpoint answered ${e.status}` };
    }
    if (e instanceof oauth.WWWAuthenticateChallengeError)
      return { kind: "revoked", status: e.status, error: "invalid_client" };
    if (permanentStatus(code)) return { kind: "revoked", status: code };
    return { kind: "transient", status: code, why: `token endpoint answered ${code} that could not be used` };
  }
}

async function refreshSquare(req: RefreshRequest, refreshToken: string): Promise<RefreshOutcome> {
  let answer: Response;
  let body: unknown;
  try {
    answer = await req.fetch(req.record.tokenEndpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        ...(req.squareVersion !== undefined && { "square-version": req.squareVersion }),
      },
      body: JSON.stringify({
        client_id: req.client.clientId,
        client_secret: req.client.clientSecret,
        grant_type: "refresh_token",
        refresh_token: refreshToken,
      }),
      signal: AbortSignal.timeout(req.timeoutMs ?? 10_000),
      redirect: "error",
    });
    const text = await answer.text();
    body = text.trim() === "" ? undefined : JSON.parse(text);
  } catch (e) {
    return { kind: "transient", why: `token endpoint unreachable or unreadable (${errorName(e)})` };
  }
  const status = answer.status;
  if (status === 200) {
    const b = body as { access_token?: unknown; refresh_token?: unknown; expires_at?: unknown } | undefined;
    if (typeof b?.access_token !== "string" || b.access_token === "")
      return { kind: "transient", status, why: "token endpoint answered 200 without an access_token" };
    const expiresAt = typeof b.expires_at === "string" ? Date.parse(b.expires_at) : NaN;
    return {
      kind: "granted",
      accessToken: b.access_token,
      ...(typeof b.refresh_token === "string" && b.refresh_token !== "" && { refreshToken: b.refresh_token }),
      ...(!Number.isNaN(expiresAt) && { expiresAt }),
    };
  }
  if (permanentStatus(status)) return { kind: "revoked", status, error: squareErrorCode(body) };
  return { kind: "transient", status, why: `token endpoint answered ${status}` };
}

/** Square answers `{errors:[{code}]}` (API v2) or `{type}` (the OAuth endpoints' older shape). */
function squareErrorCode(body: unknown): string | undefined {
  const b = body as { errors?: { code?: unknown }[]; type?: unknown; error?: unknown } | undefined;
  return safeCode(b?.errors?.[0]?.code) ?? safeCode(b?.type) ?? safeCode(b?.error);
}

/** An error code is logged only when it looks like one (no free text that could quote a token). */
function safeCode(v: unknown): string | undefined {
  return typeof v === "string" && /^[A-Za-z0-9._-]{1,64}$/.test(v) ? v : undefined;
}

const errorName = (e: unknown): string => {
  const cause = e instanceof Error ? (e.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return cause.code;
  return e instanceof Error ? e.name : "error";
};
