import type { HostDirectory, OperatorApi } from "../../booking/api.js";
import type { OwnEvent, SyncReport } from "../../booking/calendar/state.js";
import type { HostNotice } from "../../booking/hosts/notices.js";
import type { ManagedHosts } from "../../gateway/managed-hosts/port.js";

/** Upstream notices and calendar sync state, as the operator API shows them. */
export interface UpstreamsView {
  /** A host's upstream Deprecation/Sunset notices, as recorded (src/booking/hosts/notices.ts). */
  notices(hostId: string): Promise<readonly HostNotice[]>;
  /** A calendar host's last sync per calendar and its own events still to be rewritten. */
  calendar(
    hostId: string,
  ): Promise<
    { readonly reports: readonly SyncReport[]; readonly pendingEvents: readonly OwnEvent[] } | undefined
  >;
  /** Ask for a calendar host's sync now (false: not a calendar host). */
  syncNow(hostId: string): Promise<boolean>;
}

/** What the operator API needs from the running gateway (the composition root hands it in). */
export interface OperatorHttpDeps {
  readonly hosts: HostDirectory;
  readonly api: OperatorApi;
  /** The operator API's bearer credential. */
  readonly operatorToken: string;
  /** Request bodies above this are refused with 413 (default 64 KiB). */
  readonly maxBodyBytes?: number;
  /** Hosts added and set up from the console (src/gateway/managed-hosts); absent: config-file hosts only. */
  readonly managedHosts?: ManagedHosts;
  /** Upstream notices and calendar sync state for the operator API (operator-upstreams.ts). */
  readonly upstreams?: UpstreamsView;
}
