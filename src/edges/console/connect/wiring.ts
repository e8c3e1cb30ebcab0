/**
 * What the console's HTTP routes need of Connect, the cross-site callback bounce and which
 * hosts a console viewer may connect. The stores behind Connect (pending states in memory or
 * in Redis) are chosen by the composition root: src/gateway/runtime/connect-wiring.ts.
 */
import type { HostDirectory } from "../../../booking/api.js";
import type { OAuthProvider } from "../../../gateway/credentials/record.js";
import type { TokenVault } from "../../../gateway/credentials/vault.js";
import { mayManage, type ConsoleViewer, type ManagedHosts } from "../managed-hosts.js";
import type { Disconnect } from "./disconnect.js";
import type { Connect, ConnectSuccess } from "./flow.js";
import type { ConnectSettings } from "./providers.js";

/** The providers part of ConnectSettings: the public base URL is the gateway's public origin. */
export type ConnectProviders = Omit<ConnectSettings, "publicBaseUrl">;

/** What the HTTP edge needs to serve /connect/... and list connectable hosts on the console. */
export interface ConnectAppDeps {
  /** Absent when no OAuth client is configured: only disconnect (e.g. CalDAV hosts) is served. */
  readonly connect?: Connect;
  /** The providers an operator can connect a host with on this gateway. */
  readonly providers: readonly OAuthProvider[];
  /** Read only to say whether a host already has a grant (never to show it). */
  readonly vault: TokenVault;
  /** Disconnect (revoke, delete, stop offering time) over the app's hosts and managed hosts. */
  readonly disconnect: (hosts: HostDirectory, managedHosts?: ManagedHosts) => Disconnect;
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
 * Who may connect or disconnect which host (one rule for the Connect and disconnect routes,
 * after the console's own mayManage):
 *
 * - a console-created host (a managed record): its owner or the operator, while it is a draft
 *   or active, when its connector is the provider's and keeps its grant in the vault;
 * - a config-file host: the operator only, when it is served with a vault grant of that provider.
 *
 * Anything else is refused as an unknown host, so other owners' hosts are not revealed.
 */
export interface HostAccess {
  mayConnect(viewer: ConsoleViewer, provider: OAuthProvider, hostId: string): Promise<boolean>;
  mayDisconnect(viewer: ConsoleViewer, hostId: string): Promise<boolean>;
  /**
   * After a grant is stored: a draft goes on to its setup page; a host already served reads its
   * catalog now (as POST /operator/v0/{hostId}/health/refresh does), so a "needs reconnection"
   * clears at once instead of at the next scheduled check, and the console says so.
   */
  connected(done: ConnectSuccess): Promise<{ readonly location: string; readonly flash?: string }>;
}

const PROVIDER_NAMES: Record<OAuthProvider, string> = {
  square: "Square",
  google: "Google",
  microsoft: "Microsoft",
};

const settingsOf = (config: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined => {
  const connector = config["connector"];
  if (typeof connector !== "object" || connector === null) return undefined;
  const settings = (connector as Record<string, unknown>)["settings"];
  return typeof settings === "object" && settings !== null
    ? (settings as Record<string, unknown>)
    : undefined;
};

export function hostAccess(hosts: HostDirectory, managedHosts?: ManagedHosts): HostAccess {
  const recordOf = async (hostId: string) =>
    hostId === "" ? undefined : await managedHosts?.store.get(hostId);
  return {
    mayConnect: async (viewer, provider, hostId) => {
      const record = await recordOf(hostId);
      if (record !== undefined) {
        const connector = record.config["connector"] as { type?: unknown } | undefined;
        return (
          (record.state === "draft" || record.state === "active") &&
          mayManage(viewer, record) &&
          connector?.type === provider &&
          settingsOf(record.config)?.["credentials"] === "vault"
        );
      }
      const connector = hosts.get(hostId)?.config.connector;
      return (
        viewer.kind === "operator" &&
        connector?.type === provider &&
        connector.settings["credentials"] === "vault"
      );
    },
    mayDisconnect: async (viewer, hostId) => {
      const record = await recordOf(hostId);
      return record !== undefined ? mayManage(viewer, record) : viewer.kind === "operator";
    },
    connected: async (done) => {
      const record = await recordOf(done.hostId);
      if (record?.state === "draft")
        return { location: `/console/hosts/${encodeURIComponent(done.hostId)}/setup` };
      const host = hosts.get(done.hostId);
      // A failed read leaves the health as the read found it; the grant is stored either way.
      await host?.refreshCatalog?.().catch(() => undefined);
      const name =
        host?.config.name ??
        (typeof record?.config["name"] === "string" ? record.config["name"] : done.hostId);
      return { location: "/", flash: `Connected ${name} with ${PROVIDER_NAMES[done.provider]}.` };
    },
  };
}
