/**
 * One Connector per configured host, from its `connector: { type, settings }`:
 *
 * - platforms: "synthetic" (the credential-free platform of the embedded default; with Redis
 *   every process shares its appointment store, as several processes share a real platform),
 *   "square", "openings", "servicialo";
 * - calendars: "caldav", "google", "microsoft", "ics-dir" (a local directory of iCalendar
 *   files). A calendar host is then made a booking host by hosts.ts (src/booking/calendar).
 *
 * Google and Microsoft take an OAuth access token, from one of two places: `accessTokenFile`, a
 * file an outside token broker keeps current (read on every call, never logged), or
 * `credentials: "vault"`, the gateway's own encrypted token vault, refreshed before expiry and
 * once on a 401 (src/gateway/credentials). Square takes `accessToken` or the vault.
 *
 * Settings errors name the field in the config file. Every connector that speaks HTTP hands
 * its upstream's Deprecation/Sunset notices to `onNotice`, recorded per host for operators.
 */
import { isAbsolute, resolve } from "node:path";
import type { Clock } from "../../protocol/clock.js";
import type { HostConfig } from "../../booking/api.js";
import type { NoticeSighting } from "../../booking/hosts/notices.js";
import { createCaldavConnector, validateCaldavSettings } from "../../connectors/caldav/index.js";
import { createIcsDirConnector } from "../../connectors/ics-dir/connector.js";
import type { Connector } from "../../connectors/port.js";
import { createSquareConnector, SquareSettingsError } from "../../connectors/square/connector.js";
import { createGoogleCalendarConnector } from "../../connectors/google/connector.js";
import { validateGoogleCalendarSettings } from "../../connectors/google/settings.js";
import { createMicrosoftCalendarConnector } from "../../connectors/microsoft/connector.js";
import { validateMicrosoftCalendarSettings } from "../../connectors/microsoft/settings.js";
import { createOpeningsConnector } from "../../connectors/openings/connector.js";
import { parseOpeningsSettings } from "../../connectors/openings/settings.js";
import { createServicialoConnector } from "../../connectors/servicialo/connector.js";
import { parseServicialoSettings } from "../../connectors/servicialo/settings.js";
import { createSyntheticConnector, SYNTHETIC_SCENARIOS } from "../../connectors/synthetic/index.js";
import type { FaultPlan, SyntheticBackend, SyntheticMessageSink } from "../../connectors/synthetic/index.js";
import { err, fieldError, ok } from "../../protocol/result.js";
import { nearestName } from "../../protocol/nearest-name.js";
import type { FieldError, Result } from "../../protocol/result.js";
import type { Logger } from "../../protocol/logger.js";
import { vaultHostTokens, type VaultCredentials } from "../credentials/host-tokens.js";
import { vaultCaldavConnector } from "../credentials/caldav-vault.js";
import type { PacingGate } from "../../connectors/http/pacing.js";
import { upstreamAccountOf } from "./upstream-account.js";
import { tokenFileProvider } from "./token-file.js";

export interface ConnectorDeps {
  readonly clock: Clock;
  /** The synthetic platform's appointment store, shared by every synthetic host. */
  readonly syntheticBackend: SyntheticBackend;
  /** Receives every verification message a synthetic platform sends (default: none kept). */
  readonly syntheticMessages?: SyntheticMessageSink;
  /** Test hook: the fault plan of a host's synthetic connector, by host id. */
  readonly syntheticFaults?: (hostId: string) => FaultPlan | undefined;
  /** Where relative paths in settings (ics-dir) are read from: the data dir. */
  readonly dataDir?: string;
  readonly logger?: Logger;
  /** An upstream's Deprecation/Sunset notice for a host (src/booking/hosts/notices.ts). */
  readonly onNotice?: (hostId: string, notice: NoticeSighting) => void;
  /** The HTTP client connectors use (tests: a recording fetch); globalThis.fetch by default. */
  readonly fetch?: typeof fetch;
  /** The token vault, for hosts with `credentials: "vault"` (present when TOKEN_KEYS is set). */
  readonly credentials?: VaultCredentials;
  /** Upstream accounts told to wait (connectors/http/pacing.ts); shared by every host's connector. */
  readonly pacing?: PacingGate;
  /** A CalDAV request's timeout (the CalDAV connector's own default when absent). */
  readonly caldavTimeoutMs?: number;
}

type Factory = (config: HostConfig, at: string, deps: ConnectorDeps) => Result<Connector, FieldError>;

const settingsField = (at: string, inner: string) => `${at}/connector/settings${inner}`;
const invalid = (at: string, inner: string, why: string) => {
  const field = settingsField(at, inner);
  return err(fieldError("invalid_setting", field, `${field}: ${why}`));
};

const usesVault = (config: HostConfig): boolean => config.connector.settings["credentials"] !== undefined;

/** A vault host's token provider and retrying fetch (credentials/host-tokens.ts). */
function vaultSettings(config: HostConfig, at: string, deps: ConnectorDeps) {
  const mode = config.connector.settings["credentials"];
  if (mode !== "vault")
    return invalid(at, "/credentials", `the only value is "vault" (or use accessTokenFile)`);
  if (
    config.connector.settings["accessTokenFile"] !== undefined ||
    config.connector.settings["accessToken"] !== undefined
  )
    return invalid(at, "/credentials", `give credentials "vault" or an access token, not both`);
  const made = vaultHostTokens(config.id, config.connector.settings, (inner) => settingsField(at, inner), {
    ...(deps.credentials !== undefined && { credentials: deps.credentials }),
    ...(deps.fetch !== undefined && { fetch: deps.fetch }),
    ...(deps.logger !== undefined && { logger: deps.logger }),
    clock: deps.clock,
  });
  if (!made.ok) return err(fieldError("invalid_setting", made.error.field, made.error.message));
  return made;
}

/**
 * Settings minus the gateway's own members, a token provider (the vault's, or one reading
 * `accessTokenFile`) and the fetch to call the upstream with (the vault's retries once on a 401).
 */
function oauthSettings(
  config: HostConfig,
  at: string,
  deps: ConnectorDeps,
): Result<
  { rest: Record<string, unknown>; accessToken: () => Promise<string>; fetch?: typeof fetch },
  FieldError
> {
  if (usesVault(config)) {
    const vault = vaultSettings(config, at, deps);
    if (!vault.ok) return vault;
    const { rest, accessToken, fetch } = vault.value;
    return ok({ rest, accessToken, fetch });
  }
  const { accessTokenFile, ...rest } = config.connector.settings;
  if (accessTokenFile === undefined) {
    // "accesTokenFile": name the slip rather than only the missing setting.
    const slip = Object.keys(rest).find((k) => nearestName(k, ["accessTokenFile"]) !== undefined);
    if (slip !== undefined)
      return invalid(at, `/${slip}`, "unknown setting; did you mean `accessTokenFile`?");
  }
  if (typeof accessTokenFile !== "string" || accessTokenFile.length === 0) {
    return invalid(
      at,
      "/accessTokenFile",
      'a file holding a current OAuth access token (kept fresh by your token broker), or use credentials: "vault"',
    );
  }
  const field = settingsField(at, "/accessTokenFile");
  return ok({ rest, accessToken: tokenFileProvider(accessTokenFile, field, resolve(deps.dataDir ?? ".")) });
}

/** The vault's retrying fetch when the host has one, else the runtime's. */
const fetchOf = (oauth: { fetch?: typeof fetch }, deps: ConnectorDeps) => {
  const f = oauth.fetch ?? deps.fetch;
  return f === undefined ? {} : { fetch: f };
};

const noticeOf = (config: HostConfig, deps: ConnectorDeps) =>
  deps.onNotice === undefined ? {} : { onNotice: (n: NoticeSighting) => deps.onNotice?.(config.id, n) };

/** The pacing gate bound to the upstream account the host's settings name. */
const pacingOf = (config: HostConfig, deps: ConnectorDeps) =>
  deps.pacing === undefined
    ? {}
    : { pacing: { gate: deps.pacing, account: upstreamAccountOf(config, deps.dataDir ?? ".") } };

const FACTORIES: Readonly<Record<string, Factory>> = {
  openings: (config, at, deps) => {
    const valid = parseOpeningsSettings(config.connector.settings);
    if (!valid.ok) return invalid(at, valid.error.field, valid.error.message);
    return ok(
      createOpeningsConnector(config.connector.settings, {
        clock: deps.clock,
        ...(deps.fetch !== undefined && { fetch: deps.fetch }),
        ...(deps.logger !== undefined && { logger: deps.logger }),
        ...noticeOf(config, deps),
        ...pacingOf(config, deps),
      }),
    );
  },
  servicialo: (config, at, deps) => {
    const valid = parseServicialoSettings(config.connector.settings);
    if (!valid.ok) return invalid(at, valid.error.field, valid.error.message);
    return ok(
      createServicialoConnector(config.connector.settings, {
        clock: deps.clock,
        ...(deps.fetch !== undefined && { fetch: deps.fetch }),
        ...(deps.logger !== undefined && { logger: deps.logger }),
        ...noticeOf(config, deps),
        ...pacingOf(config, deps),
      }),
    );
  },
  google: (config, at, deps) => {
    const oauth = oauthSettings(config, at, deps);
    if (!oauth.ok) return oauth;
    const valid = validateGoogleCalendarSettings(oauth.value.rest);
    if (!valid.ok) return invalid(at, valid.error.field, valid.error.message);
    return ok(
      createGoogleCalendarConnector(valid.value, {
        accessToken: oauth.value.accessToken,
        clock: deps.clock,
        ...fetchOf(oauth.value, deps),
        ...(deps.logger !== undefined && { logger: deps.logger }),
        ...noticeOf(config, deps),
        ...pacingOf(config, deps),
      }),
    );
  },
  microsoft: (config, at, deps) => {
    const oauth = oauthSettings(config, at, deps);
    if (!oauth.ok) return oauth;
    const valid = validateMicrosoftCalendarSettings(oauth.value.rest);
    if (!valid.ok) return invalid(at, valid.error.field, valid.error.message);
    return ok(
      createMicrosoftCalendarConnector(valid.value, {
        accessToken: oauth.value.accessToken,
        clock: deps.clock,
        ...fetchOf(oauth.value, deps),
        ...(deps.logger !== undefined && { logger: deps.logger }),
        ...noticeOf(config, deps),
        ...pacingOf(config, deps),
      }),
    );
  },
  synthetic: synthetic,
  square: (config, at, deps) => {
    let settings = config.connector.settings;
    let vault: { squareToken: () => Promise<string | undefined>; fetch: typeof fetch } | undefined;
    if (usesVault(config)) {
      const made = vaultSettings(config, at, deps);
      if (!made.ok) return made;
      ({ rest: settings, ...vault } = made.value);
    }
    try {
      return ok(
        createSquareConnector(settings, {
          clock: deps.clock,
          ...(vault !== undefined
            ? { tokenProvider: vault.squareToken, fetch: vault.fetch }
            : deps.fetch !== undefined && { fetch: deps.fetch }),
          ...(deps.logger !== undefined && { logger: deps.logger }),
          ...(deps.onNotice !== undefined && { onNotice: (n) => deps.onNotice?.(config.id, n) }),
          ...pacingOf(config, deps),
        }),
      );
    } catch (e) {
      if (e instanceof SquareSettingsError) return invalid(at, e.problem.field, e.problem.message);
      throw e;
    }
  },
  caldav: (config, at, deps) => {
    const { credentials, ...settings } = config.connector.settings;
    const caldavDeps = {
      ...(deps.fetch !== undefined && { fetch: deps.fetch }),
      ...(deps.caldavTimeoutMs !== undefined && { timeoutMs: deps.caldavTimeoutMs }),
      ...(deps.logger !== undefined && { logger: deps.logger }),
      ...noticeOf(config, deps),
    };
    if (credentials === undefined) {
      const valid = validateCaldavSettings(settings);
      if (!valid.ok) return invalid(at, valid.error.field, valid.error.message);
      return ok(createCaldavConnector(valid.value, caldavDeps));
    }
    // The username and password the owner connected with, from the Basic credential vault.
    if (credentials !== "vault")
      return invalid(at, "/credentials", `the only value is "vault" (or give username and password)`);
    if (settings["username"] !== undefined || settings["password"] !== undefined)
      return invalid(at, "/credentials", `give credentials "vault" or a username and password, not both`);
    const basic = deps.credentials?.basic;
    if (basic === undefined)
      return invalid(
        at,
        "/credentials",
        `"vault" needs TOKEN_KEYS set (the key ring the vault is sealed with)`,
      );
    const valid = validateCaldavSettings(settings);
    if (!valid.ok) return invalid(at, valid.error.field, valid.error.message);
    return ok(vaultCaldavConnector(config.id, valid.value, basic, caldavDeps));
  },
  "ics-dir": (config, at, deps) => {
    const path = config.connector.settings["path"];
    if (typeof path !== "string" || path.length === 0) {
      return invalid(at, "/path", "the directory of the calendar's .ics files");
    }
    const dir = isAbsolute(path) ? path : resolve(deps.dataDir ?? ".", path);
    return ok(
      createIcsDirConnector(
        { path: dir },
        { clock: deps.clock, ...(deps.logger !== undefined && { logger: deps.logger }) },
      ),
    );
  },
};

const CONNECTOR_TYPES = Object.keys(FACTORIES);

/** `at` is the host's pointer in the config ("/hosts/0"), so errors name the field. */
export function connectorFor(
  config: HostConfig,
  at: string,
  deps: ConnectorDeps,
): Result<Connector, FieldError> {
  const { type } = config.connector;
  const factory = Object.prototype.hasOwnProperty.call(FACTORIES, type) ? FACTORIES[type] : undefined;
  if (factory === undefined) {
    return err(
      fieldError(
        "unknown_connector",
        `${at}/connector/type`,
        `${at}/connector/type: "${type}" is not a connector this gateway has (${CONNECTOR_TYPES.join(", ")})`,
      ),
    );
  }
  return factory(config, at, deps);
}

function synthetic(config: HostConfig, at: string, deps: ConnectorDeps): Result<Connector, FieldError> {
  const { settings } = config.connector;
  const name = settings["scenario"] ?? config.id;
  const field = `${at}/connector/settings/scenario`;
  if (typeof name !== "string")
    return err(fieldError("invalid_setting", field, `${field}: must be a string`));
  const scenario = Object.prototype.hasOwnProperty.call(SYNTHETIC_SCENARIOS, name)
    ? SYNTHETIC_SCENARIOS[name]
    : undefined;
  if (scenario === undefined) {
    const known = Object.keys(SYNTHETIC_SCENARIOS).join(", ");
    return err(
      fieldError("unknown_scenario", field, `${field}: no synthetic scenario "${name}" (known: ${known})`),
    );
  }
  const faults = deps.syntheticFaults?.(config.id);
  return ok(
    createSyntheticConnector({
      scenario,
      ...(faults !== undefined && { faults }),
      clock: deps.clock,
      backend: deps.syntheticBackend,
      ...(deps.syntheticMessages !== undefined && { messages: deps.syntheticMessages }),
    }),
  );
}
