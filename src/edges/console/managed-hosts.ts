/**
 * Hosts created and changed from the console, kept beside the config file's hosts.
 *
 * A record holds one host entry exactly as a config file would (`config`, checked by the booking
 * core's parseHostsConfig when it is applied), who owns it, and where it is in its life:
 *
 *   draft         created by "Add a business"; connecting and setting up; offers no time
 *   active        set up: served, in discovery, offering time
 *   disconnected  the owner disconnected it (grant revoked and deleted): not served
 *
 * Records live in Redis when the gateway has it (every replica sees them), else in the data
 * directory; both survive restarts. `version()` changes on every write, so a replica notices a
 * change made by another one and applies it (ManagedHostsRuntime.reconcile).
 *
 * This is the console's port: the console states what it needs, and the composition root
 * implements it (the stores and runtime in src/gateway/managed-hosts) and hands it in.
 */
import type { FieldError, Result } from "../../protocol/result.js";

export type ManagedHostState = "draft" | "active" | "disconnected";

/** Where a host's time comes from, as chosen on "Add a business". */
export type ManagedHostSource = "square" | "google" | "microsoft" | "caldav";

export interface ManagedHostRecord {
  /** The host id (HOST_ID_PATTERN); also the config's `id`. */
  readonly id: string;
  /** The owner account id, or OPERATOR_OWNER for a host the operator created. */
  readonly owner: string;
  readonly source: ManagedHostSource;
  readonly state: ManagedHostState;
  /**
   * The host entry as in a config file's `hosts` array (id, name, timezone, connector, calendar,
   * policies, services). In a draft it may be partial; it is checked in full when activated.
   */
  readonly config: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export const OPERATOR_OWNER = "operator";

/**
 * How many records one owner may have (docs/console.md): what they have bounds what
 * their console pages read, and one owner cannot fill the store for everyone. Every record
 * counts toward `hosts` (a disconnected host is still kept); `drafts` bounds those not set up.
 */
export interface OwnerCaps {
  readonly drafts: number;
  readonly hosts: number;
}

export const DEFAULT_OWNER_CAPS: OwnerCaps = { drafts: 20, hosts: 50 };

export type CreateAnswer = "ok" | "exists" | "too_many_drafts" | "too_many_hosts";

export interface ManagedHostStore {
  /** Every owner's records (the operator's pages, reconcile). */
  list(): Promise<ManagedHostRecord[]>;
  /**
   * One owner's records, through a per-owner index: what it reads grows with that owner's
   * records only, never with other owners'. Sorted by id.
   */
  listOwnedBy(owner: string): Promise<ManagedHostRecord[]>;
  /**
   * Create, refused as put's create is when the id is taken, and when the record's owner
   * already has `caps.hosts` records or (for a draft) `caps.drafts` drafts. Counted and written
   * in one step, so parallel creates cannot pass a cap together.
   */
  create(record: ManagedHostRecord, caps: OwnerCaps): Promise<CreateAnswer>;
  get(id: string): Promise<ManagedHostRecord | undefined>;
  /**
   * Create (`ifUpdatedAt` undefined: refused with "exists" when the id is taken) or replace
   * (only while the stored record's updatedAt equals `ifUpdatedAt`: "conflict" otherwise, so two
   * browser tabs or replicas never overwrite each other silently). A record's owner never
   * changes: a replace naming another owner is a "conflict".
   */
  put(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<"ok" | "exists" | "conflict">;
  delete(id: string): Promise<void>;
  /** Changes on every put or delete, in any process sharing the store. */
  version(): Promise<string>;
  close(): Promise<void>;
}

/** What the console uses to make a record live in this process (and, through the store, in all). */
export interface ManagedHosts {
  readonly store: ManagedHostStore;
  /**
   * Check the record's config in full (parseHostsConfig + building the host: connector,
   * catalog, calendar section) and serve it now: in discovery, with availability. A config
   * problem comes back as a FieldError naming the field (relative to the host entry, e.g.
   * "/calendar/hours/0/open"); nothing is stored then. On success the record is stored as
   * `active`.
   */
  activate(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<Result<ManagedHostRecord, FieldError>>;
  /** Stop serving the host in this process (and, through the store, in all) and mark it disconnected. */
  deactivate(id: string): Promise<void>;
  /** Whether a host id is free: not in the config file and not a managed record. */
  idAvailable(id: string): Promise<boolean>;
  /** Apply what other processes changed (called on a timer; tests call it directly). */
  reconcile(): Promise<void>;
}

/** Who is looking at the console: the operator sees every host, an owner only their own. */
export type ConsoleViewer =
  | { readonly kind: "operator" }
  | { readonly kind: "owner"; readonly ownerId: string; readonly email: string };

/**
 * May this viewer see and change this host? Config-file hosts (no record) belong to the
 * operator. One rule, used by every console page, form and Connect/disconnect route.
 */
export function mayManage(
  viewer: ConsoleViewer,
  record: Pick<ManagedHostRecord, "owner"> | undefined,
): boolean {
  if (viewer.kind === "operator") return true;
  return record !== undefined && record.owner === viewer.ownerId;
}
