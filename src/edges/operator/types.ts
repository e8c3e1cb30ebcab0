import type { BookingRefusal, HostConfig, HostDirectory, OperatorApi } from "../../booking/api.js";
import type { OwnEvent, SyncReport } from "../../booking/calendar/state.js";
import type { HostNotice } from "../../booking/hosts/notices.js";
import type { EdgeRefusal } from "../http/respond.js";

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
  /** Upstream notices and calendar sync state for the operator API (operator-upstreams.ts). */
  readonly upstreams?: UpstreamsView;
  /**
   * The core's refusal as the operator API answers it: SchCP's refusal shape with the host's
   * contact remedy (SchCP §9.2). The composition root (src/gateway/app) hands in the SchCP
   * edge's mapping, so the core-to-SchCP table is kept once, in the SchCP edge.
   */
  readonly bookingRefusal: (refusal: BookingRefusal, host: HostConfig) => EdgeRefusal;
}
