/**
 * The bookings capability: appointments the upstream keeps (platforms). Creates are idempotent
 * by a key the gateway derives from the hold, so a retried or reconciled create never makes a
 * second booking upstream (docs/ARCHITECTURE.md, Hold emulation).
 */
import type { Money } from "../../protocol/money/index.js";
import type { ConnectorResult } from "./result.js";

export interface UpstreamCustomer {
  readonly name?: string;
  readonly phone?: string;
  readonly email?: string;
}

export interface UpstreamCreate {
  /**
   * Derived from the hold (e.g. "<hostId>:<holdId>"): the same create retried or
   * reconciled never makes a second booking upstream.
   */
  readonly idempotencyKey: string;
  readonly serviceId: string;
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended booking. */
  readonly end?: number;
  readonly resourceIds: readonly string[];
  readonly customer?: UpstreamCustomer;
  readonly notes?: string;
  readonly partySize?: number;
  /** Tentative: a host_approval booking waiting for the host. */
  readonly tentative: boolean;
  /**
   * SchCP §5.12: one member's part of a meeting, which nothing confirms on any calendar until
   * every member has said yes and the organizer committed. A calendar writes it TENTATIVE
   * whatever `tentative` says, and the commit rewrites it confirmed; a platform may ignore it.
   */
  readonly meeting?: boolean;
  /**
   * Who a tentative booking waits on at this host, for the message that asks them: "host" (or
   * absent) its approver; "member" a meeting member's own acceptance (SchCP §5.12); "none"
   * nobody here (the organizer's own meeting booking, or one a rule already accepted): it is
   * tentative only until the meeting is committed, and nobody is asked.
   */
  readonly awaiting?: "host" | "member" | "none";
  readonly verificationCode?: string;
}

export type UpstreamStatus = "tentative" | "confirmed" | "cancelled" | "completed" | "no_show" | "unknown";

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

export interface BookingMove {
  readonly start: number;
  readonly end?: number;
  readonly resourceIds: readonly string[];
}

/**
 * How a connector finds the booking made under a key after a lost answer:
 * - "native": the platform keeps the key (Square's idempotency_key, the synthetic platform): any
 *   process, any time, from the key alone;
 * - "lookup": the platform shows the bookings the connector can search (a customer's history)
 *   and the connector recognises its own by what it asked for (member, service, start, and the
 *   key it wrote into the notes); it needs the attempt: this process's memory of the create, or
 *   the `attempt` argument;
 * - "none": nothing can be read back; the connector can only prove absence (the attempted time
 *   still free) and otherwise refuses (`unavailable`), never creating a second time.
 */
type FindByKeyAbility = "native" | "lookup" | "none";

/** What a platform's booking API can do; absent on a connector: everything, natively. */
export interface BookingAbilities {
  readonly findByKey: FindByKeyAbility;
  /** `get` reads the platform; false: it answers what this process was told (else not_found). */
  readonly readback: boolean;
  /** `move` and `cancel` exist; false: they answer `unsupported` without a call. */
  readonly move: boolean;
  readonly cancel: boolean;
}

const NATIVE_BOOKING_ABILITIES: BookingAbilities = {
  findByKey: "native",
  readback: true,
  move: true,
  cancel: true,
};

/** A port's abilities as declared, or the native ones when it declares none. */
export const abilitiesOf = (port: BookingPort): BookingAbilities =>
  port.abilities ?? NATIVE_BOOKING_ABILITIES;

export interface BookingPort {
  /** Absent: NATIVE_BOOKING_ABILITIES. */
  readonly abilities?: BookingAbilities;
  /**
   * SchCP §5.12: the port writes a meeting member's booking (UpstreamCreate.meeting) tentative
   * whatever `tentative` says, and confirms it when the meeting is committed (setStatus
   * "confirmed"). Absent: the platform keeps it as `tentative` asks, so a business whose
   * platform has no such state records it as soon as its offer said yes.
   */
  readonly meetingsTentative?: true;
  /** The same key again answers the booking it made (never a second one); slot_taken when the time went. */
  create(request: UpstreamCreate): Promise<ConnectorResult<UpstreamBooking>>;
  get(upstreamId: string): Promise<ConnectorResult<UpstreamBooking>>;
  /**
   * Reconciliation after a lost answer: the booking made under this key, or null when none was.
   * `attempt` is the create as it was asked (service, start, resources, customer): a "lookup"
   * or "none" connector (abilities) that does not remember the key asks the platform with it;
   * without it, such a connector answers from its memory alone (null, no call made, for a key
   * it never sent), which a caller must not read as the platform's word. "native" ignores it.
   */
  findByIdempotencyKey(
    idempotencyKey: string,
    attempt?: UpstreamCreate,
  ): Promise<ConnectorResult<UpstreamBooking | null>>;
  /** A move to another time (§5.7); the upstream may refuse with slot_taken. */
  move(upstreamId: string, change: BookingMove): Promise<ConnectorResult<UpstreamBooking>>;
  /**
   * Idempotent: cancelling a cancelled booking answers it as it is. `by` says who cancelled
   * (the guest, the host, or the gateway itself, e.g. an approval deadline), for platforms
   * that record it (Servicialo `cancelledBy`).
   */
  cancel(
    upstreamId: string,
    reason?: string,
    by?: "guest" | "host" | "system",
  ): Promise<ConnectorResult<UpstreamBooking>>;
  /** Host approval or decline of a tentative booking, or attendance. */
  setStatus(upstreamId: string, status: UpstreamStatus): Promise<ConnectorResult<UpstreamBooking>>;
}
