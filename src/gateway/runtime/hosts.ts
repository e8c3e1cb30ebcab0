/**
 * The configured hosts made live: a connector each, the host's persisted signing key, and
 * the catalog read and checked (buildHostRuntime). Configuration errors name the field in the
 * config file and stop the start; an upstream that fails at start does not: that host starts
 * degraded (or needs_reconnection), the others serve, and the operator is told loudly here,
 * once per health transition, for the life of the process.
 */
import type { Clock, HostConfig, HostDirectory, HostRuntime } from "../../booking/api.js";
import { buildHostRuntime, createHostDirectory } from "../../booking/hosts/index.js";
import type { HealthTransition, HostHealthPolicy } from "../../booking/hosts/index.js";
import type { FaultPlan, SyntheticBackend, SyntheticMessageSink } from "../../connectors/synthetic/index.js";
import { childPointer, err, fieldError, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";
import type { Logger } from "../http/types.js";
import { connectorFor } from "./connectors.js";
import type { VaultCredentials } from "../credentials/host-tokens.js";
import { calendarHostFrom, type CalendarHostHandle } from "../../booking/calendar/host-setup.js";
import { knownUntil } from "../../booking/calendar/host-connector.js";
import type { CalendarHostPlan } from "../../booking/calendar/sync.js";
import type { CalendarStateStore, OwnEvent } from "../../booking/calendar/state.js";
import type { NoticeSighting } from "../../booking/hosts/notices.js";
import type { HoldStore } from "../../holds/port.js";
import { hasCapabilities } from "../../connectors/port.js";
import { loadOrCreateHostKey } from "./host-keys.js";
import { loadOrCreateOperatorToken } from "./operator-token.js";

export interface BuildHostsDeps {
  readonly clock: Clock;
  readonly syntheticBackend: SyntheticBackend;
  readonly syntheticMessages?: SyntheticMessageSink;
  readonly logger: Logger;
  readonly healthPolicy?: HostHealthPolicy;
  /** Test hook: a fault plan for a host's synthetic connector, by host id. */
  readonly syntheticFaults?: (hostId: string) => FaultPlan | undefined;
  /** Calendar hosts read their busy time from the hold store and keep their sync state here. */
  readonly store: HoldStore;
  readonly calendarState: CalendarStateStore;
  readonly onNotice?: (hostId: string, notice: NoticeSighting) => void;
  /** A calendar host's booking waits for the host: send the approval link. */
  readonly onTentative?: (hostId: string, event: OwnEvent) => void;
  /** The HTTP client connectors use (tests). */
  readonly fetch?: typeof fetch;
  /** The token vault for `credentials: "vault"` hosts (src/gateway/credentials). */
  readonly credentials?: VaultCredentials;
}

export async function buildHosts(
  hosts: readonly HostConfig[],
  dataDir: string,
  deps: BuildHostsDeps,
): Promise<
  Result<
    { directory: HostDirectory; generatedKeys: string[]; calendarHosts: CalendarHostHandle[] },
    FieldError
  >
> {
  const { clock } = deps;
  const runtimes: HostRuntime[] = [];
  const generatedKeys: string[] = [];
  const calendarHosts: CalendarHostHandle[] = [];
  for (const [i, config] of hosts.entries()) {
    const at = childPointer("/hosts", i);
    const made = connectorFor(config, at, { ...deps, dataDir });
    if (!made.ok) return made;
    let connector = made;
    let calendarPlan: CalendarHostPlan | undefined;
    if (made.value.kind === "calendar" && hasCapabilities(made.value, ["calendar", "events"])) {
      // A calendar becomes a booking host through the core's calendar path (src/booking/calendar).
      const host = calendarHostFrom(config, at, made.value, {
        store: deps.store,
        state: deps.calendarState,
        now: () => clock.now(),
        ...(deps.onTentative !== undefined && { onTentative: deps.onTentative }),
      });
      if (!host.ok) return host;
      connector = ok(host.value.connector);
      calendarHosts.push(host.value.handle);
      calendarPlan = host.value.handle.plan;
    } else if (config.calendar !== undefined) {
      const field = `${at}/calendar`;
      return err(
        fieldError(
          "unexpected_field",
          field,
          `${field}: only a calendar host (caldav, google, microsoft, ics-dir) has a calendar section`,
        ),
      );
    }
    const { key, created } = await loadOrCreateHostKey(dataDir, config.id, clock.now());
    if (created) generatedKeys.push(config.id);
    const runtime = await buildHostRuntime(config, connector.value, [key], {
      clock,
      onHealth: (change) => logHealth(deps.logger, change),
      ...(deps.healthPolicy !== undefined && { healthPolicy: deps.healthPolicy }),
      ...(calendarPlan !== undefined && {
        availabilityKnownUntil: () => knownUntil(calendarPlan, deps.calendarState),
      }),
    });
    if (!runtime.ok) {
      const { code, field, message } = runtime.error;
      // buildHostRuntime's fields are relative to the host ("host <id>: /services/0/service_id:
      // …"); point them into the config file instead.
      const why = message.replace(`host ${config.id}: `, "").replace(`${field}: `, "");
      return err(fieldError(code, `${at}${field}`, `${at}${field}: ${why}`));
    }
    runtimes.push(runtime.value);
  }
  return ok({ directory: createHostDirectory(runtimes), generatedKeys, calendarHosts });
}

/** One line per transition: errors for a host that cannot serve as it should, info on recovery. */
function logHealth(logger: Logger, change: HealthTransition): void {
  const fields = {
    host_id: change.hostId,
    health: change.to,
    from: change.from,
    ...(change.error !== undefined && { error_code: change.error.code, error: change.error.message }),
  };
  if (change.to === "ok") {
    if (change.from !== "starting") logger.info(`host ${change.hostId} is healthy again`, fields);
    return;
  }
  if (change.to === "needs_reconnection") {
    logger.error(
      `HOST NEEDS RECONNECTION: ${change.hostId}'s booking system refused the gateway's credentials; ` +
        "its time is refused until the business reconnects it",
      fields,
    );
    return;
  }
  logger.error(
    change.from === "starting"
      ? `HOST DEGRADED AT START: ${change.hostId}'s catalog could not be read; it offers no time until it is`
      : `host ${change.hostId} is degraded: its booking system is failing`,
    fields,
  );
}

/** OPERATOR_TOKEN when given, else the credential kept in the data dir (generated once). */
export async function operatorCredential(
  dataDir: string,
  fromEnv: string | undefined,
): Promise<{ token: string; source: "env" | "stored" | "generated" }> {
  if (fromEnv !== undefined) return { token: fromEnv, source: "env" };
  const { token, created } = await loadOrCreateOperatorToken(dataDir);
  return { token, source: created ? "generated" : "stored" };
}
