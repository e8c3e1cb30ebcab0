/**
 * What the console reads of the running gateway: the part of the HTTP app's dependencies
 * (HttpAppDeps, src/gateway/app/types.ts) its routes and pages use. app.ts hands in its own
 * deps, which satisfy this by shape, so the console names none of the SchCP edge's types.
 */
import type { A2aApiKeys } from "../a2a/api-keys.js";
import type { A2aIntents } from "../a2a/port.js";
import type { Clock } from "../../protocol/clock.js";
import type { HostDirectory, OperatorApi } from "../../booking/api.js";
import type { OwnEvent, SyncReport } from "../../booking/calendar/state.js";
import type { HostNotice } from "../../booking/hosts/notices.js";
import type { OriginRateLimit } from "../http/origin-limit.js";
import type { Logger } from "../../protocol/logger.js";
import type { ConnectAppDeps } from "./connect/wiring.js";
import type { ManagedHosts } from "../../gateway/managed-hosts/port.js";

/** A host's upstream notices and calendar sync, as the Operate page shows them. */
export interface ConsoleUpstreams {
  notices(hostId: string): Promise<readonly HostNotice[]>;
  calendar(
    hostId: string,
  ): Promise<
    { readonly reports: readonly SyncReport[]; readonly pendingEvents: readonly OwnEvent[] } | undefined
  >;
}

export interface ConsoleAppDeps {
  /** The gateway's own origin: POSTs from anywhere else are refused. */
  readonly publicOrigin: string;
  readonly hosts: HostDirectory;
  /** Bookings to list, approve and decline. */
  readonly api: OperatorApi;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The operator's credential, for the operator's sign-in. */
  readonly operatorToken: string;
  /** Sign-ins are limited per network origin, read as the origin limit reads it. */
  readonly originRateLimit?: Pick<OriginRateLimit, "trustForwardedFor">;
  readonly connect?: ConnectAppDeps;
  readonly managedHosts?: ManagedHosts;
  readonly upstreams?: ConsoleUpstreams;
  /** Which hosts take A2A cancels and reschedules (they get an API key link). */
  readonly a2a?: A2aIntents;
  readonly a2aKeys?: A2aApiKeys;
}
