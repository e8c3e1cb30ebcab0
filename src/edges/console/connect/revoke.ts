/**
 * Revoking a host's access upstream when its owner disconnects it. One answer per provider, each as documented:
 *
 * - Google ("Using OAuth 2.0 for Web Server Applications", section "Revoking a token",
 *   developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke): POST
 *   https://oauth2.googleapis.com/revoke with the form body `token=<access or refresh token>`.
 *   Revoking the refresh token revokes the whole grant (and the access tokens issued from it),
 *   so the refresh token is sent when there is one. 200 means revoked; 400 `invalid_token` means
 *   the token is already revoked or expired: done all the same.
 * - Square (OAuth API "RevokeToken", developer.squareup.com/reference/square/o-auth/revoke-token):
 *   POST {origin}/oauth2/revoke, header `Authorization: Client <application secret>`, JSON
 *   `{client_id, access_token}`; it revokes every token the seller's account has for this
 *   application, whichever one is given. The origin is the grant's own (production
 *   connect.squareup.com or sandbox connect.squareupsandbox.com, from its token endpoint).
 *   200 `{success: true}` means revoked; a 401 naming the token revoked or expired
 *   (ACCESS_TOKEN_REVOKED, ACCESS_TOKEN_EXPIRED, Square's error codes) means already done.
 * - Microsoft identity platform: there is no endpoint that revokes one application's refresh
 *   token. The documented way to invalidate refresh tokens is Graph `user: revokeSignInSessions`
 *   (learn.microsoft.com/graph/api/user-revokesigninsessions), which "invalidates all the
 *   refresh tokens issued to applications for a user" and signs them out of every app: far too
 *   broad for a booking gateway, and it needs User.RevokeSessions.All / admin consent. So the
 *   grant is only deleted here, and the owner is told to remove the app's consent themselves
 *   (work or school account: My Apps, https://myapps.microsoft.com; personal account:
 *   https://account.live.com/consent/Manage).
 * - CalDAV: an app password cannot be revoked over CalDAV; the stored password is deleted and
 *   the owner told to revoke it at their provider.
 *
 * Endpoints can be overridden (tests point them at loopback fakes). Nothing here puts a token,
 * a secret or an upstream error description into a message or a log field.
 */
import type { OAuthClient } from "../../../gateway/credentials/token-endpoints.js";
import { boundedAnswerFetch } from "../../../gateway/credentials/bounded-answer.js";
import type { TokenRecord } from "../../../gateway/credentials/record.js";
import type { Result } from "../../../protocol/result.js";

const GOOGLE_REVOKE_ENDPOINT = "https://oauth2.googleapis.com/revoke";

/** Where an owner removes the gateway's access by hand, by source. */
export const ACCESS_PAGES = {
  google: "your Google Account's third-party access page (https://myaccount.google.com/connections)",
  square: "your Square Dashboard (Apps, then My apps)",
  microsoft:
    "My Apps (https://myapps.microsoft.com) for a work or school account, or https://account.live.com/consent/Manage for a personal one",
  caldav: "your calendar provider's app passwords page",
} as const;

export type RevokeOutcome =
  /** The provider confirmed the revocation. */
  | { readonly kind: "revoked" }
  /** The provider says the token was already revoked or expired. */
  | { readonly kind: "already_revoked" }
  /** The provider offers no such revocation (Microsoft): the owner removes access by hand. */
  | { readonly kind: "not_supported" }
  /** The revocation could not be done (no answer, a refusal, no client credentials). */
  | { readonly kind: "failed"; readonly status?: number; readonly error?: string; readonly why: string };

export interface RevokeOptions {
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
  /** Google's revocation endpoint (default GOOGLE_REVOKE_ENDPOINT). */
  readonly googleEndpoint?: string;
  /** Square's RevokeToken URL (default: the grant's token endpoint origin + /oauth2/revoke). */
  readonly squareEndpoint?: string;
  /** Square-Version to pin on RevokeToken (the host's pinned version). */
  readonly squareVersion?: string;
}

/** Revokes a grant at its provider. `client` is needed by Square only. */
export async function revokeGrant(
  record: TokenRecord,
  client: OAuthClient | undefined,
  opts: RevokeOptions = {},
): Promise<RevokeOutcome> {
  switch (record.provider) {
    case "google":
      return revokeGoogle(record, opts);
    case "square":
      return client === undefined
        ? { kind: "failed", why: "no Square client credentials to revoke with" }
        : revokeSquare(record, client, opts);
    case "microsoft":
      return { kind: "not_supported" };
  }
}

async function post(
  opts: RevokeOptions,
  url: string,
  init: { headers: Record<string, string>; body: string },
): Promise<Result<{ status: number; body: unknown }, string>> {
  // The revocation endpoint's answer is read under a byte cap and the call's deadline.
  const doFetch = boundedAnswerFetch(opts.fetch ?? globalThis.fetch);
  try {
    const answer = await doFetch(url, {
      method: "POST",
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      redirect: "error",
    });
    const text = await answer.text();
    let body: unknown;
    try {
      body = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { ok: true, value: { status: answer.status, body } };
  } catch (e) {
    return { ok: false, error: `revocation endpoint unreachable (${errorName(e)})` };
  }
}

async function revokeGoogle(record: TokenRecord, opts: RevokeOptions): Promise<RevokeOutcome> {
  const answer = await post(opts, opts.googleEndpoint ?? GOOGLE_REVOKE_ENDPOINT, {
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ token: record.refreshToken ?? record.accessToken }).toString(),
  });
  if (!answer.ok) return { kind: "failed", why: answer.error };
  if (answer.value.status === 200) return { kind: "revoked" };
  const error = safeCode((answer.value.body as { error?: unknown } | undefined)?.error);
  if (answer.value.status === 400 && error === "invalid_token") return { kind: "already_revoked" };
  return {
    kind: "failed",
    status: answer.value.status,
    ...(error !== undefined && { error }),
    why: `Google answered ${answer.value.status}`,
  };
}

const SQUARE_ALREADY = new Set(["ACCESS_TOKEN_REVOKED", "ACCESS_TOKEN_EXPIRED"]);

async function revokeSquare(
  record: TokenRecord,
  client: OAuthClient,
  opts: RevokeOptions,
): Promise<RevokeOutcome> {
  const url = opts.squareEndpoint ?? `${new URL(record.tokenEndpoint).origin}/oauth2/revoke`;
  const answer = await post(opts, url, {
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      authorization: `Client ${client.clientSecret}`,
      ...(opts.squareVersion !== undefined && { "square-version": opts.squareVersion }),
    },
    body: JSON.stringify({ client_id: client.clientId, access_token: record.accessToken }),
  });
  if (!answer.ok) return { kind: "failed", why: answer.error };
  const body = answer.value.body as
    { success?: unknown; errors?: { code?: unknown }[]; type?: unknown } | undefined;
  if (answer.value.status === 200 && body?.success === true) return { kind: "revoked" };
  const error = safeCode(body?.errors?.[0]?.code) ?? safeCode(body?.type);
  if (error !== undefined && SQUARE_ALREADY.has(error)) return { kind: "already_revoked" };
  return {
    kind: "failed",
    status: answer.value.status,
    ...(error !== undefined && { error }),
    why: `Square answered ${answer.value.status}`,
  };
}

/** An error code is kept only when it looks like one (no free text that could quote a token). */
function safeCode(v: unknown): string | undefined {
  return typeof v === "string" && /^[A-Za-z0-9._-]{1,64}$/.test(v) ? v : undefined;
}

const errorName = (e: unknown): string => {
  const cause = e instanceof Error ? (e.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return cause.code;
  return e instanceof Error ? e.name : "error";
};
