/**
 * The host's upstream (its booking platform or calendar) as the core reports it to an edge:
 * the booking the platform keeps and its status (OSBP booking.status reads it fresh), the
 * free starts it states, the customer passed to it, the metadata of each call (OSBP "Platform
 * Metadata and Versioning"), what its booking API can do, and an answer passed on as it came
 * (verification). Its failures are in the core's error vocabulary (errors.ts UpstreamFailure).
 *
 * These are the core's own declarations, so an edge names the core, never a connector
 * (docs/ARCHITECTURE.md, Dependency rules). The connector ports state the same shapes
 * (src/connectors/ports/): what a connector answers is assignable to these, and the customer
 * the core passes on is assignable to a connector's, which test/booking/domain-types.test.ts
 * pins.
 */
import type { Money } from "../protocol/money/index.js";
import type { Result } from "../protocol/result.js";
import type { UpstreamFailure } from "./errors.js";

/** A booking's status as the platform records it; "unknown" for anything it cannot classify. */
export type UpstreamStatus = "tentative" | "confirmed" | "cancelled" | "completed" | "no_show" | "unknown";

/** The appointment the platform keeps for a booking. */
export interface UpstreamBooking {
  readonly upstreamId: string;
  readonly idempotencyKey?: string;
  readonly serviceId: string;
  readonly start: number;
  readonly end?: number;
  readonly resourceIds: readonly string[];
  readonly status: UpstreamStatus;
  /** The total the upstream recorded for the booking, when its answer states one. */
  readonly total?: Money;
}

/** A free start, with the resources free to serve it. */
export interface UpstreamSlot {
  readonly serviceId: string;
  readonly start: number;
  /** End of the service itself (no buffer); absent for an open-ended service. */
  readonly end?: number;
  readonly resourceIds: readonly string[];
  /** The all-in total of one booking at this start, when the upstream states one. */
  readonly total?: Money;
}

/** The person the booking is for, as the platform is told (each member only when given). */
export interface UpstreamCustomer {
  readonly name?: string;
  readonly phone?: string;
  readonly email?: string;
}

/** Response metadata of one upstream call (OSBP UpstreamMeta); status 0: no answer arrived. */
export interface UpstreamMeta {
  /** "METHOD /path": query omitted, contact-bearing segments redacted. */
  readonly call: string;
  readonly status: number;
  readonly server?: string;
  readonly request_id?: string;
  readonly api_version?: string;
  readonly deprecation?: string;
  readonly sunset?: string;
  /** Retry-After, RateLimit, RateLimit-Policy, X-RateLimit-*, keyed lowercase. */
  readonly ratelimit?: Readonly<Record<string, string>>;
  /** The answer came from the connector's memory: the metadata of the earlier call that made it. */
  readonly replay?: true;
}

/**
 * What the platform's booking API can do (hosts/capabilities.ts bookingAbilitiesOf): find a
 * booking again by the key it was made under ("native", "lookup" or "none"), read it back, move
 * it, cancel it.
 */
export interface BookingAbilities {
  readonly findByKey: "native" | "lookup" | "none";
  readonly readback: boolean;
  readonly move: boolean;
  readonly cancel: boolean;
}

/** An upstream answer passed on as it came, with the metadata of the call that made it. */
export type UpstreamAnswer<T> = Result<T, UpstreamFailure> & { readonly upstream?: UpstreamMeta };
