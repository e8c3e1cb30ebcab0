/**
 * The OAuth authorization servers a business connects with, and the
 * gateway's client at each, resolved from configuration.
 *
 * Scopes are the least each connector needs:
 * - Square (OAuth Permissions Reference, developer.squareup.com/docs/oauth-api/square-permissions):
 *   SearchAvailability / ListBookings / RetrieveBooking need APPOINTMENTS_READ and, seller-level,
 *   APPOINTMENTS_ALL_READ; CreateBooking / UpdateBooking / CancelBooking APPOINTMENTS_WRITE and
 *   APPOINTMENTS_ALL_WRITE; RetrieveBusinessBookingProfile and ListTeamMemberBookingProfiles
 *   APPOINTMENTS_BUSINESS_SETTINGS_READ; SearchCatalogItems / RetrieveCatalogObject ITEMS_READ;
 *   RetrieveLocation MERCHANT_PROFILE_READ. Square's scope parameter is space-separated
 *   (reference "Authorize", developer.squareup.com/reference/square/o-auth-api/authorize).
 * - Google: calendar.events (events.list/insert/patch/delete/watch) and calendar.readonly
 *   (calendarList, to let the owner pick a calendar); access_type=offline and prompt=consent so
 *   a refresh token comes back every time, even on a reconnection.
 * - Microsoft identity platform v2.0: Calendars.ReadWrite and offline_access (a refresh token).
 *   No openid: the gateway needs no id_token, and a "common" authority could not check its issuer.
 *
 * Square and PKCE: Square documents two flows ("OAuth API Overview",
 * developer.squareup.com/docs/oauth-api/what-it-does): the code flow for confidential clients
 * (client_secret on ObtainToken, refresh tokens that do not expire) and a PKCE flow for public
 * clients (code_verifier instead of the secret; refresh tokens single-use and expiring after 90
 * days, "How OAuth works"). The gateway is a confidential client whose refresher sends the
 * secret, so Square defaults to the code flow; `pkce: true` selects Square's PKCE flow.
 * Google and Microsoft always get PKCE (S256) on top of the client secret.
 *
 * Secrets never sit in the configuration: it names the environment variables that hold them.
 */
import { DEFAULT_TOKEN_ENDPOINTS, type OAuthProvider } from "../../../gateway/credentials/record.js";

interface ProviderSettings {
  /** Environment variable holding the client id. */
  readonly clientIdEnv: string;
  /** Environment variable holding the client secret. */
  readonly clientSecretEnv: string;
}

export interface ConnectSettings {
  /** The gateway's public base URL (https, or http on loopback): redirect URIs hang off it. */
  readonly publicBaseUrl: string;
  readonly square?: ProviderSettings & {
    readonly environment?: "production" | "sandbox";
    readonly pkce?: boolean;
  };
  readonly google?: ProviderSettings;
  /** `tenant`: "common" (default), "organizations", "consumers" or a tenant id / domain. */
  readonly microsoft?: ProviderSettings & { readonly tenant?: string };
}

/** One provider, ready to use: endpoints, scopes and the client's credentials. */
export interface ResolvedProvider {
  readonly provider: OAuthProvider;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /** The issuer oauth4webapi checks answers against (Google, Microsoft). */
  readonly issuer: string;
  readonly scopes: readonly string[];
  /** Extra authorization request parameters (Google's offline access). */
  readonly extraParams: Readonly<Record<string, string>>;
  readonly pkce: boolean;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
}

const SQUARE_SCOPES = [
  "APPOINTMENTS_READ",
  "APPOINTMENTS_ALL_READ",
  "APPOINTMENTS_WRITE",
  "APPOINTMENTS_ALL_WRITE",
  "APPOINTMENTS_BUSINESS_SETTINGS_READ",
  "ITEMS_READ",
  "MERCHANT_PROFILE_READ",
] as const;
const GOOGLE_SCOPES = [
  "https://www.googleapis.com/auth/calendar.events",
  "https://www.googleapis.com/auth/calendar.readonly",
] as const;
const MICROSOFT_SCOPES = ["offline_access", "Calendars.ReadWrite"] as const;

const SQUARE_ORIGINS = {
  production: "https://connect.squareup.com",
  sandbox: "https://connect.squareupsandbox.com",
} as const;

/**
 * Where each provider's consent page lives. A console form whose POST is answered with a
 * redirect there (Add a business → /connect/{p}/start → the provider) needs these in its page's
 * CSP form-action: browsers check form-action against every redirect of a form submission.
 */
export const AUTHORIZATION_ORIGINS: Readonly<Record<OAuthProvider, readonly string[]>> = {
  google: ["https://accounts.google.com"],
  microsoft: ["https://login.microsoftonline.com"],
  square: [SQUARE_ORIGINS.production, SQUARE_ORIGINS.sandbox],
};

const TENANT = /^[A-Za-z0-9.-]{1,100}$/;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

class ConnectConfigError extends Error {
  override readonly name = "ConnectConfigError";
}

function redirectUriFor(publicBaseUrl: string, provider: OAuthProvider): string {
  const base = new URL(publicBaseUrl);
  if (base.protocol !== "https:" && !(base.protocol === "http:" && LOOPBACK.has(base.hostname)))
    throw new ConnectConfigError("publicBaseUrl must use https (plain http only on a loopback address)");
  const path = base.pathname.replace(/\/+$/, "");
  return `${base.origin}${path}/connect/${provider}/callback`;
}

/**
 * The providers the configuration turns on. A provider whose variables are unset is an error
 * naming the variable (never its value), so a half-configured deployment fails at start.
 */
export function resolveProviders(
  settings: ConnectSettings,
  env: Readonly<Record<string, string | undefined>>,
): Map<OAuthProvider, ResolvedProvider> {
  const out = new Map<OAuthProvider, ResolvedProvider>();
  const creds = (provider: OAuthProvider, s: ProviderSettings) => {
    const clientId = env[s.clientIdEnv];
    const clientSecret = env[s.clientSecretEnv];
    if (clientId === undefined || clientId === "")
      throw new ConnectConfigError(
        `${provider}: environment variable ${s.clientIdEnv} (client id) is not set`,
      );
    if (clientSecret === undefined || clientSecret === "")
      throw new ConnectConfigError(
        `${provider}: environment variable ${s.clientSecretEnv} (client secret) is not set`,
      );
    return { clientId, clientSecret, redirectUri: redirectUriFor(settings.publicBaseUrl, provider) };
  };
  if (settings.square !== undefined) {
    const origin = SQUARE_ORIGINS[settings.square.environment ?? "production"];
    out.set("square", {
      provider: "square",
      authorizationEndpoint: `${origin}/oauth2/authorize`,
      tokenEndpoint: `${origin}/oauth2/token`,
      issuer: origin,
      scopes: SQUARE_SCOPES,
      // Square's best practices: in production `session=false`, so the seller signs in to the
      // Square account they mean to connect rather than whichever one the browser has open; the
      // Sandbox supports only true (developer.squareup.com/docs/oauth-api/best-practices).
      extraParams: (settings.square.environment ?? "production") === "production" ? { session: "false" } : {},
      pkce: settings.square.pkce === true,
      ...creds("square", settings.square),
    });
  }
  if (settings.google !== undefined) {
    out.set("google", {
      provider: "google",
      authorizationEndpoint: "https://accounts.google.com/o/oauth2/v2/auth",
      tokenEndpoint: DEFAULT_TOKEN_ENDPOINTS.google,
      issuer: "https://accounts.google.com",
      scopes: GOOGLE_SCOPES,
      extraParams: { access_type: "offline", prompt: "consent" },
      pkce: true,
      ...creds("google", settings.google),
    });
  }
  if (settings.microsoft !== undefined) {
    const tenant = settings.microsoft.tenant ?? "common";
    if (!TENANT.test(tenant)) throw new ConnectConfigError("microsoft: tenant is not a tenant id or domain");
    const authority = `https://login.microsoftonline.com/${tenant}`;
    out.set("microsoft", {
      provider: "microsoft",
      authorizationEndpoint: `${authority}/oauth2/v2.0/authorize`,
      tokenEndpoint: `${authority}/oauth2/v2.0/token`,
      issuer: `${authority}/v2.0`,
      scopes: MICROSOFT_SCOPES,
      extraParams: {},
      pkce: true,
      ...creds("microsoft", settings.microsoft),
    });
  }
  return out;
}
