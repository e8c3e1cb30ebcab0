/**
 * A host's `credentials: "vault"` settings into a token provider: what
 * runtime/connectors.ts calls for a Square, Google or Microsoft host that keeps its grant in the
 * gateway's vault rather than in an outside broker's `accessTokenFile`.
 *
 *   settings: { credentials: "vault", clientId | clientIdEnv, clientSecretEnv, ...connector's own }
 *
 * The client secret never sits in the config file: the settings name an environment variable,
 * read here from the environment the CLI handed down (nothing below the CLI reads process.env).
 * A missing variable is a start error naming the setting and the variable.
 */
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import type { Logger } from "../../protocol/logger.js";
import { createTokenProvider, isRevokedGrant, type TokenProvider } from "./refresher.js";
import { retryOnceOn401 } from "./retry-on-401.js";
import type { RefreshLock } from "./refresh-lock.js";
import type { OAuthClient } from "./token-endpoints.js";
import type { TokenVault } from "./vault.js";
import type { BasicCredentialVault } from "../../edges/console/connect/basic-vault.js";
import type { Clock } from "../../protocol/clock.js";

/** What the runtime needs to serve vault hosts: the vaults and the environment secrets come from. */
export interface VaultCredentials {
  readonly vault: TokenVault;
  /** CalDAV hosts' sealed passwords (`credentials: "vault"` on a caldav host; caldav-vault.ts). */
  readonly basic?: BasicCredentialVault;
  /** One refresh per host at a time across the processes sharing `vault` (refresh-lock.ts). */
  readonly refreshLock?: RefreshLock;
  /** How long to wait for another process's refresh under `refreshLock` (refresher.ts's default). */
  readonly refreshLockWaitMs?: number;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The OAuth client a vault host's settings name (clientId or clientIdEnv, clientSecretEnv),
 * or undefined when they do not resolve: what a disconnect revokes with (Square).
 */
export function vaultClientOf(
  settings: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): OAuthClient | undefined {
  const read = (name: unknown) =>
    typeof name === "string" && ENV_NAME.test(name) && env[name] !== "" ? env[name] : undefined;
  const { clientId, clientIdEnv, clientSecretEnv } = settings;
  const id = typeof clientId === "string" && clientId !== "" ? clientId : read(clientIdEnv);
  const secret = read(clientSecretEnv);
  return id === undefined || secret === undefined ? undefined : { clientId: id, clientSecret: secret };
}

export interface VaultHostTokens {
  /** The settings without the gateway's own members, for the connector's validator. */
  readonly rest: Record<string, unknown>;
  readonly provider: TokenProvider;
  /** For Google and Microsoft (`deps.accessToken`): throws TokenUnavailableError. */
  readonly accessToken: () => Promise<string>;
  /** For Square (`deps.tokenProvider`): undefined when the grant is revoked, as its client expects. */
  readonly squareToken: () => Promise<string | undefined>;
  /** The connector's fetch, retrying once with a fresh token on a 401. */
  readonly fetch: typeof fetch;
}

export interface VaultHostDeps {
  readonly credentials?: VaultCredentials;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** `field(inner)` names a setting in the config ("/hosts/0/connector/settings/clientSecretEnv"). */
export function vaultHostTokens(
  hostId: string,
  settings: Readonly<Record<string, unknown>>,
  field: (inner: string) => string,
  deps: VaultHostDeps,
): Result<VaultHostTokens, { field: string; message: string }> {
  const { credentials: _mode, clientId, clientIdEnv, clientSecretEnv, ...rest } = settings;
  const fail = (inner: string, why: string) =>
    err({ field: field(inner), message: `${field(inner)}: ${why}` });
  if (deps.credentials === undefined)
    return fail("/credentials", `"vault" needs TOKEN_KEYS set (the key ring the vault is sealed with)`);
  const { env, vault, refreshLock, refreshLockWaitMs } = deps.credentials;
  const fromEnv = (inner: string, name: unknown): Result<string, { field: string; message: string }> => {
    if (typeof name !== "string" || !ENV_NAME.test(name))
      return fail(inner, "the name of an environment variable that holds the value");
    const value = env[name];
    if (value === undefined || value === "") return fail(inner, `environment variable ${name} is not set`);
    return ok(value);
  };
  let id: string;
  if (typeof clientId === "string" && clientId !== "") id = clientId;
  else if (clientId !== undefined) return fail("/clientId", "the OAuth client id, a non-empty string");
  else {
    const got = fromEnv("/clientIdEnv", clientIdEnv);
    if (!got.ok)
      return clientIdEnv === undefined ? fail("/clientId", "clientId or clientIdEnv is required") : got;
    id = got.value;
  }
  const secret = fromEnv("/clientSecretEnv", clientSecretEnv);
  if (!secret.ok) return secret;
  const version = rest["version"];
  const provider = createTokenProvider({
    hostId,
    vault,
    client: { clientId: id, clientSecret: secret.value },
    ...(deps.fetch !== undefined && { fetch: deps.fetch }),
    ...(deps.clock !== undefined && { clock: deps.clock }),
    ...(deps.logger !== undefined && { logger: deps.logger }),
    ...(typeof version === "string" && { squareVersion: version }),
    ...(refreshLock !== undefined && { refreshLock }),
    ...(refreshLockWaitMs !== undefined && { lockWaitMs: refreshLockWaitMs }),
  });
  return ok({
    rest,
    provider,
    accessToken: () => provider.accessToken(),
    squareToken: async () => {
      try {
        return await provider.accessToken();
      } catch (e) {
        if (isRevokedGrant(e)) return undefined;
        throw e;
      }
    },
    fetch: retryOnceOn401(deps.fetch ?? ((input, init) => globalThis.fetch(input, init)), provider),
  });
}
