/**
 * Connect for one gateway process (issue #13): the providers the environment turned on
 * (cli/serve-env.ts readConnectEnv), resolved against the public origin, with pending states in
 * memory or — when the gateway has Redis — on its own connection under the gateway's key
 * prefix, so a callback may land on any replica. Grants go into the runtime's token vault, so
 * there is no Connect without TOKEN_KEYS.
 */
import type { HostDirectory } from "../../booking/api.js";
import { connectClient, createClient } from "../../holds/redis/connection.js";
import { vaultClientOf } from "../credentials/host-tokens.js";
import type { OAuthProvider } from "../credentials/record.js";
import type { TokenVault } from "../credentials/vault.js";
import type { Logger } from "../http/types.js";
import type { ManagedHosts } from "../managed-hosts/port.js";
import type { BasicCredentialVault } from "./basic-vault.js";
import { createDisconnect, type Disconnect } from "./disconnect.js";
import { createConnect, type Connect } from "./flow.js";
import { resolveProviders, type ConnectSettings } from "./providers.js";
import { MemoryConnectStateStore, RedisConnectStateStore } from "./state-store.js";

/** The providers part of ConnectSettings: the public base URL is the gateway's public origin. */
export type ConnectProviders = Omit<ConnectSettings, "publicBaseUrl">;

/** What the HTTP edge needs to serve /connect/... and list connectable hosts on the console. */
export interface ConnectAppDeps {
  readonly connect: Connect;
  /** The providers an operator can connect a host with on this gateway. */
  readonly providers: readonly OAuthProvider[];
  /** Read only to say whether a host already has a grant (never to show it). */
  readonly vault: TokenVault;
  /** Disconnect (revoke, delete, stop offering time) over the app's hosts and managed hosts. */
  readonly disconnect: (hosts: HostDirectory, managedHosts?: ManagedHosts) => Disconnect;
}

export interface ConnectWiringOptions {
  readonly providers: ConnectProviders;
  readonly publicOrigin: string;
  readonly vault: TokenVault;
  /** CalDAV hosts' passwords, deleted on disconnect (absent: CalDAV hosts have none here). */
  readonly basicVault?: BasicCredentialVault;
  /** Where the client ids and secrets are read from (the names are fixed by readConnectEnv). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  readonly logger: Logger;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
}

/** Throws ConnectConfigError (a public origin that is neither https nor loopback http). */
export async function connectWiring(
  opts: ConnectWiringOptions,
): Promise<{ readonly deps: ConnectAppDeps; close(): Promise<void> }> {
  const providers = resolveProviders({ ...opts.providers, publicBaseUrl: opts.publicOrigin }, opts.env);
  const base = { providers, vault: opts.vault, now: opts.now, logger: opts.logger };
  const deps = (connect: Connect): ConnectAppDeps => ({
    connect,
    providers: [...providers.keys()],
    vault: opts.vault,
    disconnect: (hosts, managedHosts) =>
      createDisconnect({
        hosts,
        vault: opts.vault,
        ...(opts.basicVault !== undefined && { basicVault: opts.basicVault }),
        ...(managedHosts !== undefined && { managedHosts }),
        // The client the host's settings name (what its refresher uses), else Connect's own.
        clientOf: (hostId, provider) => {
          const settings = hosts.get(hostId)?.config.connector.settings;
          const p = providers.get(provider);
          return (
            (settings !== undefined ? vaultClientOf(settings, opts.env) : undefined) ??
            (p !== undefined ? { clientId: p.clientId, clientSecret: p.clientSecret } : undefined)
          );
        },
        logger: opts.logger,
      }),
  });
  if (opts.redisUrl === undefined) {
    return {
      deps: deps(createConnect({ ...base, states: new MemoryConnectStateStore(opts.now) })),
      close: () => Promise.resolve(),
    };
  }
  const client = createClient({ url: opts.redisUrl });
  await connectClient(client, opts.redisUrl);
  return {
    deps: deps(createConnect({ ...base, states: new RedisConnectStateStore(client, opts.redisKeyPrefix) })),
    close: () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      ),
  };
}

const escapeAttr = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * The provider sends the browser back with a cross-site navigation, and the console's cookie is
 * SameSite=Strict, so that request arrives without it. When a callback comes cross-site with no
 * console cookie, this answers a page of this origin that loads the same URL again: that second
 * navigation is same-site, carries the cookie, and goes through the operator guard as usual. No
 * script (the console's CSP has none); the page sends no referrer (the URL holds the code).
 */
export function crossSiteCallbackBounce(request: Request, hasSessionCookie: boolean): Response | undefined {
  const url = new URL(request.url);
  if (
    !url.pathname.endsWith("/callback") ||
    request.headers.get("sec-fetch-site") !== "cross-site" ||
    hasSessionCookie
  )
    return undefined;
  const again = escapeAttr(`${url.pathname}${url.search}`);
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
      `<meta http-equiv="refresh" content="0;url=${again}"><title>Finishing the connection</title></head>` +
      `<body><main><p><a href="${again}">Continue</a></p></main></body></html>`,
    {
      status: 200,
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
      },
    },
  );
}

/**
 * Start only for a host this gateway serves whose connector is the provider's and keeps its
 * grant in the vault (`credentials: "vault"`): otherwise a grant would be sealed for a host id
 * nothing reads, or for the wrong platform.
 */
export function onlyVaultHosts(connect: Connect, hosts: HostDirectory): Connect {
  return {
    finishConnect: (provider, callbackUrl, sessionId) =>
      connect.finishConnect(provider, callbackUrl, sessionId),
    startConnect: async (req) => {
      const connector = hosts.get(req.hostId)?.config.connector;
      if (connector?.type !== req.provider || connector.settings["credentials"] !== "vault")
        return {
          ok: false,
          kind: "invalid_host",
          message: `No host "${req.hostId}" here keeps a ${req.provider} grant in the gateway's vault.`,
        };
      return connect.startConnect(req);
    },
  };
}
