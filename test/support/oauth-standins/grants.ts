/**
 * What an authorization server remembers between the owner's consent and the code exchange
 * (RFC 6749 §4.1, RFC 7636): the pending authorization request, the codes it issued (single
 * use, short-lived), and the grants it handed out. Shared by the three stand-ins; each speaks
 * its provider's own request and answer shapes around it.
 */
import { createHash, randomBytes } from "node:crypto";
import { esc, type Answer } from "./loopback.js";

/** The gateway's client as registered at the provider (its developer console). */
export interface ClientRegistration {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registered redirect URIs: an authorization request must name one exactly. */
  readonly redirectUris: readonly string[];
}

export interface AuthorizationRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly state: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: string | undefined;
  /** The whole query as received (access_type, prompt, session, …). */
  readonly query: Readonly<Record<string, string>>;
}

export interface IssuedGrant {
  readonly clientId: string;
  readonly scope: string;
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
}

export type RedeemRefusal =
  | "unknown_code"
  | "used_code"
  | "expired_code"
  | "client_mismatch"
  | "redirect_mismatch"
  | "verifier_missing"
  | "verifier_mismatch";

const CODE_TTL_MS = 10 * 60_000;

export const randomToken = (prefix: string): string => `${prefix}${randomBytes(24).toString("base64url")}`;

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export class GrantBook {
  private readonly pending = new Map<string, AuthorizationRequest>();
  private readonly codes = new Map<
    string,
    { auth: AuthorizationRequest; used: boolean; expiresAt: number }
  >();
  /** Every grant handed out by a code exchange, in order. */
  readonly grants: IssuedGrant[] = [];
  /** Refresh token → grant, for the refresh_token grant type. */
  readonly byRefreshToken = new Map<string, IssuedGrant>();
  /** Answers queued by `failNextToken`, played before the token endpoint's own logic. */
  readonly tokenFailures: Answer[] = [];

  constructor(private readonly codePrefix: string) {}

  /** Keeps an authorization request while the consent page is shown; returns its id. */
  hold(auth: AuthorizationRequest): string {
    const id = randomBytes(12).toString("base64url");
    this.pending.set(id, auth);
    return id;
  }

  /** The owner decided: the request is gone either way. */
  release(id: string): AuthorizationRequest | undefined {
    const auth = this.pending.get(id);
    this.pending.delete(id);
    return auth;
  }

  issueCode(auth: AuthorizationRequest): string {
    const code = randomToken(this.codePrefix);
    this.codes.set(code, { auth, used: false, expiresAt: Date.now() + CODE_TTL_MS });
    return code;
  }

  /** RFC 6749 §4.1.3 and RFC 7636 §4.6 checks; a code is spent by its first redemption, good or bad. */
  redeem(
    code: string,
    opts: { clientId: string; redirectUri: string | undefined; codeVerifier: string | undefined },
  ): { ok: true; auth: AuthorizationRequest } | { ok: false; refusal: RedeemRefusal } {
    const entry = this.codes.get(code);
    if (entry === undefined) return { ok: false, refusal: "unknown_code" };
    if (entry.used) return { ok: false, refusal: "used_code" };
    entry.used = true;
    if (entry.expiresAt <= Date.now()) return { ok: false, refusal: "expired_code" };
    const { auth } = entry;
    if (auth.clientId !== opts.clientId) return { ok: false, refusal: "client_mismatch" };
    if (opts.redirectUri !== undefined && opts.redirectUri !== auth.redirectUri)
      return { ok: false, refusal: "redirect_mismatch" };
    if (auth.codeChallenge !== undefined) {
      if (opts.codeVerifier === undefined) return { ok: false, refusal: "verifier_missing" };
      const method = auth.codeChallengeMethod ?? "plain";
      const derived = method === "S256" ? s256(opts.codeVerifier) : opts.codeVerifier;
      if (derived !== auth.codeChallenge) return { ok: false, refusal: "verifier_mismatch" };
    }
    return { ok: true, auth };
  }

  record(grant: IssuedGrant): IssuedGrant {
    this.grants.push(grant);
    if (grant.refreshToken !== undefined) this.byRefreshToken.set(grant.refreshToken, grant);
    return grant;
  }
}

/**
 * The consent screen: a plain HTML form (no script), Allow and Deny posting back to the
 * stand-in. Its look is not the provider's; what matters is that the owner decides here.
 */
export function consentPage(opts: {
  readonly provider: string;
  readonly appName: string;
  readonly scopes: readonly string[];
  readonly action: string;
  readonly requestId: string;
}): string {
  const items = opts.scopes.map((s) => `<li><code>${esc(s)}</code></li>`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(opts.provider)} — grant access</title>
<style>body{font-family:sans-serif;max-width:36rem;margin:2rem auto}button{font-size:1rem;margin-right:1rem;padding:.4rem 1.2rem}</style></head>
<body><main><h1>${esc(opts.appName)} wants to access your ${esc(opts.provider)} account</h1>
<p>Stand-in authorization server for tests. The application asks for:</p><ul>${items}</ul>
<form method="post" action="${esc(opts.action)}"><input type="hidden" name="request" value="${esc(opts.requestId)}">
<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>
</main></body></html>`;
}

/** Keeps the authorization request and answers the consent page that names it (every stand-in's authorize step). */
export function holdForConsent(
  book: GrantBook,
  auth: AuthorizationRequest,
  page: { readonly provider: string; readonly action: string; readonly scopes: readonly string[] },
): string {
  return consentPage({ ...page, appName: "Booking gateway", requestId: book.hold(auth) });
}

export function errorPage(provider: string, title: string, detail: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(provider)} — error</title></head>
<body><main><h1>${esc(title)}</h1><p>${esc(detail)}</p></main></body></html>`;
}

/** Body of a POST as a string record (form or JSON), undefined values dropped. */
export function fields(body: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

/** client_secret_basic (RFC 6749 §2.3.1), when the client sends it. */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+(.+)$/i.exec(header ?? "");
  if (m === null) return undefined;
  const [id, secret] = Buffer.from(m[1]!, "base64").toString("utf8").split(":");
  if (id === undefined || secret === undefined) return undefined;
  return { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
}
