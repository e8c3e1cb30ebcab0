/**
 * What a connector under the contract suite provides: the connector, where it has free time,
 * a way to make the upstream misbehave the way real ones do, and a count of the appointments
 * it holds. A real connector provides these over a recorded or loopback HTTP upstream; the
 * synthetic platform over its fault plan and its own store.
 */
import type { Connector, Interval, UpstreamCreate } from "../../../src/connectors/port.js";

/** Operations of the capabilities under test (catalog, slots, bookings). */
export type ContractOperation = "catalog" | "slots" | "create" | "get" | "findByKey" | "move" | "cancel";

export type ContractFault =
  /** The next call of the operation answers HTTP 429 with Retry-After in whole seconds. */
  | {
      readonly kind: "rate_limited";
      readonly operation: ContractOperation;
      readonly retryAfterSeconds: number;
    }
  /** The next call of the operation gets no answer within the connector's timeout. */
  | { readonly kind: "timeout"; readonly operation: ContractOperation }
  /** The next call of the operation is done upstream, and then its answer is lost. */
  | { readonly kind: "lost_response"; readonly operation: "create" | "move" | "cancel" }
  /** The credential is revoked: every call answers 401 until `restore()`. */
  | { readonly kind: "revoked" };

export interface ContractSubject {
  /** Must have the platform capabilities: catalog, slots, bookings. */
  readonly connector: Connector;
  /** A service with fixed duration whose resources each serve one booking at a time. */
  readonly serviceId: string;
  /** A range, in the future, with at least two free starts of that service. */
  readonly range: Interval;
  /**
   * What a create needs on this platform beyond the slot (a customer to book for, a
   * verification code): merged into every create the suite sends.
   */
  readonly createExtras?: Pick<Partial<UpstreamCreate>, "customer" | "verificationCode">;
  /**
   * The operations a revoked credential refuses. Default: catalog, slots, create and findByKey
   * (a platform whose every call is authenticated). Fewer on a platform whose reads and books
   * are public (Servicialo: cancel and move); none on a key-less one (Openings).
   */
  readonly credentialGuards?: readonly ContractOperation[];
  /**
   * Another gateway process on the same upstream: a fresh connector with nothing in memory.
   * Optional; where given, the suite checks what that process can find by key.
   */
  fresh?(): Connector;
  /**
   * Create requests the upstream received so far. Required of a connector whose findByKey is
   * not "native" (the suite proves a retry after a lost answer sends nothing).
   */
  createsSent?(): number;
  inject(fault: ContractFault): void;
  /** Clears every injected fault (a reconnected credential). */
  restore(): void;
  /** Appointments the upstream holds that are not cancelled. */
  liveAppointments(): Promise<number>;
  close(): Promise<void>;
}

export type MakeSubject = () => Promise<ContractSubject>;
