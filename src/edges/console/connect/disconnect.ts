/**
 * Disconnecting a host: its access is revoked upstream, its
 * stored grant (or CalDAV password) deleted, and it stops offering time.
 *
 * The order is fixed and every step runs whatever the one before did: a revocation that fails
 * (no answer, a refusal) is reported to the owner with where to remove access by hand, but the
 * local grant is still deleted and the host still stops offering time, since the owner asked
 * for the gateway to let go, and keeping a working grant because the provider was down would
 * do the opposite.
 *
 *   1. revoke upstream (revoke.ts; Microsoft and CalDAV: nothing to call, the owner is told)
 *   2. delete the vault record
 *   3. the host's health turns needs_reconnection now, in this process (availability answers
 *      host_needs_reconnection at once, without waiting for the next upstream call); other
 *      processes find no grant on their next call (the refresher reads the vault every time),
 *      which the connector maps to `unauthorized`, so they follow
 *   4. a host created from the console is deactivated (ManagedHosts.deactivate: no longer
 *      served, in any process)
 *
 * One log line per disconnect names the host, the source and how the revocation went; never a
 * token, a secret or a password.
 */
import type { HostDirectory } from "../../../booking/api.js";
import type { BasicCredentialVault } from "./basic-vault.js";
import type { OAuthClient } from "../../../gateway/credentials/token-endpoints.js";
import type {
  BasicCredentialRecord,
  OAuthProvider,
  TokenRecord,
} from "../../../gateway/credentials/record.js";
import type { TokenVault } from "../../../gateway/credentials/vault.js";
import type { Logger } from "../../../protocol/logger.js";
import type { ManagedHosts } from "../managed-hosts.js";
import { ACCESS_PAGES, revokeGrant, type RevokeOptions, type RevokeOutcome } from "./revoke.js";
import type { Result } from "../../../protocol/result.js";

export type DisconnectSource = "square" | "google" | "microsoft" | "caldav";
export const DISCONNECT_SOURCES: readonly DisconnectSource[] = ["square", "google", "microsoft", "caldav"];

export interface DisconnectTarget {
  readonly hostId: string;
  readonly name: string;
  readonly source: DisconnectSource;
  /** A host created from the console (deactivated on disconnect), not a config-file one. */
  readonly managed: boolean;
}

/** How the upstream side went: a RevokeOutcome kind, or "nothing_stored" (no grant to revoke). */
type UpstreamRevocation = RevokeOutcome["kind"] | "nothing_stored";

interface Disconnected {
  readonly hostId: string;
  readonly source: DisconnectSource;
  readonly upstream: UpstreamRevocation;
  /** Owner-facing: what was done, and what is left for them to do. */
  readonly message: string;
  /** The revocation failed or cannot be done by the gateway: the owner should act. */
  readonly ownerAction: boolean;
}

interface DisconnectFailure {
  readonly kind: "unknown_host" | "not_disconnectable" | "storage_failed";
  /** Owner-facing. */
  readonly message: string;
}

type DisconnectResult = Result<Disconnected, DisconnectFailure>;

export interface DisconnectDeps {
  readonly hosts: HostDirectory;
  readonly vault?: TokenVault;
  readonly basicVault?: BasicCredentialVault;
  readonly managedHosts?: ManagedHosts;
  /** The OAuth client a host's grant was issued to (Square's RevokeToken authenticates with it). */
  readonly clientOf?: (hostId: string, provider: OAuthProvider) => OAuthClient | undefined;
  readonly revoke?: RevokeOptions;
  readonly logger?: Logger;
}

export interface Disconnect {
  /** The host as the confirmation page names it; undefined when it cannot be disconnected here. */
  target(hostId: string): Promise<DisconnectTarget | undefined>;
  disconnectHost(hostId: string): Promise<DisconnectResult>;
}

const NAMES: Record<DisconnectSource, string> = {
  square: "Square",
  google: "Google",
  microsoft: "Microsoft",
  caldav: "CalDAV",
};

const isSource = (v: unknown): v is DisconnectSource =>
  typeof v === "string" && (DISCONNECT_SOURCES as readonly string[]).includes(v);

export function createDisconnect(deps: DisconnectDeps): Disconnect {
  async function target(hostId: string): Promise<DisconnectTarget | undefined> {
    const record = await deps.managedHosts?.store.get(hostId);
    if (record !== undefined) {
      const name = record.config["name"];
      return {
        hostId,
        name: typeof name === "string" && name !== "" ? name : hostId,
        source: record.source,
        managed: true,
      };
    }
    // A config-file host: only one whose credentials the gateway keeps (otherwise there is
    // nothing here to revoke or delete; its token broker or config file holds them).
    const config = deps.hosts.get(hostId)?.config;
    const type = config?.connector.type;
    if (config === undefined || !isSource(type) || config.connector.settings["credentials"] !== "vault")
      return undefined;
    return { hostId, name: config.name, source: type, managed: false };
  }

  async function disconnectHost(hostId: string): Promise<DisconnectResult> {
    const t = await target(hostId);
    if (t === undefined)
      return deps.hosts.get(hostId) === undefined
        ? {
            ok: false,
            error: { kind: "unknown_host", message: `No host "${hostId}" is served or set up here.` },
          }
        : {
            ok: false,
            error: {
              kind: "not_disconnectable",
              message: `"${hostId}" does not keep its credentials in the gateway, so there is nothing here to disconnect.`,
            },
          };
    const { source } = t;

    // 1. Upstream.
    let upstream: UpstreamRevocation;
    let revokeFailure: Extract<RevokeOutcome, { kind: "failed" }> | undefined;
    const stored = await readStored<TokenRecord | BasicCredentialRecord>(() =>
      source === "caldav" ? deps.basicVault?.get(hostId) : deps.vault?.get(hostId),
    );
    if (stored === "unreadable") {
      revokeFailure = { kind: "failed", why: "the stored credentials could not be opened" };
      upstream = "failed";
    } else if (stored === undefined) upstream = "nothing_stored";
    else if (source === "caldav" || !("provider" in stored)) upstream = "not_supported";
    else {
      const outcome = await revokeGrant(stored, deps.clientOf?.(hostId, stored.provider), deps.revoke ?? {});
      upstream = outcome.kind;
      if (outcome.kind === "failed") revokeFailure = outcome;
    }

    // 2. The local record, whatever the provider said.
    let deleted = true;
    try {
      await (source === "caldav" ? deps.basicVault?.delete(hostId) : deps.vault?.delete(hostId));
    } catch {
      deleted = false;
    }

    // 3. No time from this host, now.
    deps.hosts
      .get(hostId)
      ?.health?.upstreamFailed(
        { code: "unauthorized", message: "disconnected by its owner; connect it again to offer time" },
        "disconnect",
      );

    // 4. A console-created host stops being served.
    let deactivated = true;
    if (t.managed)
      await deps.managedHosts?.deactivate(hostId).catch(() => {
        deactivated = false;
      });

    const line = {
      host_id: hostId,
      source,
      upstream,
      managed: t.managed,
      grant_deleted: deleted,
      ...(t.managed && { deactivated }),
      ...(revokeFailure?.status !== undefined && { status: revokeFailure.status }),
      ...(revokeFailure?.error !== undefined && { oauth_error: revokeFailure.error }),
      ...(revokeFailure !== undefined && { why: revokeFailure.why }),
    };
    if (revokeFailure !== undefined || !deleted || !deactivated)
      deps.logger?.warn("host disconnected; revocation or deletion incomplete", line);
    else deps.logger?.info("host disconnected", line);

    if (!deleted)
      return {
        ok: false,
        error: {
          kind: "storage_failed",
          message: `${t.name} no longer offers time, but its stored credentials could not be deleted. Try disconnecting again.`,
        },
      };
    if (!deactivated)
      return {
        ok: false,
        error: {
          kind: "storage_failed",
          message: `${t.name}'s credentials were deleted and it offers no time here, but it could not be marked disconnected for every gateway process. Try disconnecting again.`,
        },
      };
    return { ok: true, value: { hostId, source, upstream, ...messageFor(t, upstream) } };
  }

  return { target, disconnectHost };
}

function messageFor(
  t: DisconnectTarget,
  upstream: UpstreamRevocation,
): { message: string; ownerAction: boolean } {
  const provider = NAMES[t.source];
  const stops = `${t.name} no longer offers time until it is connected again`;
  const page = ACCESS_PAGES[t.source];
  switch (upstream) {
    case "revoked":
    case "already_revoked":
      return {
        message: `Disconnected: the gateway's ${provider} access was revoked and its grant deleted; ${stops}.`,
        ownerAction: false,
      };
    case "not_supported":
      return t.source === "caldav"
        ? {
            message: `Disconnected: the stored CalDAV password was deleted; ${stops}. CalDAV cannot revoke a password: revoke the app password at ${page}.`,
            ownerAction: true,
          }
        : {
            message: `Disconnected: the ${provider} grant was deleted; ${stops}. ${provider} offers no way for the gateway to revoke its own access: remove it at ${page}.`,
            ownerAction: true,
          };
    case "failed":
      return {
        message: `Disconnected, but revocation failed; remove access at ${page}. The ${provider} grant was deleted here and ${stops}.`,
        ownerAction: true,
      };
    case "nothing_stored":
      return { message: `Disconnected: no credentials were stored; ${stops}.`, ownerAction: false };
  }
}

/** A record that cannot be opened (a lost key, a damaged record) cannot be revoked with. */
async function readStored<R>(
  read: () => Promise<R | undefined> | undefined,
): Promise<R | undefined | "unreadable"> {
  try {
    return await read();
  } catch {
    return "unreadable";
  }
}
