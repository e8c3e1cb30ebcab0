/**
 * A CalDAV host whose username and password are kept in the gateway's Basic credential vault
 * (`connector.settings.credentials: "vault"`): what connect/caldav.ts stored when the
 * owner connected it, read at call time instead of a password in the config file.
 *
 * Every call reads the vault first (a sealed record, one file or Redis read), so a password the
 * owner changes by connecting again is used at once, and a disconnect (connect/disconnect.ts
 * deletes the record) refuses the next call in every process. A missing or unreadable record, or
 * one saved for another server, answers `unauthorized` without calling the server: host health
 * then shows needs_reconnection and the host offers no time. The CalDAV connector itself is
 * unchanged: one is built per stored credential (the last one kept) and every call goes to it.
 */
import { createCaldavConnector } from "../../connectors/caldav/index.js";
import type { CaldavConnector, CaldavDeps } from "../../connectors/caldav/connector.js";
import type { CaldavSettings } from "../../connectors/caldav/settings.js";
import type { ConnectorErrorCode, ConnectorResult } from "../../connectors/port.js";
import type { BasicCredentialVault } from "../../edges/console/connect/basic-vault.js";
import { calendarUrl } from "../../connectors/caldav/resources.js";
import { CALDAV_PLATFORM } from "../../connectors/caldav/upstream.js";
import type { Err } from "../../protocol/result.js";

/** `settings` without username/password (they come from the vault). */
export function vaultCaldavConnector(
  hostId: string,
  settings: Omit<CaldavSettings, "username" | "password">,
  vault: BasicCredentialVault,
  deps: CaldavDeps = {},
): CaldavConnector {
  const server = new URL(settings.serverUrl);
  let current: { key: string; connector: CaldavConnector } | undefined;

  type Refusal = Err<{ code: "unauthorized"; message: string }>;
  const refuse = (message: string): Refusal => ({ ok: false, error: { code: "unauthorized", message } });

  async function connector(): Promise<CaldavConnector | Refusal> {
    let record;
    try {
      record = await vault.get(hostId);
    } catch {
      return refuse(`host "${hostId}": its stored CalDAV credentials cannot be opened: connect it again`);
    }
    if (record === undefined)
      return refuse(`host "${hostId}" has no CalDAV password in the vault: connect it`);
    if (new URL(record.serverUrl).origin !== server.origin)
      return refuse(`host "${hostId}": the stored CalDAV password is for another server: connect it again`);
    const key = JSON.stringify([record.username, record.password]);
    if (current?.key !== key)
      current = {
        key,
        connector: createCaldavConnector(
          { ...settings, username: record.username, password: record.password },
          deps,
        ),
      };
    return current.connector;
  }

  /** Runs `call` on the connector of the stored credentials, or answers the refusal. */
  const via =
    <A extends unknown[], T, C extends string>(
      call: (c: CaldavConnector, ...args: A) => Promise<ConnectorResult<T, C | ConnectorErrorCode>>,
    ) =>
    async (...args: A): Promise<ConnectorResult<T, C | ConnectorErrorCode>> => {
      const c = await connector();
      return "ok" in c ? c : call(c, ...args);
    };

  const calendar =
    settings.calendarPath === undefined ? undefined : calendarUrl(server, settings.calendarPath);
  return {
    platform: CALDAV_PLATFORM,
    kind: "calendar",
    calendar: { sync: via((c, request) => c.calendar.sync(request)) },
    events: {
      create: via((c, event) => c.events.create(event)),
      update: via((c, event, ifMatch) => c.events.update(event, ifMatch)),
      delete: via((c, calendarId, eventId, ifMatch, options) =>
        c.events.delete(calendarId, eventId, ifMatch, options),
      ),
    },
    discoverCalendars: via((c) => c.discoverCalendars()),
    ...(calendar?.ok === true ? { calendarId: calendar.value.pathname } : {}),
  };
}
