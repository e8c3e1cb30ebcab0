/**
 * A host's OAuth grant as the gateway keeps it. Plaintext only in memory: the
 * vault seals it before any store sees it (vault.ts).
 *
 * `tokenEndpoint` travels with the record, not with the host's settings, because it is part of
 * the grant: a Square grant is sandbox or production, a Microsoft grant belongs to one tenant's
 * authority, and a refresh must go where the grant was issued.
 */
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";

export const OAUTH_PROVIDERS = ["square", "google", "microsoft"] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

export interface TokenRecord {
  readonly provider: OAuthProvider;
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** When the access token expires (epoch ms); absent: only a 401 tells. */
  readonly expiresAt?: number;
  /** Space-separated scopes granted (sent back on Microsoft refreshes). */
  readonly scope?: string;
  /** The provider's token endpoint this grant refreshes at (token-endpoints.ts checks it). */
  readonly tokenEndpoint: string;
}

/** The token endpoints the gateway refreshes at, by provider (Microsoft: per tenant). */
export const DEFAULT_TOKEN_ENDPOINTS: Readonly<Record<OAuthProvider, string>> = {
  square: "https://connect.squareup.com/oauth2/token",
  google: "https://oauth2.googleapis.com/token",
  microsoft: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
};

const isProvider = (v: unknown): v is OAuthProvider =>
  typeof v === "string" && (OAUTH_PROVIDERS as readonly string[]).includes(v);

/**
 * A record from outside (the CLI's JSON file, a stored plaintext after decryption). The
 * messages name fields, never their values: a value here may be a token.
 * `expiresAt` may be epoch ms or an ISO 8601 instant (what Square's `expires_at` is).
 */
export function parseTokenRecord(raw: unknown): Result<TokenRecord, string> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return err("a token record is a JSON object");
  const r = raw as Record<string, unknown>;
  const known = new Set(["provider", "accessToken", "refreshToken", "expiresAt", "scope", "tokenEndpoint"]);
  const extra = Object.keys(r).filter((k) => !known.has(k));
  if (extra.length > 0) return err(`unknown member(s): ${extra.join(", ")}`);
  if (!isProvider(r["provider"])) return err(`provider must be one of ${OAUTH_PROVIDERS.join(", ")}`);
  const provider = r["provider"];
  if (typeof r["accessToken"] !== "string" || r["accessToken"] === "")
    return err("accessToken must be a non-empty string");
  if (r["refreshToken"] !== undefined && (typeof r["refreshToken"] !== "string" || r["refreshToken"] === ""))
    return err("refreshToken must be a non-empty string when given");
  if (r["scope"] !== undefined && typeof r["scope"] !== "string") return err("scope must be a string");
  let expiresAt: number | undefined;
  const e = r["expiresAt"];
  if (typeof e === "number" && Number.isFinite(e)) expiresAt = e;
  else if (typeof e === "string" && !Number.isNaN(Date.parse(e))) expiresAt = Date.parse(e);
  else if (e !== undefined) return err("expiresAt must be epoch milliseconds or an ISO 8601 instant");
  const endpoint = r["tokenEndpoint"] ?? DEFAULT_TOKEN_ENDPOINTS[provider];
  if (typeof endpoint !== "string") return err("tokenEndpoint must be a URL");
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return err("tokenEndpoint must be a URL");
  }
  if (url.protocol !== "https:") return err("tokenEndpoint must be an https URL");
  return ok({
    provider,
    accessToken: r["accessToken"],
    ...(typeof r["refreshToken"] === "string" && { refreshToken: r["refreshToken"] }),
    ...(expiresAt !== undefined && { expiresAt }),
    ...(typeof r["scope"] === "string" && { scope: r["scope"] }),
    tokenEndpoint: url.href,
  });
}

/**
 * HTTP Basic credentials of a CalDAV host (RFC 7617), sealed like a token record but kept apart
 * from them (connect/basic-vault.ts, its own store namespace): a TokenVault never meets one, so
 * its records, its refresher and rotate() are unchanged.
 */
export interface BasicCredentialRecord {
  readonly kind: "basic";
  readonly serverUrl: string;
  readonly username: string;
  readonly password: string;
}

export function parseBasicCredentialRecord(raw: unknown): Result<BasicCredentialRecord, string> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return err("a credential record is a JSON object");
  const r = raw as Record<string, unknown>;
  const extra = Object.keys(r).filter((k) => !["kind", "serverUrl", "username", "password"].includes(k));
  if (extra.length > 0) return err(`unknown member(s): ${extra.join(", ")}`);
  if (r["kind"] !== "basic") return err('kind must be "basic"');
  if (typeof r["serverUrl"] !== "string" || r["serverUrl"] === "") return err("serverUrl must be a URL");
  if (typeof r["username"] !== "string" || r["username"] === "" || r["username"].includes(":"))
    return err("username must be a non-empty string without ':'");
  if (typeof r["password"] !== "string") return err("password must be a string");
  return ok({ kind: "basic", serverUrl: r["serverUrl"], username: r["username"], password: r["password"] });
}
