/**
 * The OAuth "Connect" flow: an authorization code grant (RFC 6749 §4.1) with PKCE
 * (RFC 7636, S256) and a single-use `state`, ending with the grant sealed in the TokenVault for
 * the host.
 *
 *   startConnect   → the authorization URL; the state, the verifier, the host and the operator
 *                    session are kept server-side (state-store.ts, 10 minutes)
 *   finishConnect  → the state is taken (deleted as it is read: a replay finds nothing), must be
 *                    unexpired, of this provider and of this operator session; then the code is
 *                    exchanged and the grant stored. Any failure stores nothing.
 *
 * Google and Microsoft speak RFC 6749 at the token endpoint, so oauth4webapi builds the code
 * exchange and checks the answer. Square's ObtainToken takes a JSON body (client_id,
 * client_secret or code_verifier, code, grant_type, redirect_uri), answers `expires_at`
 * instead of `expires_in` and errors in its own shapes (reference "ObtainToken",
 * developer.squareup.com/reference/square/oauth-api/obtain-token); oauth4webapi sends only
 * form bodies, so that request is written here over fetch, like the refresh in
 * src/gateway/credentials/token-endpoints.ts.
 *
 * Operator-facing messages name what happened and what to do; they never carry a token, a
 * secret, a code, a verifier or the provider's free-text error_description.
 */
import * as oauth from "oauth4webapi";
import { HOST_ID_PATTERN } from "../../../booking/hosts/index.js";
import type { Logger } from "../../../protocol/logger.js";
import type { OAuthProvider, TokenRecord } from "../../../gateway/credentials/record.js";
import type { TokenVault } from "../../../gateway/credentials/vault.js";
import { boundedAnswerFetch } from "../../../gateway/credentials/bounded-answer.js";
import type { ResolvedProvider } from "./providers.js";
import { STATE_TTL_MS, type ConnectStateStore } from "./state-store.js";
import { type Clock, systemClock } from "../../../protocol/clock.js";
import type { Err, Result } from "../../../protocol/result.js";

type ConnectFailureKind =
  /** The provider is not configured on this gateway. */
  | "not_configured"
  | "invalid_host"
  /** The owner declined consent (error=access_denied). */
  | "denied"
  /** The provider answered another OAuth error on the redirect. */
  | "provider_error"
  /** No state, an unknown one, or one already used. */
  | "bad_state"
  | "expired_state"
  /** The state was started from another operator session, or for another provider. */
  | "wrong_session"
  /** The token endpoint refused the code or could not be reached. */
  | "exchange_failed"
  | "storage_failed";

export interface ConnectFailure {
  readonly kind: ConnectFailureKind;
  readonly message: string;
  /** The OAuth error code when the provider gave one (safe to show and log). */
  readonly oauthError?: string;
}

export interface ConnectSuccess {
  readonly provider: OAuthProvider;
  readonly hostId: string;
}

export interface ConnectDeps {
  readonly providers: ReadonlyMap<OAuthProvider, ResolvedProvider>;
  readonly states: ConnectStateStore;
  readonly vault: TokenVault;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly logger?: Pick<Logger, "info" | "warn">;
  readonly stateTtlMs?: number;
  readonly timeoutMs?: number;
}

interface StartRequest {
  readonly provider: OAuthProvider;
  readonly hostId: string;
  readonly sessionId: string;
}

const HOST_ID = new RegExp(HOST_ID_PATTERN);
const NAMES: Record<OAuthProvider, string> = { square: "Square", google: "Google", microsoft: "Microsoft" };

const fail = (kind: ConnectFailureKind, message: string, oauthError?: string): Err<ConnectFailure> => ({
  ok: false,
  error: { kind, message, ...(oauthError !== undefined && { oauthError }) },
});

/** An OAuth error code is shown only when it looks like one (RFC 6749 §4.1.2.1 `error`). */
function safeCode(v: unknown): string | undefined {
  return typeof v === "string" && /^[A-Za-z0-9._-]{1,64}$/.test(v) ? v : undefined;
}

export interface Connect {
  /** The provider's authorization URL to send the operator to, or why not. */
  startConnect(req: StartRequest): Promise<Result<URL, ConnectFailure>>;
  finishConnect(
    provider: OAuthProvider,
    callbackUrl: string | URL,
    sessionId: string,
  ): Promise<Result<ConnectSuccess, ConnectFailure>>;
}

export function createConnect(deps: ConnectDeps): Connect {
  const clock = deps.clock ?? systemClock;
  const ttl = deps.stateTtlMs ?? STATE_TTL_MS;
  // The token endpoint's answer is read under a byte cap and the call's deadline.
  const doFetch = boundedAnswerFetch(deps.fetch ?? globalThis.fetch);
  const log = deps.logger;

  async function startConnect(req: StartRequest): Promise<Result<URL, ConnectFailure>> {
    const p = deps.providers.get(req.provider);
    if (p === undefined)
      return fail(
        "not_configured",
        `${NAMES[req.provider] ?? "This provider"} is not configured on this gateway.`,
      );
    if (!HOST_ID.test(req.hostId)) return fail("invalid_host", "That is not a valid host id.");
    const state = oauth.generateRandomState();
    const codeVerifier = p.pkce ? oauth.generateRandomCodeVerifier() : undefined;
    await deps.states.put(
      state,
      {
        provider: p.provider,
        hostId: req.hostId,
        sessionId: req.sessionId,
        ...(codeVerifier !== undefined && { codeVerifier }),
        expiresAt: clock.now() + ttl,
      },
      ttl,
    );
    const url = new URL(p.authorizationEndpoint);
    url.searchParams.set("client_id", p.clientId);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("redirect_uri", p.redirectUri);
    url.searchParams.set("scope", p.scopes.join(" "));
    url.searchParams.set("state", state);
    if (codeVerifier !== undefined) {
      url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
      url.searchParams.set("code_challenge_method", "S256");
    }
    for (const [k, v] of Object.entries(p.extraParams)) url.searchParams.set(k, v);
    log?.info("connect started", { provider: p.provider, hostId: req.hostId });
    return { ok: true, value: url };
  }

  async function finishConnect(
    provider: OAuthProvider,
    callbackUrl: string | URL,
    sessionId: string,
  ): Promise<Result<ConnectSuccess, ConnectFailure>> {
    const p = deps.providers.get(provider);
    if (p === undefined)
      return fail(
        "not_configured",
        `${NAMES[provider] ?? "This provider"} is not configured on this gateway.`,
      );
    const name = NAMES[provider];
    const params = new URL(callbackUrl).searchParams;
    const state = params.get("state");
    const again = `Start connecting ${name} again from the console.`;
    if (state === null || state === "")
      return fail("bad_state", `This ${name} sign-in answer has no state, so it cannot be trusted. ${again}`);
    // Taken before anything else: whatever follows, this state cannot be used a second time.
    const pending = await deps.states.take(state);
    if (pending === undefined)
      return fail("bad_state", `This ${name} sign-in link is unknown or was already used. ${again}`);
    if (pending.expiresAt <= clock.now())
      return fail("expired_state", `This ${name} sign-in took longer than 10 minutes and expired. ${again}`);
    if (pending.sessionId !== sessionId || pending.provider !== provider)
      return fail("wrong_session", `This ${name} sign-in was started from another console session. ${again}`);
    const error = params.get("error");
    if (error !== null) {
      const code = safeCode(error);
      log?.warn("connect refused by the provider", { provider, hostId: pending.hostId, error: code });
      return code === "access_denied"
        ? fail(
            "denied",
            `${name} access was not granted, so nothing was connected. To connect, start again and choose Allow.`,
            code,
          )
        : fail("provider_error", `${name} did not complete the sign-in (${code ?? "error"}). ${again}`, code);
    }
    const code = params.get("code");
    if (code === null || code === "")
      return fail("provider_error", `${name} answered without an authorization code. ${again}`);

    const exchanged =
      provider === "square"
        ? await exchangeSquare(p, code, pending.codeVerifier)
        : await exchangeStandard(p, params, state, pending.codeVerifier);
    if (!exchanged.ok) {
      const refused = exchanged.error;
      log?.warn("connect code exchange failed", {
        provider,
        hostId: pending.hostId,
        ...(refused.code !== undefined && { error: refused.code }),
        ...(refused.status !== undefined && { status: refused.status }),
      });
      const why =
        refused.code === "invalid_grant"
          ? "the sign-in code was refused (it may have expired or been used already)"
          : refused.status === undefined
            ? `${name} could not be reached`
            : `${name} refused the token request (${refused.code ?? refused.status})`;
      return fail(
        "exchange_failed",
        `Connecting ${name} failed: ${why}. Nothing was saved. ${again}`,
        refused.code,
      );
    }
    try {
      await deps.vault.put(pending.hostId, exchanged.value);
    } catch {
      log?.warn("connect could not store the grant", { provider, hostId: pending.hostId });
      return fail("storage_failed", `Connecting ${name} worked but the tokens could not be saved. ${again}`);
    }
    log?.info("connect completed", { provider, hostId: pending.hostId });
    return { ok: true, value: { provider, hostId: pending.hostId } };
  }

  /** The grant, or the token endpoint's status and OAuth error code, when it gave them. */
  type Exchanged = Result<TokenRecord, { status?: number; code?: string }>;

  async function exchangeStandard(
    p: ResolvedProvider,
    params: URLSearchParams,
    state: string,
    codeVerifier: string | undefined,
  ): Promise<Exchanged> {
    const as: oauth.AuthorizationServer = { issuer: p.issuer, token_endpoint: p.tokenEndpoint };
    const client: oauth.Client = { client_id: p.clientId };
    let callback: URLSearchParams;
    try {
      callback = oauth.validateAuthResponse(as, client, params, state);
    } catch (e) {
      const code = e instanceof oauth.AuthorizationResponseError ? safeCode(e.error) : "invalid_response";
      return { ok: false, error: code === undefined ? {} : { code } };
    }
    let status: number | undefined;
    let answer: Response;
    try {
      answer = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(p.clientSecret),
        callback,
        p.redirectUri,
        codeVerifier ?? oauth.nopkce,
        {
          [oauth.customFetch]: async (input, init) => {
            const r = await doFetch(input, init);
            status = r.status;
            return r;
          },
          signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000),
        },
      );
    } catch {
      return { ok: false, error: {} };
    }
    try {
      const t = await oauth.processAuthorizationCodeResponse(as, client, answer);
      return {
        ok: true,
        value: {
          provider: p.provider,
          accessToken: t.access_token,
          ...(t.refresh_token !== undefined && { refreshToken: t.refresh_token }),
          ...(typeof t.expires_in === "number" && { expiresAt: clock.now() + t.expires_in * 1000 }),
          ...(typeof t.scope === "string" && { scope: t.scope }),
          tokenEndpoint: p.tokenEndpoint,
        },
      };
    } catch (e) {
      if (e instanceof oauth.ResponseBodyError) {
        const code = safeCode(e.error);
        return { ok: false, error: { status: e.status, ...(code !== undefined && { code }) } };
      }
      return { ok: false, error: { status: status ?? answer.status, code: "invalid_token_response" } };
    }
  }

  async function exchangeSquare(
    p: ResolvedProvider,
    code: string,
    codeVerifier: string | undefined,
  ): Promise<Exchanged> {
    let answer: Response;
    let body: unknown;
    try {
      answer = await doFetch(p.tokenEndpoint, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        // Square's code flow sends the secret; its PKCE flow sends the verifier instead.
        body: JSON.stringify({
          client_id: p.clientId,
          ...(codeVerifier === undefined
            ? { client_secret: p.clientSecret }
            : { code_verifier: codeVerifier }),
          code,
          grant_type: "authorization_code",
          redirect_uri: p.redirectUri,
        }),
        signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000),
        redirect: "error",
      });
      const text = await answer.text();
      body = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
      return { ok: false, error: {} };
    }
    const b = body as
      | {
          access_token?: unknown;
          refresh_token?: unknown;
          expires_at?: unknown;
          errors?: { code?: unknown }[];
          type?: unknown;
          error?: unknown;
        }
      | undefined;
    if (answer.status !== 200 || typeof b?.access_token !== "string" || b.access_token === "") {
      const code = safeCode(b?.error) ?? safeCode(b?.errors?.[0]?.code) ?? safeCode(b?.type);
      return { ok: false, error: { status: answer.status, ...(code !== undefined && { code }) } };
    }
    const expiresAt = typeof b.expires_at === "string" ? Date.parse(b.expires_at) : NaN;
    return {
      ok: true,
      value: {
        provider: "square",
        accessToken: b.access_token,
        ...(typeof b.refresh_token === "string" &&
          b.refresh_token !== "" && { refreshToken: b.refresh_token }),
        ...(!Number.isNaN(expiresAt) && { expiresAt }),
        tokenEndpoint: p.tokenEndpoint,
      },
    };
  }

  return { startConnect, finishConnect };
}
