/**
 * What a connector under the contract suite provides: the connector, where it has free time,
 * a way to make the upstream misbehave the way real ones do, and a count of the appointments
 * it holds. A real connector provides these over a recorded or loopback HTTP upstream; the
 * synthetic platform over its fault plan and its own store.
 */
import type { Connector, Interval } from "../../../src/connectors/port.js";

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
  inject(fault: ContractFault): void;
  /** Clears every injected fault (a reconnected credential). */
  restore(): void;
  /** Appointments the upstream holds that are not cancelled. */
  liveAppointments(): Promise<number>;
  close(): Promise<void>;
}

export type MakeSubject = () => Promise<ContractSubject>;
