/**
 * What the console reads of the running gateway: the part of the HTTP app's dependencies
 * (HttpAppDeps, src/gateway/app/types.ts) its routes and pages use. app.ts hands in its own
 * deps, which satisfy this by shape, so the console names none of another edge's types: what
 * it needs of the A2A edge is stated here (ConsoleA2aHosts, ConsoleA2aKeys) and the A2A
 * edge's objects fit it.
 */
import type { Clock } from "../../protocol/clock.js";
import type { HostDirectory, OperatorApi } from "../../booking/api.js";
import type { OwnEvent, SyncReport } from "../../booking/calendar/state.js";
import type { HostNotice } from "../../booking/hosts/notices.js";
import type { OriginRateLimit } from "../http/origin-limit.js";
import type { Logger } from "../../protocol/logger.js";
import type { ConnectAppDeps } from "./connect/wiring.js";
import type { ManagedHosts } from "./managed-hosts.js";

/** A host's upstream notices and calendar sync, as the Operate page shows them. */
interface ConsoleUpstreams {
  notices(hostId: string): Promise<readonly HostNotice[]>;
  calendar(
    hostId: string,
  ): Promise<
    { readonly reports: readonly SyncReport[]; readonly pendingEvents: readonly OwnEvent[] } | undefined
  >;
}

/**
 * Which Servicialo A2A intents a host serves (A2A §Agent Card Shape), to offer an API key where
 * an agent may cancel or reschedule. The A2A edge's intents (A2aIntents) satisfy it.
 */
interface ConsoleA2aHosts {
  /** undefined: A2A does not serve the host. */
  host(hostId: string): { readonly intents: readonly string[] } | undefined;
}

/**
 * Issues a host's A2A API key (A2A §Authentication over A2A: X-Org-Api-Key), replacing the
 * previous one; the key is returned once and never stored in clear. The A2A edge's key store
 * (A2aApiKeys) satisfies it.
 */
export interface ConsoleA2aKeys {
  issue(hostId: string): Promise<string>;
}

/**
 * A person's contact list (SchCP §7.8), managed on their Contacts page; the core's contact store
 * (src/booking/hosts/contacts.ts) satisfies it. Never shown anywhere but the person's own page.
 */
export interface ConsoleContacts {
  list(
    hostId: string,
  ): Promise<ReadonlyArray<{ readonly principal: string; readonly name: string; readonly addedAt: number }>>;
  add(
    hostId: string,
    contact: { readonly principal: string; readonly name: string; readonly addedAt: number },
  ): Promise<"added" | "updated" | "full" | "invalid">;
  remove(hostId: string, principal: string): Promise<boolean>;
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
  readonly a2a?: ConsoleA2aHosts;
  readonly a2aKeys?: ConsoleA2aKeys;
  /** People's contact lists (SchCP §7.8); absent: no Contacts page. */
  readonly contacts?: ConsoleContacts;
  /** The member page of a person's meeting booking (SchCP §5.12), where they accept or decline. */
  readonly approval?: { memberLink?(hostId: string, bookingId: string): Promise<string | undefined> };
}
