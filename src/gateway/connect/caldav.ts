/**
 * Connecting a CalDAV calendar (issue #13 "Connect"): the server URL and credentials are checked
 * live, by the CalDAV connector's calendar discovery (RFC 6764 / RFC 4791 §6.2.1, see
 * src/connectors/caldav/discover.ts), BEFORE anything is saved; only then does the password go
 * into the (sealed) Basic credential vault. The answer lists the calendars the owner can pick.
 */
import { createCaldavConnector, validateCaldavSettings } from "../../connectors/caldav/index.js";
import type { DiscoveredCalendar } from "../../connectors/caldav/index.js";
import type { BasicCredentialVault } from "./basic-vault.js";

export interface CaldavCheckRequest {
  readonly serverUrl: string;
  readonly username: string;
  readonly password: string;
}

export type CaldavCheckFailureKind = "invalid" | "unreachable" | "unauthorized" | "not_caldav";

export type CaldavCheck =
  | { readonly ok: true; readonly calendars: readonly DiscoveredCalendar[] }
  | { readonly ok: false; readonly kind: CaldavCheckFailureKind; readonly message: string };

export interface CaldavCheckDeps {
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

export async function checkCaldav(req: CaldavCheckRequest, deps: CaldavCheckDeps = {}): Promise<CaldavCheck> {
  const valid = validateCaldavSettings({
    serverUrl: req.serverUrl,
    username: req.username,
    password: req.password,
  });
  if (!valid.ok) return { ok: false, kind: "invalid", message: valid.error.message };
  const connector = createCaldavConnector(valid.value, {
    ...(deps.fetch !== undefined && { fetch: deps.fetch }),
    timeoutMs: deps.timeoutMs ?? 15_000,
  });
  const found = await connector.discoverCalendars();
  if (found.ok) {
    if (found.value.length === 0)
      return {
        ok: false,
        kind: "not_caldav",
        message: "The server answered but offers no calendar that takes events for this account.",
      };
    return { ok: true, calendars: found.value };
  }
  const { code } = found.error;
  if (code === "unauthorized")
    return {
      ok: false,
      kind: "unauthorized",
      message: "The CalDAV server refused this username and password.",
    };
  // An answer that broke the gateway's bounds (connectors/http/limits.ts): said as such, at once.
  if (found.error.reason !== undefined)
    return {
      ok: false,
      kind: "not_caldav",
      message:
        found.error.reason === "upstream_too_large"
          ? "The server answered with far more data than a CalDAV discovery answer holds: check the server URL (your provider's CalDAV address)."
          : "The server's answer could not be read as CalDAV within the gateway's limits: check the server URL (your provider's CalDAV address).",
    };
  // No answer at all (refused connection, DNS, timeout): nothing upstream to report a status.
  if ((code === "unavailable" || code === "timeout") && (found.upstream?.status ?? 0) === 0)
    return {
      ok: false,
      kind: "unreachable",
      message: "The CalDAV server could not be reached; check the server URL and that it is online.",
    };
  return {
    ok: false,
    kind: "not_caldav",
    message:
      "The server answered, but not as a CalDAV server: check the server URL (your provider's CalDAV address).",
  };
}

/** Checks first; saves the credentials only when discovery found calendars. */
export async function connectCaldav(
  hostId: string,
  req: CaldavCheckRequest,
  vault: BasicCredentialVault,
  deps: CaldavCheckDeps = {},
): Promise<CaldavCheck> {
  const checked = await checkCaldav(req, deps);
  if (!checked.ok) return checked;
  const serverUrl = new URL(req.serverUrl).href;
  await vault.put(hostId, { kind: "basic", serverUrl, username: req.username, password: req.password });
  return checked;
}
